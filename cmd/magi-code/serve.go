package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/google/uuid"
	"github.com/sourcegraph/conc"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/internal/diaglog"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/framing"
	"github.com/magi-code/magi-code/stages/wire"
	"github.com/magi-code/magi-code/stages/worker"
	"github.com/magi-code/magi-code/stages/writer"
)

// aLongTimeAgo is a read deadline that has always passed: setting it wakes
// the stdin reader parked in the poller.
var aLongTimeAgo = time.Unix(1, 0)

// serve is the child's main: it takes fd 0 and fd 1 for the protocol and
// runs the pipeline on them until the child must exit:
//
//	stdin ─► framing ─► validate ─► dispatch ─► workers ─► run-events ─┐
//	                                   └──── responses ──► writer ◄─────┘ ─► stdout
//
// Framing, validation and dispatch run inline on the stdin goroutine; a
// response is written inline when nothing is pending (see docs/architecture.md,
// The pipeline). Nothing here writes to stderr: runtime failures
// exit 1 silently.
func serve() int {
	// docs/protocol.md, Frames: "Stdout contains protocol bytes only": the writer owns a private
	// duplicate of fd 1, and fd 0/1 now point at /dev/null.
	in, out, err := writer.TakeStdio()
	if err != nil {
		return exitCode(fmt.Errorf("%w: %w", causeOutputBroken, err))
	}
	quietLogs()
	stopProfile := startProfile()
	defer stopProfile()

	return pipeline(in, out, runner.ProcessEnv(), protocol.InvocationLocalAgent, "")
}

// quietLogs sends the default log and slog loggers nowhere. mcp-go's client
// logs through the default slog logger, which writes to stderr: serve never
// writes there, and the terminal session must not scribble on its screen.
func quietLogs() {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	log.SetOutput(io.Discard)
}

// pipeline wires the stages between in and out and runs them until the
// child must end, returning the exit code. serve runs it on the process's
// stdio; the terminal session runs it in-process over a writer.Pipe, with
// the same rules. It does not close in or out. invocation says which
// (protocol.InvocationLocalAgent or protocol.InvocationMissionControl): hooks
// read it, and every line of the diagnostic log carries it. approval is the
// approval mode Mission Control's /approval chose for its in-process
// pipeline (runner.Options.Approval); "" keeps the settings'.
//
// The one exit path: every end sets the wiring's cancellation cause
// (exit.go), exitCode maps it, and cleanup always follows, waiting a
// bounded time for every goroutine started here.
func pipeline(in io.Reader, out writer.Output, env runner.Env, invocation, approval string) int {
	p, err := newWiring(in, out, env, invocation, approval)
	if err != nil {
		return exitCode(fmt.Errorf("%w: %w", causeOutputBroken, err))
	}
	p.start()
	p.await()
	cause := context.Cause(p.ctx)
	code := exitCode(cause)
	p.cleanup(cause, code)
	return code
}

// wiring is one child's wired stages and the goroutines pipeline started.
type wiring struct {
	// ctx ends with the exit cause; stop sets it (the first cause wins).
	// Every stage runs under ctx: the writer, the dispatch server's work
	// and the workers' critical offers.
	ctx  context.Context
	stop context.CancelCauseFunc

	in     io.Reader
	log    *diaglog.Log
	events *backpressure.Queue[wire.Event]
	pool   *worker.Pool
	w      *writer.Writer
	srv    *dispatch.Server

	// group holds the writer, the stdin reader and the drain's wait for
	// the workers; cleanup waits for it, and for the pool's workers.
	group conc.WaitGroup
	// writerDone is closed when the writer's Run has returned (after it
	// set the cause, if it failed).
	writerDone chan struct{}
}

