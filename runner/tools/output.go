package tools

import (
	"context"
	"io"
)

// Output takes a running command's output as it comes, beside the result
// the model is given at the end: the shell writes its combined stdout and
// stderr to it from its reading goroutine, in order, then calls Exited
// once the command has ended and its output is drained. Write must not
// keep p; it may block (the command is then paced by the reader) and
// always reports all of p written. A tool call's context carries one
// only when the run's front door shows output live (WithOutput).
type Output interface {
	io.Writer
	// Exited reports how the command ended: its exit code, or -1 when it
	// did not exit by itself; signal is the name of the signal that ended
	// it ("killed"), "" when none did.
	Exited(code int, signal string)
}

type outputKey struct{}

// WithOutput returns ctx carrying out for the tool call run under it; a
// nil out hides any Output of an outer call (a call inside run_code or a
// subagent does not write into its caller's output).
func WithOutput(ctx context.Context, out Output) context.Context {
	return context.WithValue(ctx, outputKey{}, out)
}

// OutputFrom is the Output ctx carries, or nil.
func OutputFrom(ctx context.Context) Output {
	out, _ := ctx.Value(outputKey{}).(Output)
	return out
}

// Streaming is a tool that writes its output to the context's Output
// while it runs (the shell).
type Streaming interface {
	Tool
	StreamsOutput()
}
