package dispatch

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/stages/validate"
	"github.com/magi-code/magi-code/stages/wire"
)

// t0 is the instant every pure test steps at: no rule of the machine reads
// the clock.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

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

func toEvent(in any) any {
	if s, ok := in.(string); ok {
		req, code := validate.Parse([]byte(s))
		return Request{Req: req, Code: code}
	}
	return in
}

// render is a compact, exact text form of an effect, so that tables read
// as transcripts.
func render(e Effect) string {
	switch e.Kind {
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
		return fmt.Sprintf("start_op %s %s %+v", e.ID, opName(e.Op), e.Params)
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
	return fmt.Sprintf("unknown effect %d", e.Kind)
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
	if len(frame) > wire.MaxOutputFrameBytes {
		t.Fatalf("response frame of %d bytes exceeds the output bound", len(frame))
	}
	if !json.Valid(frame) {
		t.Fatalf("response frame is not valid JSON: %q", frame)
	}
	if (r.Error == "") == (r.Result == nil) {
		t.Fatalf("response %+v must carry exactly one of result and error", r)
	}
	if r.Error != "" && !knownCodes[r.Error] {
		t.Fatalf("response carries unknown code %q", r.Error)
	}
	if !r.NullID && !validate.Name(r.ID) {
		t.Fatalf("response ID %q is outside the ID grammar", r.ID)
	}
}

// knownCodes is every code of the spec.
var knownCodes = func() map[wire.Code]bool {
	m := map[wire.Code]bool{}
	for _, c := range []wire.Code{
		wire.CodeInvalidFrame, wire.CodeInvalidRequest, wire.CodeInvalidParams, wire.CodeProtocolMismatch,
		wire.CodeUnsupportedMethod, wire.CodeUnsupportedCapability, wire.CodeNotInitialized,
		wire.CodeAlreadyInitialized, wire.CodeDuplicateID, wire.CodeRequestLimit, wire.CodeFrameTooLarge,
		wire.CodeIncompleteFrame,
		wire.CodeConfigurationInvalid, wire.CodeProviderUnavailable, wire.CodeProfileInvalid,
		wire.CodeMCPUnavailable, wire.CodeStartupCancelled, wire.CodeStartupFailed,
		wire.CodeBusy, wire.CodeStaleSession, wire.CodeSessionMissing, wire.CodeSessionBusy,
		wire.CodeSessionInvalid, wire.CodeCwdMismatch, wire.CodeHistoryLimit, wire.CodeStaleRevision,
		wire.CodeContentLimit, wire.CodeOperationCancelled,
		wire.CodeStaleRun, wire.CodeStaleApproval, wire.CodeExecutionFailed, wire.CodePersistenceFailed,
		wire.CodeOutputUnavailable,
	} {
		m[c] = true
	}
	return m
}()

// stepAll feeds steps to m and fails at the first step whose effects differ.
func stepAll(t *testing.T, m *Machine, steps []step) {
	t.Helper()
	for i, s := range steps {
		effects := m.Step(t0, toEvent(s.in))
		got := make([]string, len(effects))
		for j, e := range effects {
			got[j] = render(e)
			if e.Kind == Respond {
				checkResponse(t, e.Response)
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
		{InitDone{Code: wire.CodeProviderUnavailable, Sel: Selection{ContextID: "ctx"}}, want("respond i1 error=provider_unavailable")},
	})
)

func strRepeat(s string, n int) string { return strings.Repeat(s, n) }
