package dispatch

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
	"golang.org/x/tools/txtar"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// journal records, in order, everything the server does to the outside:
// responses and worker calls share one log so their order is visible.
type journal struct {
	mu  sync.Mutex
	log []string
}

func (j *journal) add(s string) {
	j.mu.Lock()
	j.log = append(j.log, s)
	j.mu.Unlock()
}

func (j *journal) entries() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.log)
}

// fakeResponder records responses; it fails with err once set.
type fakeResponder struct {
	j   *journal
	err error
}

func (r *fakeResponder) Respond(resp *wire.Response) error {
	r.j.add(render(Respond{Response: *resp}))
	return r.err
}

// fakeWorkers records calls and keeps the completion callbacks, which the
// test calls from goroutines of its own (the real workers' contract).
type fakeWorkers struct {
	j       *journal
	verdict protocol.Code

	mu      sync.Mutex
	initCtx context.Context
	initFn  func(InitDone)
	opFns   map[string]func(OpDone)
	turnFns map[string]func()
}

func newFakeWorkers(j *journal) *fakeWorkers {
	return &fakeWorkers{j: j, opFns: map[string]func(OpDone){}, turnFns: map[string]func(){}}
}

func (w *fakeWorkers) StartInit(ctx context.Context, caps []string, done func(InitDone)) {
	w.j.add(fmt.Sprintf("worker start_init %v", caps))
	w.mu.Lock()
	w.initCtx, w.initFn = ctx, done
	w.mu.Unlock()
}

func (w *fakeWorkers) StartOp(_ context.Context, op StartOp, done func(OpDone)) {
	w.j.add(fmt.Sprintf("worker start_op %s %s %s", op.ID, opName(op.Op), opParams(op)))
	w.mu.Lock()
	w.opFns[op.ID] = done
	w.mu.Unlock()
}

func (w *fakeWorkers) StartTurn(_ context.Context, runID string, p TurnParams, done func()) {
	w.j.add(fmt.Sprintf("worker start_turn %s %+v", runID, p))
	w.mu.Lock()
	w.turnFns[runID] = done
	w.mu.Unlock()
}

func (w *fakeWorkers) CancelRun(runID string) { w.j.add("worker cancel_run " + runID) }

func (w *fakeWorkers) Answer(p AnswerParams) (protocol.Code, func()) {
	w.j.add(fmt.Sprintf("worker answer %+v", p))
	return w.verdict, func() { w.j.add("worker deliver " + p.ApprovalID) }
}

// fromGoroutine runs fn on a goroutine of its own and waits for it: worker
// completions arrive from other goroutines than the stdin reader.
func fromGoroutine(fn func()) {
	var wg sync.WaitGroup
	wg.Go(fn)
	wg.Wait()
}

func newTestServer() (*Server, *fakeResponder, *fakeWorkers, *journal) {
	j := &journal{}
	out := &fakeResponder{j: j}
	w := newFakeWorkers(j)
	return NewServer(context.Background(), out, w, counterIDs()), out, w, j
}

// activeRun reads the machine's active run ID under the server's lock.
func activeRun(s *Server) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m.run
}

