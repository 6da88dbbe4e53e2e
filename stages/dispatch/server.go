package dispatch

import (
	"context"
	"sync"
	"time"

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
	StartOp(ctx context.Context, id string, op OpKind, params any, done func(OpDone))
	StartTurn(ctx context.Context, runID string, p TurnParams, done func())
	CancelRun(runID string)
	// Answer hands an approval reply to the active run: "" when it won,
	// protocol.CodeStaleApproval otherwise.
	Answer(p AnswerParams) protocol.Code
}

// Closed describes why admission stopped.
type Closed struct {
	Shutdown bool // an accepted shutdown (versus EOF or a closing error)
}

// Server is the shell around Machine. Its methods are safe for concurrent
// use: requests arrive from the stdin goroutine, completions from workers.
// Every method returns without waiting for output or work.
type Server struct {
	out     Responder
	workers Workers
	now     func() time.Time

	// work is cancelled when admission stops; every worker runs under it.
	work       context.Context
	cancelWork context.CancelFunc

	// closed receives one value when admission stops; fatal, when a
	// response could not be queued (exit 1).
	closed chan Closed
	fatal  chan error

	// mu serialises Step and the effects it returns, so that effects of one
	// step are performed in order (a turn.start response precedes its run).
	mu sync.Mutex
	m  *Machine
}

// NewServer returns a server around a fresh machine.
func NewServer(out Responder, workers Workers, newID func() string, now func() time.Time) *Server {
	work, cancel := context.WithCancel(context.Background())
	return &Server{
		out: out, workers: workers, now: now,
		work: work, cancelWork: cancel,
		closed: make(chan Closed, 1),
		fatal:  make(chan error, 1),
		m:      NewMachine(newID),
	}
}

// Closed delivers one value when admission stops (shutdown, EOF, or a
// closing error code).
func (s *Server) Closed() <-chan Closed { return s.closed }

// Fatal delivers the first fatal output error (the pending queue overflowed).
func (s *Server) Fatal() <-chan error { return s.fatal }

// Line handles one complete input line (LF stripped).
func (s *Server) Line(line []byte) {
	req, code := validate.Parse(line)
	s.Step(Request{Req: req, Code: code})
}

// Step feeds one event to the machine and performs its effects.
func (s *Server) Step(ev any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.m.Step(s.now(), ev) {
		s.performLocked(e)
	}
}

// Cancel stops all work without a protocol close (an output failure).
func (s *Server) Cancel() { s.cancelWork() }

// ActiveRun reports, under the lock, the active run ID ("" when none).
func (s *Server) ActiveRun() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m.ActiveRun()
}

func (s *Server) respondLocked(r wire.Response) {
	if err := s.out.Respond(&r); err != nil {
		select {
		case s.fatal <- err:
		default:
		}
	}
}

// performLocked runs one effect; s.mu is held. Nothing here blocks.
func (s *Server) performLocked(e Effect) {
	switch e.Kind {
	case Respond:
		s.respondLocked(e.Response)
	case StartInit:
		s.workers.StartInit(s.work, e.Caps, func(d InitDone) { s.Step(d) })
	case StartOp:
		s.workers.StartOp(s.work, e.ID, e.Op, e.Params, func(d OpDone) {
			d.ID = e.ID
			s.Step(d)
		})
	case StartTurn:
		runID := e.RunID
		s.workers.StartTurn(s.work, runID, e.Params.(TurnParams), func() { s.Step(RunWorkerDone{RunID: runID}) })
	case CancelRun:
		s.workers.CancelRun(e.RunID)
	case AnswerApproval:
		if code := s.workers.Answer(e.Params.(AnswerParams)); code != "" {
			s.respondLocked(fail(e.ID, code).Response)
		} else {
			s.respondLocked(respond(e.ID, []byte(`{"recorded":true}`)).Response)
		}
	case Close:
		// Spec: EOF and shutdown stop admission and cancel pending work.
		s.cancelWork()
		select {
		case s.closed <- Closed{Shutdown: e.Shutdown}:
		default:
		}
	}
}
