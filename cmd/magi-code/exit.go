package main

import (
	"errors"
	"fmt"

	"github.com/magi-code/magi-code/stages/worker"
	"github.com/magi-code/magi-code/stages/writer"
)

// Exit codes of serve.
const (
	exitOK      = 0
	exitFailure = 1
)

// cause is why serve ends. serve owns one cancellation cause
// (context.WithCancelCause): whoever sees the end first sets it, the first
// one wins, and exitCode maps it to the exit code. The context's cause is a
// cause, or an error wrapping one (with the underlying error, for logs).
type cause string

const (
	// causeShutdown: an accepted shutdown, then a complete drain.
	causeShutdown cause = "shutdown"
	// causeEOF: stdin ended, or a closing error (protocol_mismatch,
	// request_limit, frame_too_large) closed the connection, which means
	// what EOF means; then a complete drain.
	causeEOF cause = "eof"
	// causeOverflow: a frame was enqueued while 32 were pending.
	causeOverflow cause = "overflow"
	// causeOutputDeadline: the oldest pending frame reached 2000 ms after
	// its enqueue.
	causeOutputDeadline cause = "output_deadline"
	// causeDrainDeadline: after EOF or shutdown, the workers and the output
	// did not drain within the 2000 ms closing deadline.
	causeDrainDeadline cause = "drain_deadline"
	// causeOutputBroken: a write to stdout failed (EPIPE or another error).
	causeOutputBroken cause = "output_broken"
	// causeEventLost: a run's run.finished found no room on the event edge
	// within 2000 ms (never a silent authoritative drop).
	causeEventLost cause = "run_finished_lost"
	// causePanic: a broken invariant in the reader, the writer or a worker.
	causePanic cause = "panic"
)

func (c cause) Error() string { return string(c) }

// exitCode is the one place that maps serve's exit cause to its exit code:
// 0 after a shutdown or EOF whose drain completed, 1 for everything else
// (docs/protocol.md, Exit status: "Runtime transport failure exits 1 without stderr diagnostics").
func exitCode(err error) int {
	switch causeOf(err) {
	case causeShutdown, causeEOF:
		return exitOK
	}
	return exitFailure
}

// causeOf returns the cause err carries; causePanic for anything else,
// since every end of serve is meant to carry one.
func causeOf(err error) cause {
	var c cause
	if errors.As(err, &c) {
		return c
	}
	return causePanic
}

// asCause wraps a stage's fatal error with the cause it means, keeping the
// error itself for logs. An error that already carries a cause is returned
// as it is.
func asCause(err error) error {
	var c cause
	switch {
	case errors.As(err, &c):
		return err
	case errors.Is(err, writer.ErrOverflow):
		c = causeOverflow
	case errors.Is(err, writer.ErrOutputDeadline):
		c = causeOutputDeadline
	case errors.Is(err, writer.ErrOutputBroken):
		c = causeOutputBroken
	case errors.Is(err, worker.ErrRunFinishedLost):
		c = causeEventLost
	default: // worker.ErrWorkerPanic, or anything unforeseen
		c = causePanic
	}
	return fmt.Errorf("%w: %w", c, err)
}