func TestServerPerformsEffectsInOrder(t *testing.T) {
	s, _, w, j := newTestServer()
	s.Line([]byte(line("i1", "initialize", `{"required_capabilities":["status"]}`)))
	s.Line([]byte(line("a", "status", `{}`)))
	w.mu.Lock()
	initDone := w.initFn
	w.mu.Unlock()
	fromGoroutine(func() { initDone(InitDone{Sel: fixtureSel}) })
	s.Line([]byte(line("c1", "session.create", `{}`)))
	fromGoroutine(func() {
		w.mu.Lock()
		done := w.opFns["c1"]
		w.mu.Unlock()
		// The worker need not know the request ID: the shell fills it in.
		done(OpDone{Result: []byte(createResult), Attached: "s1"})
	})
	s.Line([]byte(line("t1", "turn.start", `{"session_id":"s1","prompt":"hi"}`)))
	if got := activeRun(s); got != "run-1" {
		t.Fatalf("ActiveRun() = %q; want run-1", got)
	}
	s.Line([]byte(line("k1", "turn.cancel", `{"session_id":"s1","run_id":"run-1"}`)))
	s.Line([]byte(line("p1", "approval.answer", `{"session_id":"s1","run_id":"run-1","approval_id":"ap","allow":true}`)))
	w.verdict = protocol.CodeStaleApproval
	s.Line([]byte(line("p2", "approval.answer", `{"session_id":"s1","run_id":"run-1","approval_id":"ap","allow":false}`)))
	fromGoroutine(func() {
		w.mu.Lock()
		done := w.turnFns["run-1"]
		w.mu.Unlock()
		done()
	})
	s.Step(RunDrained{RunID: "run-1"})
	if got := activeRun(s); got != "" {
		t.Fatalf("ActiveRun() after worker done and drained = %q; want none", got)
	}
	s.Line([]byte(line("x", "shutdown", `{}`)))
	s.Line([]byte(line("y", "status", `{}`)))

	wantLog := []string{
		"worker start_init [status]",
		"respond a " + statusStarting,
		"respond i1 " + initResult(statusIdle),
		"worker start_op c1 create <nil>",
		"respond c1 " + createResult,
		`respond t1 {"run_id":"run-1","accepted":true}`,
		"worker start_turn run-1 {SessionID:s1 Prompt:hi}",
		`respond k1 {"cancellation_requested":true}`,
		"worker cancel_run run-1",
		"worker answer {SessionID:s1 RunID:run-1 ApprovalID:ap Allow:true ForSession:false}",
		`respond p1 {"recorded":true}`,
		"worker deliver ap", // after the response: it precedes what the reply causes
		"worker answer {SessionID:s1 RunID:run-1 ApprovalID:ap Allow:false ForSession:false}",
		"respond p2 error=stale_approval",
		`respond x {"state":"stopping"}`,
	}
	if got := j.entries(); !slices.Equal(got, wantLog) {
		t.Fatalf("journal\n got %q\nwant %q", got, wantLog)
	}
	select {
	case c := <-s.Closed():
		if !c.Shutdown {
			t.Fatalf("Closed() = %+v; want Shutdown", c)
		}
	default:
		t.Fatal("Closed() delivered nothing after shutdown")
	}
	if err := w.initCtx.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("work context after shutdown: err = %v; want canceled", err)
	}
}

func TestServerClose(t *testing.T) {
	tests := []struct {
		name     string
		ev       Event
		shutdown bool
	}{
		{"EOF", EOF{}, false},
		{"frame_too_large", FrameError{Code: protocol.CodeFrameTooLarge}, false},
		{"protocol_mismatch", Request{Req: wire.Request{ID: "a"}, Code: protocol.CodeProtocolMismatch}, false},
		{"shutdown", Request{Req: wire.Request{ID: "a", Method: "shutdown", Params: []byte(`{}`)}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _, _ := newTestServer()
			s.Step(tt.ev)
			s.Step(EOF{}) // a second close is not delivered twice
			select {
			case c := <-s.Closed():
				if c.Shutdown != tt.shutdown {
					t.Fatalf("Closed() = %+v; want Shutdown=%v", c, tt.shutdown)
				}
			default:
				t.Fatal("Closed() delivered nothing")
			}
			select {
			case c := <-s.Closed():
				t.Fatalf("Closed() delivered a second value %+v", c)
			default:
			}
			if s.work.Err() == nil {
				t.Fatal("work context not cancelled on close")
			}
		})
	}
}

var errOverflow = errors.New("pending output overflow")

// TestServerRespondErrorKeepsServing: a failed Respond is the writer's fatal
// error, which the writer's Run returns to the process owner; the server
// neither blocks on it nor stops stepping. Its work ends with the context
// the server was built with.
func TestServerRespondErrorKeepsServing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	j := &journal{}
	out := &fakeResponder{j: j}
	s := NewServer(ctx, out, newFakeWorkers(j), counterIDs())
	s.Line([]byte(line("a", "status", `{}`)))
	out.err = errOverflow
	s.Line([]byte(line("b", "status", `{}`)))
	s.Line([]byte(line("c", "status", `{}`))) // a second failure does not block
	if got := len(j.entries()); got != 3 {
		t.Fatalf("%d responses attempted; want 3", got)
	}
	if s.work.Err() != nil {
		t.Fatal("work cancelled by a failed Respond")
	}
	cancel()
	if s.work.Err() == nil {
		t.Fatal("cancelling the server's context did not cancel work")
	}
}

