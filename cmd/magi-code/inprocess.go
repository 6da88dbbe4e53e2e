package main

import (
	"io"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/writer"
)

// connect runs the pipeline in this process and returns a client of it:
// the terminal session drives the same framing, validation, dispatch,
// workers and writer that `serve --stdio` runs, through the same protocol,
// without a child process (which Windows could not give us) and without a
// copy of every frame through the kernel. Requests go through an io.Pipe
// (framing reads them as it would stdin); the writer writes a writer.Pipe,
// bounded and with deadlines like a real pipe, so every output rule holds.
//
// end closes the session's input (EOF: the pipeline drains and ends, as
// serve does on EOF) and returns the pipeline's exit code.
func connect(opts client.Options, approval string) (c *client.Client, end func() int) {
	quietLogs()
	requests, input := io.Pipe()
	output := writer.NewPipe()
	code := make(chan int, 1)
	go func() { // owned by end, which waits for it
		defer output.Close() // EOF for the client's reader
		code <- pipeline(requests, output, runner.ProcessEnv(), protocol.InvocationMissionControl, approval)
	}()
	c = client.Connect(output, input, opts)
	return c, func() int {
		c.Kill()
		exit := <-code
		// The pipeline's input goroutine ends on the EOF Kill sent; this
		// also unblocks it when the pipeline ended first (a transport
		// failure) with a request half-written.
		requests.CloseWithError(io.EOF)
		return exit
	}
}
