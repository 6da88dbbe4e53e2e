package agent

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/magi-code/magi-code/chunk"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner/tools"
)

// OutputSink is a Sink that also shows a primary tool call's output live,
// while the command runs (tools that stream: the shell). It is optional:
// a Sink without it sees the output only as ToolFinished's result.
//
// ToolOutput gets the output redacted by one redact.Stream for the whole
// command (what it holds back until more output or the end could still
// become a secret), in order, in parts of at most LiveOutputChunkBytes cut
// at UTF-8 boundaries, at most LiveOutputBytes in all; past that one last
// part says where it was cut (LiveOutputCutMarker) and the rest is not
// shown. ToolExited then says how the command ended (tools.Output.Exited).
// Both are called from the tool's goroutine, between ToolRunning and
// ToolFinished of the same activity, never concurrently with each other;
// the run's goroutine is blocked in the tool meanwhile. An error stops
// the call's live output (its result is still reported at the end).
type OutputSink interface {
	ToolOutput(activityID, text string) error
	ToolExited(activityID string, code int, signal string)
}

// Bounds of a call's live output.
const (
	LiveOutputChunkBytes = 4000
	LiveOutputBytes      = tools.DefaultMaxOutput
)

// LiveOutputCutMarker is the last part of a live output cut at
// LiveOutputBytes.
const LiveOutputCutMarker = "\n[magi-code: the output shown here was cut at 64 KiB]\n"

// liveOutput is the tools.Output of one primary call: it redacts,
// chunks and bounds what the tool writes, for the sink.
type liveOutput struct {
	sink OutputSink
	id   string

	mu      sync.Mutex
	stream  redact.Stream
	buf     []byte
	shown   int  // safe bytes given to the sink
	stopped bool // cut, or the sink failed
	failed  bool // the sink failed: nothing more goes to it
	ended   bool // flushed
}

func (o *liveOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.stopped && !o.ended {
		o.buf = o.stream.PushTo(o.buf[:0], string(p))
		o.emit(o.buf)
	}
	return len(p), nil
}

// Exited flushes what the stream held back, then reports the end.
func (o *liveOutput) Exited(code int, signal string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flush()
	if !o.failed {
		o.sink.ToolExited(o.id, code, signal)
	}
}

// flush sends what the stream still holds, once.
func (o *liveOutput) flush() {
	if o.ended {
		return
	}
	o.ended = true
	if !o.stopped {
		o.emit([]byte(o.stream.Flush()))
	}
}

// emit gives safe text to the sink in parts, within the bound.
func (o *liveOutput) emit(safe []byte) {
	for len(safe) > 0 && !o.stopped {
		room := min(LiveOutputBytes-o.shown, LiveOutputChunkBytes)
		s := unsafe.String(unsafe.SliceData(safe), len(safe))
		n := 0
		if room > 0 {
			n = chunk.Next(s, room, 6*room)
		}
		if n == 0 {
			// The bound is reached (or only part of a rune fits).
			o.stopped = true
			o.failed = o.sink.ToolOutput(o.id, LiveOutputCutMarker) != nil
			return
		}
		if o.sink.ToolOutput(o.id, strings.Clone(s[:n])) != nil {
			o.stopped, o.failed = true, true
			return
		}
		o.shown += n
		safe = safe[n:]
	}
}
