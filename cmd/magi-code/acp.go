package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/google/uuid"
	"github.com/sourcegraph/conc"

	"github.com/magi-code/magi-code/acp"
	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/framing"
	"github.com/magi-code/magi-code/stages/wire"
	"github.com/magi-code/magi-code/stages/writer"
)

// acpMain is `magi-code acp`: the ACP front door on fd 0 and fd 1, with
// serve's discipline: the writer owns a private duplicate of fd 1 (fd 0/1
// point at /dev/null), nothing is written to stderr, and the exit causes
// and codes are serve's (exit.go).
func acpMain() int {
	in, out, err := writer.TakeStdio()
	if err != nil {
		return exitCode(fmt.Errorf("%w: %w", causeOutputBroken, err))
	}
	quietLogs()
	return acpPipeline(in, out, runner.ProcessEnv())
}

// acpPipeline runs the agent between in and out until EOF or a transport
// failure, and returns the exit code:
//
//	stdin ─► framing (acp.MaxInputFrameBytes, longer lines skipped) ─► acp.Agent.Line ─┬─ Respond ──► writer ─► stdout
//	                                       turns, replays, requests ─► ordered edge ─┘
//
// The ordered edge is a queue of protocol.WorkerEvents frames whose every
// offer waits at most protocol.CriticalEventWait (ACP text is lossless:
// nothing is dropped); the writer takes from it while fewer than
// writer.EventWatermark frames are pending. A client that stops reading
// meets the writer's output deadline: exit 1, memory bounded by the
// pending frames, the queue and the turns' bounded state.
func acpPipeline(in io.Reader, out writer.Output, env runner.Env) int {
	ctx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	instanceID := uuid.NewString()
	log, _ := openLog(env, instanceID, protocol.InvocationACP)
	log.Info("acp started", "instance_id", instanceID, "pid", os.Getpid(), "cwd", env.Cwd)
	logf := func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) }

	w, err := writer.New(out, writer.Options{InstanceID: instanceID, Logf: logf})
	if err != nil {
		log.Close(context.Background())
		return exitCode(fmt.Errorf("%w: %w", causeOutputBroken, err))
	}
	edge := backpressure.New[wire.Event]("acp-ordered", protocol.WorkerEvents, backpressure.Wait(protocol.CriticalEventWait), backpressure.System)
	o := &acpOutput{ctx: ctx, w: w, edge: edge}
	version := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		version = info.Main.Version
	}
	agent := acp.New(acp.Options{Env: env, Runner: runner.Options{Invocation: protocol.InvocationACP},
		NewID: uuid.NewString, Out: o, Version: version, Log: log, Logf: logf})

	var group conc.WaitGroup
	writerDone := make(chan struct{})
	group.Go(func() {
		defer close(writerDone)
		defer recoverCause(stop, "writer")
		if err := w.Run(ctx, edge.C(), nil); err != nil {
			stop(asCause(err))
		}
	})
	eof := make(chan struct{})
	group.Go(func() {
		defer close(eof)
		defer recoverCause(stop, "reader")
		frames := framing.NewReaderSkipping(in, acp.MaxInputFrameBytes)
		for ctx.Err() == nil {
			line, code, err := frames.Next()
			switch {
			case err != nil:
				return
			case code == protocol.CodeFrameTooLarge:
				agent.TooLarge(line) // its first bytes; the rest is skipped
			case code != "":
				// An empty line, or a partial line at EOF: not JSON.
				if code != protocol.CodeIncompleteFrame {
					agent.Line(nil)
				}
			default:
				agent.Line(line)
			}
		}
	})

	select {
	case <-eof:
	case <-ctx.Done():
	}
	// EOF: cancel every turn, release every lease, stop the MCP servers,
	// then let the writer drain what is queued, all within the closing
	// drain. After a failure the same cleanup runs, but nothing drains.
	closing, cancel := context.WithTimeout(context.Background(), protocol.ClosingDrain)
	defer cancel()
	switch {
	case !agent.Close(closing):
		stop(causeDrainDeadline)
	case ctx.Err() == nil:
		edge.Close() // the agent, its only producer, has stopped
		select {
		case <-writerDone:
			stop(causeEOF) // the first cause wins: a writer failure stays
		case <-closing.Done():
			stop(causeDrainDeadline)
		case <-ctx.Done():
		}
	}
	cause := context.Cause(ctx)
	code := exitCode(cause)
	if in, ok := in.(interface{ SetReadDeadline(time.Time) error }); ok {
		_ = in.SetReadDeadline(aLongTimeAgo)
	}
	waited := make(chan struct{})
	go func() { group.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(protocol.CleanupWait):
	}
	log.Info("exit", "cause", string(causeOf(cause)), "exit_code", code)
	lc, lcancel := context.WithTimeout(context.Background(), logCloseFloor)
	log.Close(lc)
	lcancel()
	return code
}

func recoverCause(stop context.CancelCauseFunc, who string) {
	if r := recover(); r != nil {
		stop(fmt.Errorf("%w: %s: %v", causePanic, who, r))
	}
}

// acpOutput is the agent's Output: Respond through the writer at once,
// Send through the ordered edge (its frames ride as raw events).
type acpOutput struct {
	ctx  context.Context
	w    *writer.Writer
	edge *backpressure.Queue[wire.Event]
}

func (o *acpOutput) Respond(frame []byte) error { return o.w.Frame(frame) }

func (o *acpOutput) Send(frame []byte) error {
	return o.edge.Offer(o.ctx, wire.Event{Raw: frame})
}
