package framing

import (
	"io"

	"github.com/magi-code/magi-code/protocol"
)

// maxEmptyReads bounds consecutive (0, nil) reads before Next gives up with
// io.ErrNoProgress, as bufio does.
const maxEmptyReads = 100

// Reader frames LF-terminated lines from an io.Reader. It reads in batches of
// at most protocol.ReadBatchBytes bytes and holds at most one partial frame of
// protocol.MaxInputFrameBytes bytes (LF excluded). It is not safe for concurrent
// use: one goroutine, the one that owns stdin, calls Next.
type Reader struct {
	r     io.Reader
	split Splitter
	// batch[start:end] is read but not yet split.
	batch      [protocol.ReadBatchBytes]byte
	start, end int
	// err is the error returned with the last read; it is reported once
	// the bytes read with it have been split.
	err error
	// eofReported is set once Next has reported the end of input.
	eofReported bool
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r}
}

// NewReaderMax returns a Reader of r whose frames may hold up to max
// bytes (LF excluded) instead of protocol.MaxInputFrameBytes; a max of
// zero or less is that default.
func NewReaderMax(r io.Reader, max int) *Reader {
	return &Reader{r: r, split: Splitter{Max: max}}
}

// NewReaderSkipping is NewReaderMax whose over-long lines do not finish
// the Reader: Next reports one with protocol.CodeFrameTooLarge and its
// first max bytes as the line, skips the rest of it and goes on (see
// Splitter.Skip).
func NewReaderSkipping(r io.Reader, max int) *Reader {
	return &Reader{r: r, split: Splitter{Max: max, Skip: true}}
}

// Next returns the next line without its LF, or a code, or an error:
//   - a non-empty line, valid until the next call to Next;
//   - protocol.CodeInvalidFrame for an empty line (zero bytes before LF);
//   - protocol.CodeFrameTooLarge when byte 65,537 of a line arrives without an
//     LF before it. The Reader is then finished: it never reads again and
//     every later call returns protocol.CodeFrameTooLarge (a skipping
//     Reader returns the line's first bytes with the code and goes on);
//   - protocol.CodeIncompleteFrame at EOF when a partial frame was buffered (the
//     partial frame is never returned as a line); the next call returns
//     io.EOF;
//   - err == io.EOF at a clean end of input, or the underlying reader's
//     error (a partial frame is then discarded, and the same error is
//     returned by every later call).
//
// Bytes read together with an error are framed before the error is
// reported. Next blocks while the underlying Read blocks.
func (r *Reader) Next() (line []byte, code protocol.Code, err error) {
	empty := 0
	for {
		if r.start < r.end || r.split.tooLarge {
			n, line, code, found := r.split.Split(r.batch[r.start:r.end])
			r.start += n
			if found {
				return line, code, nil
			}
		}
		if r.err != nil {
			if r.err == io.EOF && !r.eofReported {
				r.eofReported = true
				if code := r.split.End(); code != "" {
					return nil, code, nil
				}
			}
			return nil, "", r.err
		}
		n, err := r.r.Read(r.batch[:])
		r.start, r.end, r.err = 0, n, err
		if n == 0 && err == nil {
			if empty++; empty >= maxEmptyReads {
				r.err = io.ErrNoProgress
			}
			continue
		}
		empty = 0
	}
}
