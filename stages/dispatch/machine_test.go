package dispatch

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/validate"
	"github.com/magi-code/magi-code/stages/wire"
)

// step is one event and the effects it must produce, rendered by render.
// An in of type string is a request line: it goes through validate.Parse
// exactly as Server.Line does.
type step struct {
	in   any
	want []string
}

// line is a valid request envelope.
func line(id, method, params string) string {
	return `{"protocol":"magi-code.local-agent","version":1,"id":"` + id + `","method":"` + method + `","params":` + params + `}`
}

// counterIDs mints run IDs run-1, run-2, ...
func counterIDs() func() string {
	n := 0
	return func() string {
		n++
		return "run-" + strconv.Itoa(n)
	}
}

func toEvent(in any) Event {
	if s, ok := in.(string); ok {
		req, code := validate.Parse([]byte(s))
		return Request{Req: req, Code: code}
	}
	return in.(Event)
}

// render is a compact, exact text form of an effect, so that tables read
// as transcripts.
func render(e Effect) string {
	switch e := e.(type) {
	case Respond:
		id := e.Response.ID
		if e.Response.NullID {
			id = "null"
		}
		if e.Response.Error != "" {
			return "respond " + id + " error=" + string(e.Response.Error)
		}
		return "respond " + id + " " + string(e.Response.Result)
	case StartInit:
		return fmt.Sprintf("start_init %s %v", e.ID, e.Caps)
	case StartOp:
		return fmt.Sprintf("start_op %s %s %s", e.ID, opName(e.Op), opParams(e))
	case StartTurn:
		return fmt.Sprintf("start_turn %s %s %+v", e.ID, e.RunID, e.Params)
	case CancelRun:
		return "cancel_run " + e.RunID
	case AnswerApproval:
		return fmt.Sprintf("answer %s %s %+v", e.ID, e.RunID, e.Params)
	case Close:
		if e.Shutdown {
			return "close shutdown"
		}
		return "close"
	}
	return fmt.Sprintf("unknown effect %T", e)
}

// opParams renders the params of op's kind as the transcripts show them.
func opParams(op StartOp) string {
	switch op.Op {
	case OpOpen:
		return fmt.Sprintf("%+v", op.Open)
	case OpPage:
		return fmt.Sprintf("%+v", op.Page)
	}
	return "<nil>"
}

func opName(op OpKind) string {
	switch op {
	case OpCreate:
		return "create"
	case OpOpen:
		return "open"
	case OpPage:
		return "page"
	}
	return "op" + strconv.Itoa(int(op))
}

// checkResponse checks what must hold for every response the machine
// produces: it encodes to one valid JSON frame within the output bound,
// carries exactly one of result and error, and an error is a known code.
func checkResponse(t testing.TB, r wire.Response) {
	t.Helper()
	frame := wire.AppendResponse(nil, "00000000-0000-0000-0000-000000000000", 1, &r)
	if len(frame) > protocol.MaxOutputFrameBytes {
		t.Fatalf("response frame of %d bytes exceeds the output bound", len(frame))
	}
	if !json.Valid(frame) {
		t.Fatalf("response frame is not valid JSON: %q", frame)
	}
	if (r.Error == "") == (r.Result == nil) {
		t.Fatalf("response %+v must carry exactly one of result and error", r)
	}
	if r.NullID && r.Error == "" {
		t.Fatalf("response %+v with id=null carries a result", r)
	}
	if r.Error != "" && !r.Error.Known() {
		t.Fatalf("response carries unknown code %q", r.Error)
	}
	if !r.NullID && !validate.Name(r.ID) {
		t.Fatalf("response ID %q is outside the ID grammar", r.ID)
	}
}

// stepAll feeds steps to m and fails at the first step whose effects differ.
func stepAll(t *testing.T, m *Machine, steps []step) {
	t.Helper()
	for i, s := range steps {
		effects := m.Step(toEvent(s.in))
		got := make([]string, len(effects))
		for j, e := range effects {
			got[j] = render(e)
			if r, ok := e.(Respond); ok {
				checkResponse(t, r.Response)
			}
		}
		if !slices.Equal(got, s.want) && !(len(got) == 0 && len(s.want) == 0) {
			t.Fatalf("step %d: Step(%s)\n got %q\nwant %q", i, describe(s.in), got, s.want)
		}
	}
}