// newWiring wires the stages. Every edge is declared here, once, with its
// capacity and its policy:
//
//   - stdin → framing → validate → dispatch: no queue; inline on the stdin
//     goroutine, one partial frame of protocol.MaxInputFrameBytes.
//   - responses → pending output: the writer's queue of
//     protocol.PendingOutputFrames (32) frames, policy fatal: a frame that
//     finds it full ends the child (causeOverflow, exit 1). A pending frame
//     not written within protocol.OutputDeadline (2000 ms) of its enqueue
//     ends it too (causeOutputDeadline).
//   - workers → run-events → writer: below, protocol.WorkerEvents (32)
//     events, per-event policy worker.EventPolicy: message.delta Drop,
//     every other event Wait(protocol.CriticalEventWait); the writer takes
//     events only while fewer than writer.EventWatermark (16) frames are
//     pending. Deltas are paced on it (backpressure.Pacing): one that finds
//     it full waits a grace for room, then text coalesces.
func newWiring(in io.Reader, out writer.Output, env runner.Env, invocation, approval string) (*wiring, error) {
	ctx, stop := context.WithCancelCause(context.Background())
	now, newID := time.Now, uuid.NewString
	instanceID := newID()
	p := &wiring{ctx: ctx, stop: stop, in: in, writerDone: make(chan struct{})}
	levelSet := false
	p.log, levelSet = openLog(env, instanceID, invocation)
	p.log.Info("serve started", "instance_id", instanceID, "pid", os.Getpid(), "cwd", env.Cwd)

	p.events = backpressure.NewMixed("run-events", protocol.WorkerEvents, worker.EventPolicy, backpressure.System)

	w, err := writer.New(out, writer.Options{InstanceID: instanceID, Now: now, Logf: p.logf})
	if err != nil {
		stop(err)
		p.log.Close(context.Background()) // never opened: nothing to write
		return nil, err
	}
	p.w = w
	p.pool = worker.NewPool(worker.Options{Env: env, Runner: runner.Options{Invocation: invocation, Approval: approval}, NewID: newID, Now: now,
		Events: p.events, Output: ctx, Fail: p.fail, Log: p.log, LogLevelSet: levelSet, Logf: p.logf})
	p.srv = dispatch.NewServer(ctx, w, p.pool, newID)
	return p, nil
}

// openLog returns the child's diagnostic log in $MC_HOME/logs (nothing is
// created before initialize is admitted), at the level MC_LOG_LEVEL names
// (levelSet), else info until the settings say otherwise. Every line
// carries "invocation".
func openLog(env runner.Env, instanceID, invocation string) (l *diaglog.Log, levelSet bool) {
	dir, err := env.LogDir()
	if err != nil {
		return diaglog.Discard(), false
	}
	level := slog.LevelInfo
	if env.Getenv != nil {
		if v := env.Getenv("MC_LOG_LEVEL"); v != "" {
			level, levelSet = diaglog.ParseLevel(v)
		}
	}
	l = diaglog.New(dir, instanceID, level)
	l.Logger = l.Logger.With("invocation", invocation)
	logBuild(l, runtime.Version())
	return l, levelSet
}

// logf is the stages' Logf: details for people, in the diagnostic log.
func (p *wiring) logf(format string, args ...any) { p.log.Info(fmt.Sprintf(format, args...)) }

// fail ends the child with a worker's failure (exit 1).
func (p *wiring) fail(err error) { p.stop(asCause(err)) }

// start starts the writer and the stdin reader. Each turns its own panic
// into causePanic: a broken invariant exits 1, never with a trace on stderr.
func (p *wiring) start() {
	p.group.Go(func() {
		defer close(p.writerDone)
		defer p.recoverPanic("writer")
		// The writer tells dispatch when it queued a run's run.finished,
		// and the workers when it is done with a delta's text.
		queued := func(e *wire.Event) {
			p.srv.EventQueued(e)
			p.pool.EventTaken(e)
		}
		if err := p.w.Run(p.ctx, p.events.C(), queued); err != nil {
			p.stop(asCause(err))
		}
	})
	// The stdin reader parks in the runtime poller: cleanup wakes it with a
	// past read deadline, so it is waited for like the writer, under the
	// cleanup wait.
	p.group.Go(func() {
		defer p.recoverPanic("reader")
		p.readInput()
	})
}

func (p *wiring) recoverPanic(who string) {
	if r := recover(); r != nil {
		p.stop(fmt.Errorf("%w: %s: %v", causePanic, who, r))
	}
}

