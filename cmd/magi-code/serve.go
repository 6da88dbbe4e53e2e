package main

import (
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/sourcegraph/conc"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/framing"
	"github.com/magi-code/magi-code/stages/wire"
	"github.com/magi-code/magi-code/stages/worker"
	"github.com/magi-code/magi-code/stages/writer"
)

// errWriterPanic reports a panic in the writer goroutine.
var errWriterPanic = errors.New("writer panicked")

// Exit codes of serve.
const (
	exitOK      = 0
	exitFailure = 1
)

// serve is the child's main: it takes fd 0 and fd 1 for the protocol and
// runs the pipeline on them until the child must exit.
// Nothing here writes to stderr: runtime failures exit 1 silently.
func serve() int {
	// Spec: "Stdout contains protocol bytes only": the writer owns a private
	// duplicate of fd 1, and fd 0/1 now point at /dev/null.
	in, out, err := writer.TakeStdio()
	if err != nil {
		return exitFailure
	}
	quietLogs()
	stopProfile := startProfile()
	defer stopProfile()
	return pipeline(in, out, runner.ProcessEnv())
}

// quietLogs sends the default log and slog loggers nowhere. mcp-go's client
// logs through the default slog logger, which writes to stderr: serve never
// writes there, and the terminal session must not scribble on its screen.
func quietLogs() {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	log.SetOutput(io.Discard)
}

// pipeline wires the pipeline between in and out and runs it until it must
// end, returning the exit code (exitOK after a drained shutdown or EOF):
//
//	in ─► framing ─► validate ─► dispatch ─► workers ─► events ─┐
//	                                 └──── responses ──► writer ◄─┘ ─► out
//
// Framing, validation and dispatch run inline on the input goroutine; a
// response is written inline when nothing is pending (PERFORMANCE lesson 4).
// serve runs it on the process's stdio; the terminal session runs it
// in-process over a writer.Pipe, with the same rules. It does not close in
// or out.
func pipeline(in io.Reader, out writer.Output, env runner.Env) int {
	now := time.Now
	newID := uuid.NewString

	// The run-event edge: deltas Drop, every other event Wait(2000 ms),
	// whose failure cancels the run with output_unavailable.
	events := backpressure.New[wire.Event]("run-events", protocol.WorkerEvents, backpressure.Wait(protocol.CriticalEventWait), backpressure.System)

	pool := worker.NewPool(worker.Options{Env: env, NewID: newID, Now: now, Events: events})

	var srv *dispatch.Server
	w, err := writer.New(out, writer.Options{
		InstanceID: newID(),
		Now:        now,
		OnEvent: func(e *wire.Event) {
			// Spec: running state retains the run ID until worker
			// completion and event draining.
			if e.Name == protocol.EventRunFinished {
				srv.Step(dispatch.RunDrained{RunID: e.RunID})
			}
		},
	})
	if err != nil {
		return exitFailure
	}
	srv = dispatch.NewServer(w, pool, newID, now)

	writerCtx, stopWriter := context.WithCancelCause(context.Background())
	defer stopWriter(nil)
	var wg conc.WaitGroup
	writerDone := make(chan error, 1)
	wg.Go(func() {
		// A writer panic is a broken invariant: report it as a fatal output
		// error (exit 1) instead of holding it until wg.Wait.
		defer func() {
			if r := recover(); r != nil {
				writerDone <- errWriterPanic
			}
		}()
		writerDone <- w.Run(writerCtx, events.C())
	})

	// The stdin reader stays outside the WaitGroup: a read blocked on stdin
	// may never return, and process exit ends it (STYLE.md section 2). A
	// panic there must not print a trace to stderr: it ends the child with
	// exit 1 like any runtime failure.
	readerPanicked := make(chan struct{})
	go func() {
		defer func() {
			if recover() != nil {
				close(readerPanicked)
			}
		}()
		readInput(in, srv)
	}()

	code := exitFailure
	select {
	case c := <-srv.Closed():
		code = drain(c, pool, events, writerDone)
	case <-srv.Fatal():
		srv.Cancel()
	case <-pool.Panicked():
		// A broken invariant in a worker: exit 1, like any runtime failure.
		srv.Cancel()
	case <-readerPanicked:
		srv.Cancel()
	case <-pool.OutputLost():
		// A run's terminal event found no room within 2000 ms: never a
		// silent authoritative drop.
		srv.Cancel()
	case <-writerDone:
		// Output deadline, broken output or overflow: exit 1.
		srv.Cancel()
	}
	stopWriter(errors.New("exit"))
	cleanup(pool)
	if code != exitOK {
		return exitFailure
	}
	wg.Wait()
	return code
}

// readInput frames stdin and hands every line to the server inline.
func readInput(in io.Reader, srv *dispatch.Server) {
	frames := framing.NewReader(in)
	for {
		line, code, err := frames.Next()
		switch {
		case err != nil:
			// EOF, or a read error, which the spec treats like EOF.
			srv.Step(dispatch.EOF{})
			return
		case code != "":
			srv.Step(dispatch.FrameError{Code: code})
			if code == protocol.CodeFrameTooLarge {
				// Spec: close without unbounded draining: read no more.
				return
			}
		default:
			srv.Line(line)
		}
	}
}

// drain finishes after admission stopped: the workers (already cancelled)
// end and emit their terminal events, then the writer drains everything.
// Spec: EOF "drains output under a 2000 ms closing deadline; expiration
// before draining/turn completion exits 1, successful drain exits 0".
func drain(_ dispatch.Closed, pool *worker.Pool, events *backpressure.Queue[wire.Event], writerDone <-chan error) int {
	deadline := time.NewTimer(protocol.ClosingDrain)
	defer deadline.Stop()
	workersDone := make(chan struct{})
	go func() { // ends when the cancelled workers return
		defer close(workersDone)
		pool.Wait()
	}()
	select {
	case <-workersDone:
	case <-pool.Panicked():
		return exitFailure
	case <-deadline.C:
		return exitFailure
	case <-writerDone:
		return exitFailure
	}
	events.Close() // the workers, the only producers, have all returned
	select {
	case err := <-writerDone:
		if err != nil {
			return exitFailure
		}
		return exitOK
	case <-deadline.C:
		return exitFailure
	}
}

// cleanup tears the runtime down (MCP servers first, session leases last)
// and waits at most 2000 ms; slow teardown is left to process exit.
func cleanup(pool *worker.Pool) {
	ctx, cancel := context.WithTimeout(context.Background(), protocol.CleanupWait)
	defer cancel()
	done := make(chan struct{})
	go func() { // detached after the cleanup wait; process exit ends it
		defer close(done)
		pool.Teardown(ctx)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
