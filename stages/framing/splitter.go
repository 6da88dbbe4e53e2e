package framing

import (
	"bytes"

	"github.com/magi-code/magi-code/protocol"
)

// Splitter is the pure core of framing: it is fed byte slices and finds the
// lines in them, holding at most one partial frame of
// protocol.MaxInputFrameBytes bytes between calls. The zero value is ready to
// use. A Splitter is not safe for concurrent use.
type Splitter struct {
	// Max is the frame bound in bytes, LF excluded; zero means
	// protocol.MaxInputFrameBytes (the local-agent protocol's 64 KiB). The
	// ACP front door sets its own, larger bound (see package acp).
	Max int
	// partial holds the bytes of the current frame seen in earlier Split
	// calls. Its capacity is allocated once, on the first partial frame.
	partial []byte
	// tooLarge is set once a frame exceeded the limit; the Splitter is
	// finished from then on.
	tooLarge bool
	// Skip makes an over-long frame skippable instead of final: Split
	// reports it once, with its first Max bytes as the line, then
	// discards the rest of it up to its LF and frames on (the ACP front
	// door: an over-long line never closes the connection).
	Skip bool
	// skipping is set while the rest of a reported over-long frame is
	// discarded.
	skipping bool
}

// Split scans p for the end of the current frame. It returns how many bytes
// of p it consumed and, when a frame ended within them, found == true and
// either the line (LF removed, never empty) or a code:
//   - protocol.CodeInvalidFrame for an empty line (zero bytes before LF);
//   - protocol.CodeFrameTooLarge when byte 65,537 of a frame arrives without an
//     LF before it. The Splitter is then finished: every later call returns
//     (0, nil, protocol.CodeFrameTooLarge, true) without consuming anything.
//     With Skip, line is instead the frame's first Max bytes, and later
//     calls discard the frame's rest up to its LF and go on framing.
//
// When found is false, all of p was consumed into the partial frame. The
// line may alias p or the Splitter's buffer: it is valid until the next call
// to Split or End and until p is modified. Split never allocates, except for
// the one partial-frame buffer the first time a frame spans two calls.
func (s *Splitter) Split(p []byte) (n int, line []byte, code protocol.Code, found bool) {
	if s.tooLarge {
		return 0, nil, protocol.CodeFrameTooLarge, true
	}
	if s.skipping {
		s.partial = s.partial[:0]
		lf := bytes.IndexByte(p, '\n')
		if lf < 0 {
			return len(p), nil, "", false
		}
		s.skipping = false
		n, line, code, found := s.Split(p[lf+1:])
		return lf + 1 + n, line, code, found
	}
	if len(p) == 0 {
		return 0, nil, "", false
	}
	room := s.max() - len(s.partial)
	// Only the first room+1 bytes can hold this frame's LF: byte room+1 is
	// either that LF or the 65,537th byte of the frame.
	window := p[:min(len(p), room+1)]
	lf := bytes.IndexByte(window, '\n')
	if lf < 0 {
		if len(window) > room && s.Skip {
			// Reported once with the frame's first Max bytes (where a
			// request's id usually is); the rest is discarded.
			s.skipping = true
			s.partial = append(s.partial, window[:room]...)
			return len(window), s.partial, protocol.CodeFrameTooLarge, true
		}
		if len(window) > room {
			// docs/protocol.md, Frames: oversize is detected on byte 65,537; send
			// frame_too_large, then close without unbounded draining.
			s.tooLarge = true
			s.partial = s.partial[:0]
			return len(window), nil, protocol.CodeFrameTooLarge, true
		}
		if s.partial == nil {
			// One allocation of the whole bound when it is the protocol's
			// 64 KiB; a larger bound grows as a frame needs it.
			s.partial = make([]byte, 0, min(s.max(), protocol.MaxInputFrameBytes))
		}
		s.partial = append(s.partial, p...)
		return len(p), nil, "", false
	}
	if len(s.partial) == 0 {
		line = p[:lf]
	} else {
		s.partial = append(s.partial, p[:lf]...)
		line = s.partial
		// The next frame starts empty; line keeps the bytes until the
		// next append overwrites them.
		s.partial = s.partial[:0]
	}
	if len(line) == 0 {
		// docs/protocol.md, Frames: "Empty lines are invalid."
		return lf + 1, nil, protocol.CodeInvalidFrame, true
	}
	return lf + 1, line, "", true
}

// max is the frame bound in force.
func (s *Splitter) max() int {
	if s.Max > 0 {
		return s.Max
	}
	return protocol.MaxInputFrameBytes
}

// End reports what is left at EOF: protocol.CodeIncompleteFrame when a partial
// frame is buffered (it is discarded, never returned as a line), "" when the
// input ended on a frame boundary, or protocol.CodeFrameTooLarge if the Splitter
// had already finished on an oversize frame.
func (s *Splitter) End() protocol.Code {
	if s.skipping { // the over-long frame was reported already
		s.partial, s.skipping = s.partial[:0], false
		return ""
	}
	if s.tooLarge {
		return protocol.CodeFrameTooLarge
	}
	if len(s.partial) > 0 {
		// docs/protocol.md, Frames: "EOF without LF does not execute a partial request."
		s.partial = s.partial[:0]
		return protocol.CodeIncompleteFrame
	}
	return ""
}