// readInput frames stdin and hands every line to the server inline, until
// EOF, frame_too_large or the exit.
func (p *wiring) readInput() {
	frames := framing.NewReader(p.in)
	for {
		line, code, err := frames.Next()
		switch {
		case err != nil:
			if p.ctx.Err() != nil {
				return // cleanup woke us: the child is exiting
			}
			// EOF, or a read error, which docs/protocol.md, Exit status, treats like EOF.
			p.srv.Step(dispatch.EOF{})
			return
		case code != "":
			p.srv.Step(dispatch.FrameError{Code: code})
			if code == protocol.CodeFrameTooLarge {
				// docs/protocol.md, Exit status: close without unbounded draining: read no more.
				return
			}
		default:
			p.srv.Line(line)
		}
	}
}

// await returns once the exit cause is set: by a failure anywhere, or by the
// end of the drain that follows a close.
func (p *wiring) await() {
	select {
	case c := <-p.srv.Closed():
		p.drain(c)
	case <-p.ctx.Done():
	}
}

// drain finishes after admission stopped: the workers (already cancelled)
// end and offer their terminal events, then the writer writes everything.
// docs/protocol.md, Exit status: EOF "drains output under a 2000 ms closing deadline; expiration
// before draining/turn completion exits 1, successful drain exits 0".
func (p *wiring) drain(c dispatch.Close) {
	closing := causeEOF
	if c.Shutdown {
		closing = causeShutdown
	}
	deadline := time.NewTimer(protocol.ClosingDrain)
	defer deadline.Stop()
	workersDone := make(chan struct{})
	p.group.Go(func() { // ends when the cancelled workers return
		defer close(workersDone)
		p.pool.Wait()
	})
	select {
	case <-workersDone:
	case <-deadline.C:
		p.stop(causeDrainDeadline)
		return
	case <-p.ctx.Done():
		return
	}
	p.events.Close() // the workers, the only producers, have all returned
	select {
	case <-p.writerDone:
		// Drained, unless the writer failed (it set its cause first, and
		// the first cause wins).
		p.stop(closing)
	case <-deadline.C:
		p.stop(causeDrainDeadline)
	case <-p.ctx.Done():
	}
}

// cleanup runs once the cause is set. It tears the runtime down (MCP
// servers first, session leases last) and waits for every goroutine serve
// started, all within the one cleanup wait of 2000 ms; what is still
// running then is left to process exit. docs/protocol.md, Exit status: "The child waits at most
// 2000 ms for cleanup, then detaches slow teardown for process exit."
//
// Last, the exit cause is logged and the log synced, within what is left of
// the cleanup wait (at least logCloseFloor).
func (p *wiring) cleanup(cause error, code int) {
	ctx, cancel := context.WithTimeout(context.Background(), protocol.CleanupWait)
	defer cancel()
	defer p.logExit(ctx, cause, code)
	// Wake the reader; an input without read deadlines (or a descriptor
	// the poller cannot time out) leaves it to process exit.
	if in, ok := p.in.(interface{ SetReadDeadline(time.Time) error }); ok {
		_ = in.SetReadDeadline(aLongTimeAgo)
	}
	done := make(chan struct{})
	go func() { // detached after the cleanup wait; process exit ends it
		defer close(done)
		p.pool.Teardown(ctx)
		p.pool.Wait()
		p.group.Wait()
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// logCloseFloor is the least time the log gets to write and sync its last
// lines when the cleanup wait is already spent.
const logCloseFloor = 100 * time.Millisecond

// logExit writes the final line, the exit cause and its figures, and closes
// the log: written and synced before the process exits.
func (p *wiring) logExit(cleanup context.Context, cause error, code int) {
	pr := p.w.Progress()
	p.log.Info("exit", "cause", string(causeOf(cause)), "error", cause, "exit_code", code,
		"pending_frames", pr.Pending, "oldest_frame_age_ms", pr.OldestAge.Milliseconds(),
		"last_seq_written", pr.LastSeqWritten, "bytes_written", pr.Bytes, "log_lines_lost", p.log.Lost())
	deadline, _ := cleanup.Deadline()
	if floor := time.Now().Add(logCloseFloor); deadline.Before(floor) {
		deadline = floor
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	p.log.Close(ctx)
}
