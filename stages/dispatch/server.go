package dispatch

import (
	"context"
	"sync"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/validate"
	"github.com/magi-code/magi-code/stages/wire"
)

// Responder is the ordered writer's response entry point: it never blocks
// on output and fails only fatally (overflow: exit 1).
type Responder interface {
	Respond(r *wire.Response) error
}

// Workers runs the work the machine admits. Every Start method returns at
// once; the work reports its end through the given callback, exactly once,
// from any goroutine other than the caller's: the Server holds its lock while
// it calls Start, and done takes that lock, so a done called before Start
// returns would deadlock. Cancel and Answer never block on the work.
type Workers interface {
	StartInit(ctx context.Context, caps []string, done func(InitDone))
	StartOp(ctx context.Context, op StartOp, done func(OpDone))
	StartTurn(ctx context.Context, runID string, p TurnParams, done func())
	CancelRun(runID string)
	// Answer records an approval reply for the active run: "" when it won,
	// protocol.CodeStaleApproval otherwise. A winning reply reaches the run
	// only when deliver is called, which the Server does after queueing the
	// response: the answer's response precedes every event it causes.
	Answer(p AnswerParams) (code protocol.Code, deliver func())
}

// Server is the shell around Machine. Its methods are safe for concurrent
// use: requests arrive from the stdin goroutine, completions from workers,
// run.finished notices from the writer. Every method returns without
// waiting for output or work.
type Server struct {
	out     Responder
	workers Workers

	// work is cancelled when admission stops, or when the context given to
	// NewServer ends (the process is exiting); every worker runs under it.
	work       context.Context
	cancelWork context.CancelFunc

	// closed receives the one Close effect: admission stopped.
	closed chan Close

	// mu serialises Step and the effects it returns, so that effects of one
	// step are performed in order (a turn.start response precedes its run).
	mu sync.Mutex
	m  *Machine
}

// NewServer returns a server around a fresh machine. Work runs under a
// context derived from ctx.
func NewServer(ctx context.Context, out Responder, workers Workers, newID func() string) *Server {
	work, cancel := context.WithCancel(ctx)
	return &Server{
		out: out, workers: workers,
		work: work, cancelWork: cancel,
		closed: make(chan Close, 1),
		m:      NewMachine(newID),
	}
}

// Closed delivers the Close effect once, when admission stops (shutdown,
// EOF, or a closing error code).
func (s *Server) Closed() <-chan Close { return s.closed }

// Line handles one complete input line (LF stripped).
func (s *Server) Line(line []byte) {
	req, code := validate.Parse(line)
	s.Step(Request{Req: req, Code: code})
}

// Step feeds one event to the machine and performs its effects.
func (s *Server) Step(ev Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.m.Step(ev) {
		e.performLocked(s)
	}
}

// EventQueued is the writer's notice that a run event entered its queue:
// run.finished ends the run for status. docs/protocol.md, status: running state retains the run
// ID until worker completion and event draining.
func (s *Server) EventQueued(e *wire.Event) {
	if e.Name == protocol.EventRunFinished {
		s.Step(RunDrained{RunID: e.RunID})
	}
}

// respondLocked queues a response. A failure (the pending queue overflowed,
// or output already failed) is the writer's fatal error, which its Run
// returns to the owner: nothing more to do here.
func (s *Server) respondLocked(r wire.Response) { _ = s.out.Respond(&r) }

// The performers, one per effect; s.mu is held. Nothing here blocks.

func (e Respond) performLocked(s *Server) { s.respondLocked(e.Response) }

func (e StartInit) performLocked(s *Server) {
	s.workers.StartInit(s.work, e.Caps, func(d InitDone) { s.Step(d) })
}

func (e StartOp) performLocked(s *Server) {
	s.workers.StartOp(s.work, e, func(d OpDone) {
		d.ID = e.ID
		s.Step(d)
	})
}

func (e StartTurn) performLocked(s *Server) {
	runID := e.RunID
	s.workers.StartTurn(s.work, runID, e.Params, func() { s.Step(RunWorkerDone{RunID: runID}) })
}

func (e CancelRun) performLocked(s *Server) { s.workers.CancelRun(e.RunID) }

func (e AnswerApproval) performLocked(s *Server) {
	code, deliver := s.workers.Answer(e.Params)
	if code != "" {
		s.respondLocked(fail(e.ID, code).Response)
		return
	}
	s.respondLocked(respond(e.ID, []byte(`{"recorded":true}`)).Response)
	deliver()
}

func (e Close) performLocked(s *Server) {
	// docs/protocol.md, shutdown: EOF and shutdown stop admission and cancel pending work.
	s.cancelWork()
	select {
	case s.closed <- e:
	default:
	}
}