func describe(in any) string {
	if s, ok := in.(string); ok {
		if len(s) > 200 {
			return fmt.Sprintf("%q... (%d bytes)", s[:200], len(s))
		}
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%T%+v", in, in)
}

// seq concatenates step lists.
func seq(parts ...[]step) []step {
	var out []step
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func want(effects ...string) []string { return effects }

// Common selections and results.
var (
	fixtureSel = Selection{Provider: "fixture", Model: "fixture-model", ContextID: "ctx"}

	statusStarting = `{"state":"starting","readiness":"initializing","provider":null,"model":null,"context_id":null,"session_id":null,"run_id":null}`
	statusIdle     = `{"state":"idle","readiness":"ready","provider":"fixture","model":"fixture-model","context_id":"ctx","session_id":null,"run_id":null}`
	statusAttached = `{"state":"idle","readiness":"ready","provider":"fixture","model":"fixture-model","context_id":"ctx","session_id":"s1","run_id":null}`
	statusRunning  = `{"state":"running","readiness":"ready","provider":"fixture","model":"fixture-model","context_id":"ctx","session_id":"s1","run_id":"run-1"}`

	createResult = `{"session_id":"s1","durable":false,"revision":"v1","notices":[]}`
)

// initResult is the initialize result with the given status object.
func initResult(status string) string {
	return `{"capabilities":["initialize","status","shutdown","session.create","session.open","history.page","turn.start","turn.cancel","approval.answer"],` +
		`"limits":{"frame_bytes":65536,"json_depth":32,"id_bytes":64,"prompt_bytes":16384,"history_page_bytes":32768,"history_page_entries":100,"content_chunk_bytes":16384,"pending_responses":32,"requests_per_child":4096,"output_deadline_ms":2000},` +
		`"status":` + status + `}`
}

// Prefixes: each carries its own expectations, so it is checked too.
var (
	starting = []step{
		{line("i1", "initialize", `{"required_capabilities":["status","shutdown"]}`), want("start_init i1 [status shutdown]")},
	}
	ready = seq(starting, []step{
		{InitDone{Sel: fixtureSel}, want("respond i1 " + initResult(statusIdle))},
	})
	attached = seq(ready, []step{
		{line("c1", "session.create", `{}`), want("start_op c1 create <nil>")},
		{OpDone{ID: "c1", Result: []byte(createResult), Attached: "s1"}, want("respond c1 " + createResult)},
	})
	running = seq(attached, []step{
		{line("t1", "turn.start", `{"session_id":"s1","prompt":"hi"}`), want(
			`respond t1 {"run_id":"run-1","accepted":true}`,
			"start_turn t1 run-1 {SessionID:s1 Prompt:hi}")},
	})
	failed = seq(starting, []step{
		{InitDone{Code: protocol.CodeProviderUnavailable, Sel: Selection{ContextID: "ctx"}}, want("respond i1 error=provider_unavailable")},
	})
)

func strRepeat(s string, n int) string { return strings.Repeat(s, n) }

func TestLifecycle(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"status before initialize", []step{
			{line("a", "status", `{}`), want("respond a error=not_initialized")},
		}},
		{"status while starting", seq(starting, []step{
			{line("a", "status", `{}`), want("respond a " + statusStarting)},
		})},
		{"status overtakes pending initialize, then ready", seq(starting, []step{
			{line("a", "status", `{}`), want("respond a " + statusStarting)},
			{InitDone{Sel: fixtureSel}, want("respond i1 " + initResult(statusIdle))},
			{line("b", "status", `{}`), want("respond b " + statusIdle)},
		})},
		{"unknown capability, then a corrected retry", []step{
			{line("i1", "initialize", `{"required_capabilities":["status","telepathy"]}`), want("respond i1 error=unsupported_capability")},
			{line("a", "status", `{}`), want("respond a error=not_initialized")},
			{line("i2", "initialize", `{"required_capabilities":["status"]}`), want("start_init i2 [status]")},
		}},
		{"empty capability list", []step{
			{line("i1", "initialize", `{"required_capabilities":[]}`), want("start_init i1 []")},
		}},
		{"16 capabilities accepted", []step{
			{line("i1", "initialize", `{"required_capabilities":[`+caps(16)+`]}`), want("start_init i1 " + capsList(16))},
		}},
		{"17 capabilities are invalid_params, then retry", []step{
			{line("i1", "initialize", `{"required_capabilities":[`+caps(17)+`]}`), want("respond i1 error=invalid_params")},
			{line("i2", "initialize", `{"required_capabilities":["status"]}`), want("start_init i2 [status]")},
		}},
		{"capability outside grammar is invalid_params", []step{
			{line("i1", "initialize", `{"required_capabilities":["sta tus"]}`), want("respond i1 error=invalid_params")},
			{line("i2", "initialize", `{"required_capabilities":[""]}`), want("respond i2 error=invalid_params")},
			{line("i3", "initialize", `{"required_capabilities":["`+strRepeat("a", 65)+`"]}`), want("respond i3 error=invalid_params")},
			{line("i4", "initialize", `{"required_capabilities":["stat\u00fcs"]}`), want("respond i4 error=invalid_params")},
			{line("i5", "initialize", `{"required_capabilities":[1]}`), want("respond i5 error=invalid_params")},
			{line("i6", "initialize", `{"required_capabilities":"status"}`), want("respond i6 error=invalid_params")},
			{line("i7", "initialize", `{}`), want("respond i7 error=invalid_params")},
			{line("i8", "initialize", `{"required_capabilities":[],"x":1}`), want("respond i8 error=invalid_params")},
			{line("i9", "initialize", `{"required_capabilities":null}`), want("respond i9 error=invalid_params")},
		}},
		{"64-byte capability in grammar but unknown", []step{
			{line("i1", "initialize", `{"required_capabilities":["`+strRepeat("a", 64)+`"]}`), want("respond i1 error=unsupported_capability")},
		}},
		{"the optional usage capability is advertised to the client that required it", []step{
			{line("i1", "initialize", `{"required_capabilities":["status","usage"]}`), want("start_init i1 [status usage]")},
			{InitDone{Sel: fixtureSel}, want("respond i1 " + strings.Replace(initResult(statusIdle), `"approval.answer"]`, `"approval.answer","usage"]`, 1))},
		}},
		{"both optional capabilities are advertised in protocol order, whatever order they were named in", []step{
			{line("i1", "initialize", `{"required_capabilities":["activity.output","usage"]}`), want("start_init i1 [activity.output usage]")},
			{InitDone{Sel: fixtureSel}, want("respond i1 " + strings.Replace(initResult(statusIdle), `"approval.answer"]`, `"approval.answer","usage","activity.output"]`, 1))},
		}},
		{"usage is not advertised unless required", seq(ready, []step{
			{line("a", "status", `{}`), want("respond a " + statusIdle)},
		})},
		{"an optional capability named twice is advertised once", []step{
			{line("i1", "initialize", `{"required_capabilities":["usage","usage"]}`), want("start_init i1 [usage usage]")},
			{InitDone{Sel: fixtureSel}, want("respond i1 " + strings.Replace(initResult(statusIdle), `"approval.answer"]`, `"approval.answer","usage"]`, 1))},
		}},
		{"escaped capability name decodes first", []step{
			{line("i1", "initialize", `{"required_capabilities":["st\u0061tus"]}`), want("start_init i1 [status]")},
		}},
		{"second initialize while starting", seq(starting, []step{
			{line("i2", "initialize", `{"required_capabilities":[]}`), want("respond i2 error=already_initialized")},
		})},
		{"second initialize after ready", seq(ready, []step{
			{line("i2", "initialize", `{"required_capabilities":[]}`), want("respond i2 error=already_initialized")},
		})},
		{"second initialize after failure", seq(failed, []step{
			{line("i2", "initialize", `{"required_capabilities":[]}`), want("respond i2 error=already_initialized")},
		})},
		{"already_initialized comes before params", seq(ready, []step{
			{line("i2", "initialize", `[]`), want("respond i2 error=already_initialized")},
		})},
		{"failed init: status and session/turn ops answer the code", seq(failed, []step{
			{line("a", "status", `{}`), want(`respond a {"state":"failed","readiness":"provider_unavailable","provider":null,"model":null,"context_id":"ctx","session_id":null,"run_id":null}`)},
			{line("b", "session.create", `{}`), want("respond b error=provider_unavailable")},
			{line("c", "session.open", `{"session_id":"s1"}`), want("respond c error=provider_unavailable")},
			{line("d", "history.page", `{"session_id":"s1","revision":"v"}`), want("respond d error=provider_unavailable")},
			{line("e", "turn.start", `{"session_id":"s1","prompt":"hi"}`), want("respond e error=provider_unavailable")},
			{line("f", "turn.cancel", `{"session_id":"s1","run_id":"r"}`), want("respond f error=provider_unavailable")},
			{line("g", "approval.answer", `{"session_id":"s1","run_id":"r","approval_id":"p","allow":true}`), want("respond g error=provider_unavailable")},
			// The lifecycle verdict comes before params.
			{line("h", "session.create", `{"x":1}`), want("respond h error=provider_unavailable")},
		})},
		{"session and turn ops before and during startup are not_initialized", seq([]step{
			{line("a", "session.create", `{}`), want("respond a error=not_initialized")},
			{line("b", "turn.start", `{"session_id":"s1","prompt":"hi"}`), want("respond b error=not_initialized")},
		}, starting, []step{
			{line("c", "session.open", `{"session_id":"s1"}`), want("respond c error=not_initialized")},
			{line("d", "history.page", `{"session_id":"s1","revision":"v"}`), want("respond d error=not_initialized")},
			{line("e", "turn.cancel", `{"session_id":"s1","run_id":"r"}`), want("respond e error=not_initialized")},
			{line("f", "approval.answer", `{"session_id":"s1","run_id":"r","approval_id":"p","allow":false}`), want("respond f error=not_initialized")},
		})},
		{"shutdown before initialize", []step{
			{line("x", "shutdown", `{}`), want(`respond x {"state":"stopping"}`, "close shutdown")},
			{line("y", "status", `{}`), nil},
			{line("x", "status", `{}`), nil},
			{EOF{}, nil},
			{FrameError{Code: protocol.CodeFrameTooLarge}, nil},
		}},
		{"shutdown with params is invalid_params and admits nothing", []step{
			{line("x", "shutdown", `{"now":true}`), want("respond x error=invalid_params")},
			{line("y", "shutdown", `null`), want("respond y error=invalid_params")},
			{line("z", "shutdown", ` { } `), want(`respond z {"state":"stopping"}`, "close shutdown")},
		}},
		{"shutdown while starting: pending initialize is startup_cancelled", seq(starting, []step{
			{line("x", "shutdown", `{}`), want(`respond x {"state":"stopping"}`, "close shutdown")},
			{InitDone{Code: protocol.CodeStartupCancelled}, want("respond i1 error=startup_cancelled")},
		})},
		{"shutdown while starting: a late success is still startup_cancelled", seq(starting, []step{
			{line("x", "shutdown", `{}`), want(`respond x {"state":"stopping"}`, "close shutdown")},
			{InitDone{Sel: fixtureSel}, want("respond i1 error=startup_cancelled")},
		})},
		{"shutdown during a session op: a late success is operation_cancelled", seq(ready, []step{
			{line("c1", "session.create", `{}`), want("start_op c1 create <nil>")},
			{line("x", "shutdown", `{}`), want(`respond x {"state":"stopping"}`, "close shutdown")},
			{OpDone{ID: "c1", Result: []byte(createResult), Attached: "s1"}, want("respond c1 error=operation_cancelled")},
		})},
		{"shutdown while starting: the error the cancel caused is startup_cancelled", seq(starting, []step{
			{line("x", "shutdown", `{}`), want(`respond x {"state":"stopping"}`, "close shutdown")},
			{InitDone{Code: protocol.CodeMCPUnavailable}, want("respond i1 error=startup_cancelled")},
		})},
		{"shutdown during a session op: the error the cancel caused is operation_cancelled", seq(ready, []step{
			{line("o1", "session.open", `{"session_id":"s9"}`), want("start_op o1 open {SessionID:s9}")},
			{line("x", "shutdown", `{}`), want(`respond x {"state":"stopping"}`, "close shutdown")},
			{OpDone{ID: "o1", Code: protocol.CodeSessionInvalid}, want("respond o1 error=operation_cancelled")},
		})},
		{"shutdown during a run", seq(running, []step{
			{line("x", "shutdown", `{}`), want(`respond x {"state":"stopping"}`, "close shutdown")},
			{RunWorkerDone{RunID: "run-1"}, nil},
			{RunDrained{RunID: "run-1"}, nil},
		})},
		{"EOF closes once", []step{
			{EOF{}, want("close")},
			{EOF{}, nil},
			{line("a", "shutdown", `{}`), nil},
		}},
		{"incomplete_frame then EOF", []step{
			{FrameError{Code: protocol.CodeIncompleteFrame}, want("respond null error=incomplete_frame")},
			{EOF{}, want("close")},
		}},
		{"frame_too_large responds and closes", []step{
			{FrameError{Code: protocol.CodeFrameTooLarge}, want("respond null error=frame_too_large", "close")},
			{line("a", "status", `{}`), nil},
		}},
		{"invalid_frame from framing does not close", []step{
			{FrameError{Code: protocol.CodeInvalidFrame}, want("respond null error=invalid_frame")},
			{line("a", "status", `{}`), want("respond a error=not_initialized")},
		}},
		{"protocol_mismatch responds and closes", []step{
			{`{"protocol":"magi-code.local-agent","version":2,"id":"a","method":"status","params":{}}`, want("respond a error=protocol_mismatch", "close")},
			{line("b", "status", `{}`), nil},
		}},
		{"protocol_mismatch without a readable ID", []step{
			{`{"protocol":"other","version":1,"id":7,"method":"status","params":{}}`, want("respond null error=protocol_mismatch", "close")},
		}},
		{"empty line and whitespace are invalid_frame with null id", []step{
			{"", want("respond null error=invalid_frame")},
			{" \t\r", want("respond null error=invalid_frame")},
			{`{"protocol":"magi-code.local-agent","version":1,"id":"a","method":"status","params":{}} {}`, want("respond null error=invalid_request")},
		}},
		{"initialize result after ready reports later status", seq(attached, []step{
			{line("a", "status", `{}`), want("respond a " + statusAttached)},
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stepAll(t, NewMachine(counterIDs()), tt.steps)
		})
	}
}

// caps returns n quoted grammar-valid capability names: the nine, then
// repeats.
func caps(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		if i > 0 {
			s += ","
		}
		s += strconv.Quote(protocol.Methods[i%len(protocol.Methods)])
	}
	return s
}