// TestServerConcurrent drives the server from several goroutines at once,
// as stdin, workers and the writer do; run with -race.
func TestServerConcurrent(t *testing.T) {
	s, _, w, j := newTestServer()
	s.Line([]byte(line("i1", "initialize", `{"required_capabilities":[]}`)))
	w.mu.Lock()
	initDone := w.initFn
	w.mu.Unlock()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for i := 0; i < 100; i++ {
				s.Line([]byte(line("g"+strconv.Itoa(g)+"-"+strconv.Itoa(i), "status", `{}`)))
			}
		})
	}
	wg.Go(func() { initDone(InitDone{Sel: fixtureSel}) })
	wg.Go(func() { s.Step(RunDrained{RunID: "none"}) })
	wg.Wait()
	responses := 0
	for _, e := range j.entries() {
		if len(e) > 8 && e[:8] == "respond " {
			responses++
		}
	}
	if responses != 401 {
		t.Fatalf("%d responses; want 401 (400 status and the initialize)", responses)
	}
	if s.m.life != Ready {
		t.Fatalf("lifecycle = %v; want Ready", s.m.life)
	}
}

var update = flag.Bool("update", false, "rewrite testdata/*.txtar server sections")

// TestTranscripts runs testdata/*.txtar through validate.Parse and the
// machine. Under -- client --, each line is a request line, or a worker
// completion starting with '!':
//
//	!init                 the initialization worker succeeded (fixture selection)
//	!init-fail CODE       it failed with CODE
//	!op [SESSION]         the pending session/history op succeeded (attaching SESSION)
//	!op-fail CODE         it failed with CODE
//	!worker-done, !drained  the latest run's worker returned / its run.finished was taken
//	!frame CODE           framing answered CODE;  !eof  stdin ended
//
// Under -- server --, each response is the exact frame the writer would
// send (instance 00000000-0000-0000-0000-000000000000, seq from 1) and
// every other effect is "> effect".
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var client, server *txtar.File
			for i := range ar.Files {
				switch ar.Files[i].Name {
				case "client":
					client = &ar.Files[i]
				case "server":
					server = &ar.Files[i]
				}
			}
			if client == nil || server == nil {
				t.Fatal("transcript needs -- client -- and -- server --")
			}
			got := runTranscript(t, string(client.Data))
			if *update {
				server.Data = []byte(got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != string(server.Data) {
				t.Fatalf("server transcript differs (run with -update to rewrite)\n got:\n%s\nwant:\n%s", got, server.Data)
			}
		})
	}
}

func runTranscript(t *testing.T, client string) string {
	m := NewMachine(counterIDs())
	var out strings.Builder
	var seqNo uint64
	opID, run := "", ""
	for _, l := range strings.Split(strings.TrimSuffix(client, "\n"), "\n") {
		var ev Event
		if cmd, ok := strings.CutPrefix(l, "!"); ok {
			word, arg, _ := strings.Cut(cmd, " ")
			switch word {
			case "init":
				ev = InitDone{Sel: fixtureSel}
			case "init-fail":
				ev = InitDone{Code: protocol.Code(arg)}
			case "op":
				result := `{"session_id":"` + arg + `","durable":false,"revision":"v1","notices":[]}`
				if arg == "" {
					result = `{"session_id":"s1","revision":"v1","entries":[],"next_cursor":null,"complete":true}`
				}
				ev = OpDone{ID: opID, Result: []byte(result), Attached: arg}
			case "op-fail":
				ev = OpDone{ID: opID, Code: protocol.Code(arg)}
			case "worker-done":
				ev = RunWorkerDone{RunID: run}
			case "drained":
				ev = RunDrained{RunID: run}
			case "frame":
				ev = FrameError{Code: protocol.Code(arg)}
			case "eof":
				ev = EOF{}
			default:
				t.Fatalf("unknown transcript command %q", l)
			}
		} else {
			ev = toEvent(l)
		}
		for _, e := range m.Step(ev) {
			switch e := e.(type) {
			case Respond:
				checkResponse(t, e.Response)
				seqNo++
				out.Write(wire.AppendResponse(nil, "00000000-0000-0000-0000-000000000000", seqNo, &e.Response))
				continue
			case StartOp:
				opID = e.ID
			case StartTurn:
				run = e.RunID
			}
			out.WriteString("> " + render(e) + "\n")
		}
	}
	return out.String()
}
