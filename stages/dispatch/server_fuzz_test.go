package dispatch

import (
	"bytes"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// readyServer returns a server with an admitted initialization and the
// session s1 attached, so that every method reaches its own rules.
func readyServer(t *testing.T) (*Server, *fakeWorkers) {
	t.Helper()
	s, _, w, _ := newTestServer()
	s.Line([]byte(line("i1", "initialize", `{"required_capabilities":[]}`)))
	w.mu.Lock()
	initDone := w.initFn
	w.mu.Unlock()
	fromGoroutine(func() { initDone(InitDone{Sel: fixtureSel}) })
	s.Line([]byte(line("c1", "session.create", `{}`)))
	w.mu.Lock()
	opDone := w.opFns["c1"]
	w.mu.Unlock()
	fromGoroutine(func() { opDone(OpDone{Result: []byte(createResult), Attached: "s1"}) })
	return s, w
}

// FuzzServerLines feeds arbitrary input lines to a ready server, as
// the stdin goroutine does. That goroutine is a bare `go` in serve.go
// (outside any recover): a panic anywhere under Server.Line would print a
// stack trace on stderr and exit 2, both forbidden during serve. (60 s
// of fuzzing found no panic.)
func FuzzServerLines(f *testing.F) {
	for _, seed := range []string{
		line("a", "status", `{}`),
		line("b", "turn.start", `{"session_id":"s1","prompt":"hi"}`),
		line("c", "turn.cancel", `{"session_id":"s1","run_id":"run-1"}`),
		line("d", "approval.answer", `{"session_id":"s1","run_id":"run-1","approval_id":"x","allow":true}`),
		line("e", "history.page", `{"session_id":"s1","revision":"r","cursor":null}`),
		line("f", "session.open", `{"session_id":"s1"}`),
		line("g", "initialize", `{"required_capabilities":["status"]}`),
		line("h", "shutdown", `{}`),
		`{"protocol":"magi-code.local-agent","version":1,"id":"r\u0031","method":"status","params":{}}`,
		`{"protocol":"magi-code.local-agent","version":1.0,"id":"r1","method":"status","params":{}}`,
		`{"protocol":"magi-code.local-agent","version":1,"id":"\ud800","method":"status","params":{}}`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		"\xff\xfe{}",
		`{"protocol":"magi-code.local-agent","version":1,"id":"r1","method":"status","params":{},"x":1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _ := readyServer(t)
		for l := range bytes.SplitSeq(data, []byte{'\n'}) {
			if len(l) == 0 {
				s.Step(FrameError{Code: protocol.CodeInvalidFrame})
				continue
			}
			s.Line(l)
		}
		s.Step(EOF{})
		s.cancelWork()
	})
}