func capsList(n int) string {
	var names []string
	for i := 0; i < n; i++ {
		names = append(names, protocol.Methods[i%len(protocol.Methods)])
	}
	return render(StartInit{Caps: names})[len("start_init  "):]
}

func TestCheckOrder(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"unknown method while not initialized is unsupported_method", []step{
			{line("a", "session.delete", `{}`), want("respond a error=unsupported_method")},
			{line("b", "Status", `{}`), want("respond b error=unsupported_method")},
			{line("c", "initialize.x", `[]`), want("respond c error=unsupported_method")},
		}},
		{"unknown method with non-object params is unsupported_method", []step{
			{line("a", "nope", `"x"`), want("respond a error=unsupported_method")},
		}},
		{"status with bad params while not initialized is not_initialized", []step{
			{line("a", "status", `{"x":1}`), want("respond a error=not_initialized")},
		}},
		{"status with bad params once starting is invalid_params", seq(starting, []step{
			{line("a", "status", `{"x":1}`), want("respond a error=invalid_params")},
			{line("b", "status", `[]`), want("respond b error=invalid_params")},
			{line("c", "status", `null`), want("respond c error=invalid_params")},
		})},
		{"session op with bad params while not initialized is not_initialized", []step{
			{line("a", "session.open", `{"session_id":1}`), want("respond a error=not_initialized")},
			{line("b", "turn.start", `"x"`), want("respond b error=not_initialized")},
		}},
		{"params before the operation's own rules", seq(ready, []step{
			// No attachment: session_missing, but only with valid params.
			{line("a", "turn.start", `{"session_id":"s1","prompt":"  "}`), want("respond a error=invalid_params")},
			{line("b", "turn.start", `{"session_id":"s1","prompt":"hi"}`), want("respond b error=session_missing")},
		})},
		{"envelope errors keep the ID and retain it", []step{
			{`{"protocol":"magi-code.local-agent","version":1,"id":"a","method":"status","params":{},"extra":1}`, want("respond a error=invalid_request")},
			{line("a", "status", `{}`), want("respond a error=duplicate_id")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stepAll(t, NewMachine(counterIDs()), tt.steps)
		})
	}
}

