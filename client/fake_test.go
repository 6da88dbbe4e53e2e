package client

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// The fake child is this test binary run again with CLIENT_FAKE_CHILD set:
// a tiny scripted server that speaks just enough of the protocol, encoding
// its frames with stages/wire. Methods:
//   - turn.start: result, then input.persisted, two deltas, a reconcile and
//     run.finished.
//   - hold: the response waits until the next request has been answered.
//   - dup: two responses with the request's ID (a result, then duplicate_id).
//   - null: a response with "id":null.
//   - flood: params.n deltas and run.finished, as fast as the pipe allows.
//   - raw: writes params.frames verbatim (the test controls seq).
//   - env: answers with the cwd, args and MC_HOME it was started with.
//   - stderr: writes params.text to stderr.
//   - exit: exits with params.code at once.
//   - shutdown: answers {"state":"stopping"} and exits 0.
//
// Any other method gets unsupported_method. EOF on stdin exits 0.

const fakeInstance = "5f2b1c8e-6d7a-4b0e-9c3d-2a1f0e9d8c7b"

type fake struct {
	out  *bufio.Writer
	seq  uint64
	held *wire.Response
}

func (f *fake) respond(r *wire.Response) {
	f.seq++
	_, _ = f.out.Write(wire.AppendResponse(nil, fakeInstance, f.seq, r))
}

func (f *fake) event(e *wire.Event) {
	f.seq++
	_, _ = f.out.Write(wire.AppendEvent(nil, fakeInstance, f.seq, e))
}

func result(id string, v any) *wire.Response {
	b, _ := json.Marshal(v)
	return &wire.Response{ID: id, Result: b}
}

func fakeChild() int {
	f := &fake{out: bufio.NewWriter(os.Stdout)}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<17), 1<<17)
	for in.Scan() {
		var req struct {
			ID     string
			Method string
			Params map[string]json.RawMessage
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			f.respond(&wire.Response{NullID: true, Error: protocol.CodeInvalidRequest})
			_ = f.out.Flush()
			continue
		}
		held := f.held
		f.held = nil
		if code := f.handle(req.ID, req.Method, req.Params); code >= 0 {
			_ = f.out.Flush()
			return code
		}
		if held != nil {
			f.respond(held)
		}
		_ = f.out.Flush()
	}
	return 0
}

// handle answers one request; a result of 0 or more exits with that code.
func (f *fake) handle(id, method string, params map[string]json.RawMessage) int {
	run := wire.Event{SessionID: "s1", RunID: "run-1"}
	switch method {
	case "turn.start":
		f.respond(result(id, map[string]any{"run_id": "run-1", "accepted": true}))
		for _, e := range []wire.Event{
			{Name: protocol.EventInputPersisted, MessageID: "u1", Revision: "v1"},
			{Name: protocol.EventMessageDelta, MessageID: "m1", Part: 0, Text: "Hel"},
			{Name: protocol.EventMessageDelta, MessageID: "m1", Part: 1, Text: "lo"},
			{Name: protocol.EventMessageReconcile, MessageID: "m1", Part: 0, Text: "Hello", LastPart: true},
			{Name: protocol.EventRunFinished, Outcome: "completed", Persistence: "durable", Revision: "v2", HasRevision: true},
		} {
			e.SessionID, e.RunID = run.SessionID, run.RunID
			f.event(&e)
		}
	case "hold":
		f.held = result(id, map[string]any{"held": true})
	case "dup":
		f.respond(result(id, map[string]any{}))
		f.respond(&wire.Response{ID: id, Error: protocol.CodeDuplicateID})
	case "null":
		f.respond(&wire.Response{NullID: true, Error: protocol.CodeInvalidRequest})
	case "flood":
		var n int
		_ = json.Unmarshal(params["n"], &n)
		f.respond(result(id, map[string]any{"run_id": "run-1", "accepted": true}))
		for i := range n {
			e := run
			e.Name, e.MessageID, e.Part, e.Text = protocol.EventMessageDelta, "m1", i, "x"
			f.event(&e)
		}
		e := run
		e.Name, e.Outcome, e.Persistence = protocol.EventRunFinished, "completed", "durable"
		f.event(&e)
	case "raw":
		var frames []string
		_ = json.Unmarshal(params["frames"], &frames)
		for _, fr := range frames {
			_, _ = f.out.WriteString(fr)
		}
	case "env":
		wd, _ := os.Getwd()
		f.respond(result(id, map[string]any{"cwd": wd, "args": strings.Join(os.Args[1:], " "), "mc_home": os.Getenv("MC_HOME")}))
	case "stderr":
		var text string
		_ = json.Unmarshal(params["text"], &text)
		fmt.Fprint(os.Stderr, text)
		f.respond(result(id, map[string]any{}))
	case "exit":
		var code int
		_ = json.Unmarshal(params["code"], &code)
		return code
	case "shutdown":
		f.respond(result(id, map[string]any{"state": "stopping"}))
		return 0
	default:
		f.respond(&wire.Response{ID: id, Error: protocol.CodeUnsupportedMethod})
	}
	return -1
}
