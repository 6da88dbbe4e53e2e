// Package framing turns the bytes of stdin into LF-terminated lines: the
// first stage of the pipeline and the only reader of stdin.
//
// Input is an io.Reader; output is one line at a time (LF removed) or a
// protocol code. The core is Splitter, a pure byte splitter that holds at most
// one partial frame. The shell is Reader, which reads in batches of at most
// protocol.ReadBatchBytes (4096) and hands each line to its caller. Both are
// synchronous: the integrator calls Reader.Next from the one goroutine that
// owns stdin and handles each line inline, so this package starts no
// goroutines and owns no channels.
//
// Rules of docs/protocol.md (Frames) enforced here:
//   - "UTF-8 JSON objects, one per LF-terminated line." A line is the bytes
//     before LF; a CR before LF stays in the line (it is JSON whitespace) and
//     counts toward the limit.
//   - "Input frame: 65,536 bytes excluding LF." A line of 65,536 bytes is
//     accepted. "Oversize detection happens on byte 65,537, emits
//     frame_too_large, then closes without unbounded draining": once a frame
//     is too large the Splitter and Reader are finished and the Reader never
//     reads again.
//   - "Empty lines are invalid": zero bytes before LF is invalid_frame. A
//     line holding only whitespace ("\r") is passed on; validation answers
//     invalid_frame for it.
//   - "EOF without LF does not execute a partial request" and "an
//     unterminated frame gets incomplete_frame": a partial frame at EOF is
//     reported as incomplete_frame and never returned as a line.
//   - "One partial input frame, one 4096-byte read batch ... are buffered."
//
// Framing knows bytes, LF, CR, 65,536 and EOF; it knows nothing of JSON.
package framing