// fillLines returns n requests with distinct IDs that are all answered
// with errors and change no state (apart from the ledger): rejected
// well-formed requests count toward the 4096.
func fillSteps(n int) []step {
	kinds := []struct{ method, params, code string }{
		{"status", `{}`, "not_initialized"},
		{"no.such.method", `{}`, "unsupported_method"},
		{"initialize", `{"required_capabilities":"x"}`, "invalid_params"},
		{"initialize", `{"required_capabilities":["nope"]}`, "unsupported_capability"},
		{"turn.start", `{}`, "not_initialized"},
	}
	out := make([]step, 0, n)
	for i := 0; i < n; i++ {
		k := kinds[i%len(kinds)]
		id := "f" + strconv.Itoa(i)
		if i%7 == 3 {
			// A frame rejected by validation whose ID was readable.
			out = append(out, step{`{"protocol":"magi-code.local-agent","version":1,"id":"` + id + `","method":"status"}`, want("respond " + id + " error=invalid_request")})
			continue
		}
		out = append(out, step{line(id, k.method, k.params), want("respond " + id + " error=" + k.code)})
	}
	return out
}

func TestIDLedger(t *testing.T) {
	full := fillSteps(protocol.RequestIDsPerChild)
	tests := []struct {
		name  string
		steps []step
	}{
		{"4096 distinct IDs, then request_limit and close", seq(fillSteps(protocol.RequestIDsPerChild-1), []step{
			{line("last", "status", `{}`), want("respond last error=not_initialized")},
			{line("next", "status", `{}`), want("respond next error=request_limit", "close")},
			{line("more", "status", `{}`), nil},
		})},
		{"after 4096 an old ID is still duplicate_id", seq(full, []step{
			{line("f0", "status", `{}`), want("respond f0 error=duplicate_id")},
			{line("f3", "status", `{}`), want("respond f3 error=duplicate_id")},
			{line("f4095", "initialize", `{"required_capabilities":[]}`), want("respond f4095 error=duplicate_id")},
			{line("new", "initialize", `{"required_capabilities":[]}`), want("respond new error=request_limit", "close")},
		})},
		{"id=null frames do not count", seq(fillSteps(protocol.RequestIDsPerChild-1), []step{
			{`{"protocol":"magi-code.local-agent","version":1,"id":"","method":"status","params":{}}`, want("respond null error=invalid_request")},
			{`{"protocol":"magi-code.local-agent","version":1,"id":null,"method":"status","params":{}}`, want("respond null error=invalid_request")},
			{`{"protocol":"magi-code.local-agent","version":1,"id":"a b","method":"status","params":{}}`, want("respond null error=invalid_request")},
			{`{"protocol":"magi-code.local-agent","version":1,"id":"a","id":"b","method":"status","params":{}}`, want("respond null error=invalid_request")},
			{`not json`, want("respond null error=invalid_request")},
			{"", want("respond null error=invalid_frame")},
			{FrameError{Code: protocol.CodeIncompleteFrame}, want("respond null error=incomplete_frame")},
			{line("last", "status", `{}`), want("respond last error=not_initialized")},
			{line("next", "status", `{}`), want("respond next error=request_limit", "close")},
		})},
		{"escaped ID is the decoded ID", []step{
			{line("r1", "status", `{}`), want("respond r1 error=not_initialized")},
			{`{"protocol":"magi-code.local-agent","version":1,"id":"r\u0031","method":"status","params":{}}`, want("respond r1 error=duplicate_id")},
		}},
		{"duplicate initialize never re-executes", []step{
			{line("i1", "initialize", `{"required_capabilities":[]}`), want("start_init i1 []")},
			{line("i1", "initialize", `{"required_capabilities":[]}`), want("respond i1 error=duplicate_id")},
			{InitDone{Sel: fixtureSel}, want("respond i1 " + initResult(statusIdle))},
			{line("i1", "initialize", `{"required_capabilities":[]}`), want("respond i1 error=duplicate_id")},
		}},
		{"rejected initialize ID cannot be retried", []step{
			{line("i1", "initialize", `{"required_capabilities":["nope"]}`), want("respond i1 error=unsupported_capability")},
			{line("i1", "initialize", `{"required_capabilities":[]}`), want("respond i1 error=duplicate_id")},
		}},
		{"duplicate turn.start and shutdown never re-execute", seq(running, []step{
			{RunWorkerDone{RunID: "run-1"}, nil},
			{RunDrained{RunID: "run-1"}, nil},
			{line("t1", "turn.start", `{"session_id":"s1","prompt":"hi"}`), want("respond t1 error=duplicate_id")},
			{line("c1", "session.create", `{}`), want("respond c1 error=duplicate_id")},
			{line("x", "shutdown", `{}`), want(`respond x {"state":"stopping"}`, "close shutdown")},
		})},
		{"duplicate of a pending op is answered at once and the op completes once", seq(ready, []step{
			{line("c1", "session.create", `{}`), want("start_op c1 create <nil>")},
			{line("c1", "session.create", `{}`), want("respond c1 error=duplicate_id")},
			{OpDone{ID: "c1", Result: []byte(createResult), Attached: "s1"}, want("respond c1 " + createResult)},
			{OpDone{ID: "c1", Result: []byte(createResult), Attached: "s1"}, nil},
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stepAll(t, NewMachine(counterIDs()), tt.steps)
		})
	}
}

func TestSessionsAndTurns(t *testing.T) {
	const (
		cancelOK = `{"cancellation_requested":true}`
		turn2    = `{"session_id":"s1","prompt":"again"}`
	)
	tests := []struct {
		name  string
		steps []step
	}{
		{"no attachment: session_missing", seq(ready, []step{
			{line("p", "history.page", `{"session_id":"s1","revision":"v1"}`), want("respond p error=session_missing")},
			{line("t", "turn.start", `{"session_id":"s1","prompt":"hi"}`), want("respond t error=session_missing")},
			{line("c", "turn.cancel", `{"session_id":"s1","run_id":"r"}`), want("respond c error=session_missing")},
			{line("a", "approval.answer", `{"session_id":"s1","run_id":"r","approval_id":"p","allow":true}`), want("respond a error=session_missing")},
		})},
		{"other session ID: stale_session", seq(attached, []step{
			{line("p", "history.page", `{"session_id":"s2","revision":"v1"}`), want("respond p error=stale_session")},
			{line("t", "turn.start", `{"session_id":"s2","prompt":"hi"}`), want("respond t error=stale_session")},
		})},
		{"history.page starts an op with decoded params", seq(attached, []step{
			{line("p", "history.page", `{"session_id":"s1","revision":"v1","cursor":null}`), want("start_op p page {SessionID:s1 Revision:v1 Cursor:}")},
			{OpDone{ID: "p", Result: []byte(`{"entries":[]}`)}, want(`respond p {"entries":[]}`)},
			{line("q", "history.page", `{"cursor":"c.2","revision":"v1","session_id":"s1"}`), want("start_op q page {SessionID:s1 Revision:v1 Cursor:c.2}")},
			{OpDone{ID: "q", Code: protocol.CodeStaleRevision}, want("respond q error=stale_revision")},
		})},
		{"session ops are busy while another op runs", seq(attached, []step{
			{line("o", "session.open", `{"session_id":"s2"}`), want("start_op o open {SessionID:s2}")},
			{line("a", "session.create", `{}`), want("respond a error=busy")},
			{line("b", "session.open", `{"session_id":"s3"}`), want("respond b error=busy")},
			{line("c", "history.page", `{"session_id":"s1","revision":"v1"}`), want("respond c error=busy")},
			{line("d", "turn.start", `{"session_id":"s1","prompt":"hi"}`), want("respond d error=busy")},
			// Status reports the last completed attachment during the op.
			{line("e", "status", `{}`), want("respond e " + statusAttached)},
			{OpDone{ID: "o", Code: protocol.CodeSessionMissing}, want("respond o error=session_missing")},
			// A failed open leaves the previous attachment intact.
			{line("f", "status", `{}`), want("respond f " + statusAttached)},
		})},
		{"open replaces the attachment and restores the selection", seq(attached, []step{
			{line("o", "session.open", `{"session_id":"s2"}`), want("start_op o open {SessionID:s2}")},
			{OpDone{ID: "o", Result: []byte(`{"session_id":"s2"}`), Attached: "s2", Sel: &Selection{Provider: "openai", Model: "m2", ContextID: "ctx"}}, want(`respond o {"session_id":"s2"}`)},
			{line("e", "status", `{}`), want(`respond e {"state":"idle","readiness":"ready","provider":"openai","model":"m2","context_id":"ctx","session_id":"s2","run_id":null}`)},
			{line("p", "history.page", `{"session_id":"s1","revision":"v1"}`), want("respond p error=stale_session")},
		})},
		{"session ops are busy during a run", seq(running, []step{
			{line("a", "session.create", `{}`), want("respond a error=busy")},
			{line("b", "session.open", `{"session_id":"s1"}`), want("respond b error=busy")},
			{line("c", "history.page", `{"session_id":"s1","revision":"v1"}`), want("respond c error=busy")},
			{line("d", "turn.start", turn2), want("respond d error=busy")},
		})},
		{"turn.cancel for the active run is idempotent", seq(running, []step{
			{line("k1", "turn.cancel", `{"session_id":"s1","run_id":"run-1"}`), want("respond k1 "+cancelOK, "cancel_run run-1")},
			{line("k2", "turn.cancel", `{"session_id":"s1","run_id":"run-1"}`), want("respond k2 "+cancelOK, "cancel_run run-1")},
			{line("k3", "turn.cancel", `{"session_id":"s1","run_id":"run-2"}`), want("respond k3 error=stale_run")},
			{RunWorkerDone{RunID: "run-1"}, nil},
			{line("k4", "turn.cancel", `{"session_id":"s1","run_id":"run-1"}`), want("respond k4 error=stale_run")},
		})},
		{"turn.cancel with no run is stale_run", seq(attached, []step{
			{line("k", "turn.cancel", `{"session_id":"s1","run_id":"run-1"}`), want("respond k error=stale_run")},
		})},
		{"approval.answer goes to the active run", seq(running, []step{
			{line("a", "approval.answer", `{"session_id":"s1","run_id":"run-1","approval_id":"ap-1","allow":true}`), want("answer a run-1 {SessionID:s1 RunID:run-1 ApprovalID:ap-1 Allow:true ForSession:false}")},
			{line("b", "approval.answer", `{"session_id":"s1","run_id":"run-9","approval_id":"ap-1","allow":false}`), want("respond b error=stale_approval")},
		})},
		{"after the worker returned: stale_approval, still running until drained", seq(running, []step{
			{RunWorkerDone{RunID: "run-1"}, nil},
			{line("a", "approval.answer", `{"session_id":"s1","run_id":"run-1","approval_id":"ap-1","allow":true}`), want("respond a error=stale_approval")},
			{line("s", "status", `{}`), want("respond s " + statusRunning)},
			{line("t", "turn.start", turn2), want("respond t error=busy")},
			{line("c", "session.create", `{}`), want("respond c error=busy")},
			{RunDrained{RunID: "run-1"}, nil},
			{line("u", "status", `{}`), want("respond u " + statusAttached)},
			{line("a2", "approval.answer", `{"session_id":"s1","run_id":"run-1","approval_id":"ap-1","allow":true}`), want("respond a2 error=stale_approval")},
			{line("k", "turn.cancel", `{"session_id":"s1","run_id":"run-1"}`), want("respond k error=stale_run")},
		})},
		{"drained before the worker returned: finished for the client, still running", seq(running, []step{
			{RunDrained{RunID: "run-1"}, nil},
			{line("s", "status", `{}`), want("respond s " + statusRunning)},
			{line("k", "turn.cancel", `{"session_id":"s1","run_id":"run-1"}`), want("respond k error=stale_run")},
			{line("a", "approval.answer", `{"session_id":"s1","run_id":"run-1","approval_id":"ap-1","allow":true}`), want("respond a error=stale_approval")},
			{line("t", "turn.start", turn2), want("respond t error=busy")},
			{RunWorkerDone{RunID: "run-1"}, nil},
			{line("u", "status", `{}`), want("respond u " + statusAttached)},
			{line("t2", "turn.start", turn2), want(`respond t2 {"run_id":"run-2","accepted":true}`, "start_turn t2 run-2 {SessionID:s1 Prompt:again}")},
		})},
		{"completions of other runs are ignored", seq(running, []step{
			{RunWorkerDone{RunID: "run-0"}, nil},
			{RunDrained{RunID: "run-0"}, nil},
			{line("s", "status", `{}`), want("respond s " + statusRunning)},
		})},
		{"a later run starts fresh", seq(running, []step{
			{RunWorkerDone{RunID: "run-1"}, nil},
			{RunDrained{RunID: "run-1"}, nil},
			{line("t2", "turn.start", turn2), want(`respond t2 {"run_id":"run-2","accepted":true}`, "start_turn t2 run-2 {SessionID:s1 Prompt:again}")},
			{RunDrained{RunID: "run-2"}, nil},
			{line("s", "status", `{}`), want(`respond s {"state":"running","readiness":"ready","provider":"fixture","model":"fixture-model","context_id":"ctx","session_id":"s1","run_id":"run-2"}`)},
			{line("k", "turn.cancel", `{"session_id":"s1","run_id":"run-2"}`), want("respond k error=stale_run")},
			{RunWorkerDone{RunID: "run-2"}, nil},
			{line("u", "status", `{}`), want("respond u " + statusAttached)},
		})},
		{"an op completion for another ID is ignored", seq(attached, []step{
			{line("p", "history.page", `{"session_id":"s1","revision":"v1"}`), want("start_op p page {SessionID:s1 Revision:v1 Cursor:}")},
			{OpDone{ID: "zzz", Result: []byte(`{}`)}, nil},
			{line("q", "history.page", `{"session_id":"s1","revision":"v1"}`), want("respond q error=busy")},
		})},
		{"an op completion with none pending is ignored", seq(ready, []step{
			{OpDone{Result: []byte(createResult), Attached: "s1"}, nil},
			{line("s", "status", `{}`), want("respond s " + statusIdle)},
		})},
		{"init completion when not starting is ignored", seq(ready, []step{
			{InitDone{Code: protocol.CodeStartupFailed}, nil},
			{line("s", "status", `{}`), want("respond s " + statusIdle)},
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stepAll(t, NewMachine(counterIDs()), tt.steps)
		})
	}
}

// specTrace is the initialize response of the protocol's synthetic consumer
// trace, verbatim.
const specTrace = `{"protocol":"magi-code.local-agent","version":1,"type":"response","instance_id":"<child-uuid>","seq":1,"id":"r1","result":{"capabilities":["initialize","status","shutdown","session.create","session.open","history.page","turn.start","turn.cancel","approval.answer"],"limits":{"frame_bytes":65536,"json_depth":32,"id_bytes":64,"prompt_bytes":16384,"history_page_bytes":32768,"history_page_entries":100,"content_chunk_bytes":16384,"pending_responses":32,"requests_per_child":4096,"output_deadline_ms":2000},"status":{"state":"idle","readiness":"ready","provider":"fixture","model":"fixture-model","context_id":"<digest>","session_id":null,"run_id":null}}}`

func TestInitializeMatchesSpecTrace(t *testing.T) {
	m := NewMachine(counterIDs())
	m.Step(toEvent(`{"protocol":"magi-code.local-agent","version":1,"id":"r1","method":"initialize","params":{"required_capabilities":["status","shutdown"]}}`))
	effects := m.Step(InitDone{Sel: Selection{Provider: "fixture", Model: "fixture-model", ContextID: "<digest>"}})
	if len(effects) != 1 {
		t.Fatalf("InitDone effects = %q; want one response", renderAll(effects))
	}
	resp, ok := effects[0].(Respond)
	if !ok {
		t.Fatalf("InitDone effects = %q; want one response", renderAll(effects))
	}
	frame := wire.AppendResponse(nil, "<child-uuid>", 1, &resp.Response)
	var got, want map[string]any
	if err := json.Unmarshal(frame, &got); err != nil {
		t.Fatalf("response %s: %v", frame, err)
	}
	if err := json.Unmarshal([]byte(specTrace), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("initialize response\n got %s\nwant %s", frame, specTrace)
	}
	// The limits and capabilities are also byte-exact, in the trace's order.
	result := string(resp.Response.Result)
	if wantResult := initResult(`{"state":"idle","readiness":"ready","provider":"fixture","model":"fixture-model","context_id":"<digest>","session_id":null,"run_id":null}`); result != wantResult {
		t.Fatalf("result\n got %s\nwant %s", result, wantResult)
	}
}

func TestStatusEscapesSelection(t *testing.T) {
	m := NewMachine(counterIDs())
	m.Step(toEvent(line("i", "initialize", `{"required_capabilities":[]}`)))
	effects := m.Step(InitDone{Sel: Selection{Provider: "a\"b\\c\n", Model: "m\u2028", ContextID: "x"}})
	resp := effects[0].(Respond)
	checkResponse(t, resp.Response)
	var r struct {
		Status map[string]any `json:"status"`
	}
	if err := json.Unmarshal(resp.Response.Result, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status["provider"] != "a\"b\\c\n" || r.Status["model"] != "m\u2028" {
		t.Fatalf("status = %v", r.Status)
	}
}

func renderAll(effects []Effect) []string {
	out := make([]string, len(effects))
	for i, e := range effects {
		out[i] = render(e)
	}
	return out
}

func BenchmarkStepStatus(b *testing.B) {
	m := NewMachine(counterIDs())
	m.Step(toEvent(line("i", "initialize", `{"required_capabilities":[]}`)))
	m.Step(InitDone{Sel: fixtureSel})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// Past 4096 IDs every step is request_limit: reuse the ledger.
		if i%4000 == 0 {
			m.ids = make(map[string]struct{}, 64)
			m.closing = false
		}
		m.Step(Request{Req: wire.Request{ID: "s" + strconv.Itoa(i), Method: "status", Params: []byte(`{}`)}})
		i++
	}
}

// fuzzDriver plays the workers for FuzzMachine: lines starting with '!'
// are completions of admitted work, every other line is a request.
type fuzzDriver struct {
	m       *Machine
	opID    string   // the admitted session/history op, if any
	runs    []string // admitted runs
	seenIDs map[string]bool
}

func (d *fuzzDriver) event(line string) Event {
	switch line {
	case "!init":
		return InitDone{Sel: fixtureSel}
	case "!initfail":
		return InitDone{Code: protocol.CodeMCPUnavailable}
	case "!op":
		return OpDone{ID: d.opID, Result: []byte(createResult), Attached: "s1"}
	case "!opfail":
		return OpDone{ID: d.opID, Code: protocol.CodeSessionInvalid}
	case "!done", "!drained":
		run := ""
		if len(d.runs) > 0 {
			run = d.runs[len(d.runs)-1]
		}
		if line == "!done" {
			return RunWorkerDone{RunID: run}
		}
		return RunDrained{RunID: run}
	case "!eof":
		return EOF{}
	case "!big":
		return FrameError{Code: protocol.CodeFrameTooLarge}
	case "!partial":
		return FrameError{Code: protocol.CodeIncompleteFrame}
	}
	ev := toEvent(line)
	if r := ev.(Request); r.Req.ID != "" {
		d.seenIDs[r.Req.ID] = true
	}
	return ev
}

func FuzzMachine(f *testing.F) {
	flow := []string{
		line("i1", "initialize", `{"required_capabilities":["status","shutdown"]}`),
		line("a", "status", `{}`),
		"!init",
		line("c1", "session.create", `{}`),
		"!op",
		line("t1", "turn.start", `{"session_id":"s1","prompt":"hello there"}`),
		line("k1", "turn.cancel", `{"session_id":"s1","run_id":"run-1"}`),
		line("p1", "approval.answer", `{"session_id":"s1","run_id":"run-1","approval_id":"ap","allow":true}`),
		"!drained",
		line("b", "status", `{}`),
		"!done",
		line("h1", "history.page", `{"session_id":"s1","revision":"v1","cursor":null}`),
		"!opfail",
		line("o1", "session.open", `{"session_id":"s2"}`),
		line("x", "shutdown", `{}`),
		"!op",
		line("y", "status", `{}`),
	}
	f.Add([]byte(strings.Join(flow, "\n")))
	f.Add([]byte(strings.Join([]string{line("i1", "initialize", `{"required_capabilities":["nope"]}`), line("i1", "status", `{}`), "!initfail", line("i2", "initialize", `{"required_capabilities":[]}`), "!initfail", line("s", "session.create", `{}`), line("st", "status", `{}`)}, "\n")))
	f.Add([]byte(`{"protocol":"magi-code.local-agent","version":1.0,"id":"r\u0031","method":"status","params":{}}` + "\n!partial\n!eof"))
	f.Add([]byte(line("q", "turn.start", `{"session_id":"s1","prompt":"\u3000"}`) + "\n\n!big\n" + line("z", "status", `{}`)))
	f.Fuzz(func(t *testing.T, in []byte) {
		d := &fuzzDriver{m: NewMachine(counterIDs()), seenIDs: map[string]bool{}}
		for _, l := range strings.Split(string(in), "\n") {
			effects := d.m.Step(d.event(l))
			for _, e := range effects {
				switch e := e.(type) {
				case Respond:
					checkResponse(t, e.Response)
					r := e.Response
					if !r.NullID && !d.seenIDs[r.ID] {
						t.Fatalf("response to ID %q, which no request carried", r.ID)
					}
					frame := wire.AppendResponse(nil, "i", 1, &r)
					if len(l) > protocol.MaxIDBytes && strings.Contains(string(frame), l) {
						t.Fatalf("response echoes the input line: %s", frame)
					}
				case StartOp:
					d.opID = e.ID
				case StartTurn:
					d.runs = append(d.runs, e.RunID)
					p := e.Params
					if !SessionID(p.SessionID) || !Prompt(p.Prompt) {
						t.Fatalf("turn admitted with params %+v", p)
					}
				case StartInit:
					for _, c := range e.Caps {
						if !protocol.IsCapability(c) {
							t.Fatalf("initialization admitted with capability %q", c)
						}
					}
				}
			}
		}
	})
}

// TestStatusMCPServers: with mcp.status required, status (and
// initialize's) lists the servers once ready, kept across a session
// attachment's new selection; while starting and without the capability
// there is no mcp_servers.
func TestStatusMCPServers(t *testing.T) {
	servers := []MCPServer{{Name: "docs", State: "running", Tools: 3}, {Name: "proj", State: "not_approved"}}
	const list = `"mcp_servers":[{"name":"docs","state":"running","tools":3},{"name":"proj","state":"not_approved","tools":0}]`
	for _, required := range []bool{true, false} {
		m := NewMachine(counterIDs())
		caps := `[]`
		if required {
			caps = `["mcp.status"]`
		}
		m.Step(toEvent(line("i", "initialize", `{"required_capabilities":`+caps+`}`)))
		starting := renderAll(m.Step(toEvent(line("s0", "status", `{}`))))
		sel := fixtureSel
		sel.MCP = servers
		init := renderAll(m.Step(InitDone{Sel: sel}))
		m.Step(toEvent(line("c", "session.create", `{}`)))
		m.Step(OpDone{ID: "c", Result: []byte(`{}`), Attached: "s1", Sel: &Selection{Provider: "p", Model: "m"}})
		after := renderAll(m.Step(toEvent(line("s1", "status", `{}`))))
		if strings.Contains(strings.Join(starting, ""), "mcp_servers") {
			t.Errorf("required %v: mcp_servers while starting: %v", required, starting)
		}
		for _, got := range [][]string{init, after} {
			if has := strings.Contains(strings.Join(got, ""), list); has != required || !required && strings.Contains(strings.Join(got, ""), "mcp_servers") {
				t.Errorf("required %v: %v", required, got)
			}
		}
	}
	// After a failed startup: none either.
	m := NewMachine(counterIDs())
	m.Step(toEvent(line("i", "initialize", `{"required_capabilities":["mcp.status"]}`)))
	m.Step(InitDone{Code: protocol.CodeMCPUnavailable, Sel: Selection{ContextID: "ctx"}})
	if got := renderAll(m.Step(toEvent(line("s", "status", `{}`)))); strings.Contains(strings.Join(got, ""), "mcp_servers") {
		t.Errorf("mcp_servers after a failed startup: %v", got)
	}
}
