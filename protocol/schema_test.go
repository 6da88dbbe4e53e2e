package protocol_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/protocol/schemacheck"
)

// schemaDoc is schema.json decoded into generic JSON values.
func schemaDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(protocol.Schema), &doc); err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	return doc
}

// at follows a JSON pointer made of plain keys (no escapes) through doc.
func at(t *testing.T, doc any, pointer string) any {
	t.Helper()
	v := doc
	for _, k := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("schema.json%s: %q is not inside an object", pointer, k)
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("schema.json%s: no %q", pointer, k)
		}
	}
	return v
}

func strs[T ~string](list []T) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = string(s)
	}
	return out
}

// TestSchemaFollowsProtocol holds the schema's closed lists and bounds to the
// constants of this package, the one source of both: change a code or a
// bound here and schema.json must change with it.
func TestSchemaFollowsProtocol(t *testing.T) {
	doc := schemaDoc(t)
	startup := []protocol.Code{protocol.CodeConfigurationInvalid, protocol.CodeProviderUnavailable,
		protocol.CodeProfileInvalid, protocol.CodeMCPUnavailable, protocol.CodeStartupCancelled, protocol.CodeStartupFailed}
	ms := func(d time.Duration) float64 { return float64(d / time.Millisecond) }
	want := map[string]any{
		"/$defs/protocol/const":                                 protocol.ProtocolName,
		"/$defs/version/const":                                  float64(protocol.ProtocolVersion),
		"/$defs/code/enum":                                      strs(protocol.Codes[:]),
		"/$defs/startup_code/enum":                              strs(startup),
		"/$defs/method/enum":                                    strs(protocol.Methods[:]),
		"/$defs/event_envelope/properties/event/enum":           strs(append(protocol.Events[:], protocol.EventUsage, protocol.EventActivityOutput)),
		"/$defs/data.activity.output/properties/text/maxLength": float64(protocol.ActivityOutputChunkBytes),
		"/$defs/data.activity.output/properties/chunk/maximum":  float64(protocol.ActivityOutputBytes/protocol.ActivityOutputChunkBytes - 1),
		"/$defs/optional_capability/enum":                       strs(protocol.OptionalCapabilities[:]),
		"/$defs/notice/enum": strs([]string{protocol.NoticeSavedSelectionUnavailable,
			protocol.NoticeSavedSelectionNotice, protocol.NoticeCwdUnverified}),
		"/$defs/id/pattern":                                                  fmt.Sprintf("^[A-Za-z0-9._-]{1,%d}$", protocol.MaxIDBytes),
		"/$defs/session_id/pattern":                                          fmt.Sprintf("^[A-Za-z0-9_-]{1,%d}$", protocol.MaxIDBytes),
		"/$defs/summary/maxLength":                                           float64(protocol.SummaryBytes),
		"/$defs/live_text/maxLength":                                         float64(protocol.LiveChunkBytes),
		"/$defs/history_text/maxLength":                                      float64(protocol.HistoryChunkBytes),
		"/$defs/selection_name/maxLength":                                    float64(protocol.MaxSelectionNameBytes),
		"/$defs/params.turn.start/properties/prompt/maxLength":               float64(protocol.MaxPromptBytes),
		"/$defs/params.initialize/properties/required_capabilities/maxItems": float64(protocol.MaxRequiredCapabilities),
		"/$defs/result.history.page/properties/entries/maxItems":             float64(protocol.HistoryPageEntries),
		"/$defs/result.status/properties/mcp_servers/maxItems":               float64(protocol.MCPStatusServers),
		"/$defs/result.initialize/properties/capabilities/maxItems":          float64(len(protocol.Methods) + len(protocol.OptionalCapabilities)),
		"/$defs/result.initialize/properties/capabilities/minItems":          float64(len(protocol.Methods)),
		"/$defs/data.approval.requested/properties/expires_in_ms/maximum":    ms(protocol.ApprovalExpiry),
		"/$defs/limits/properties/frame_bytes/const":                         float64(protocol.MaxInputFrameBytes),
		"/$defs/limits/properties/json_depth/const":                          float64(protocol.MaxJSONDepth),
		"/$defs/limits/properties/id_bytes/const":                            float64(protocol.MaxIDBytes),
		"/$defs/limits/properties/prompt_bytes/const":                        float64(protocol.MaxPromptBytes),
		"/$defs/limits/properties/history_page_bytes/const":                  float64(protocol.HistoryPageBytes),
		"/$defs/limits/properties/history_page_entries/const":                float64(protocol.HistoryPageEntries),
		"/$defs/limits/properties/content_chunk_bytes/const":                 float64(protocol.HistoryChunkBytes),
		"/$defs/limits/properties/pending_responses/const":                   float64(protocol.PendingOutputFrames),
		"/$defs/limits/properties/requests_per_child/const":                  float64(protocol.RequestIDsPerChild),
		"/$defs/limits/properties/output_deadline_ms/const":                  ms(protocol.OutputDeadline),
	}
	for pointer, w := range want {
		if got := at(t, doc, pointer); !reflect.DeepEqual(got, w) {
			t.Errorf("schema.json%s = %v; want %v (package protocol)", pointer, got, w)
		}
	}
	// Every method has its request frame and params, every event its frame
	// and data, and the root names each frame once.
	var root []string
	for _, r := range at(t, doc, "/oneOf").([]any) {
		root = append(root, strings.TrimPrefix(r.(map[string]any)["$ref"].(string), "#/$defs/"))
	}
	for _, m := range protocol.Methods {
		at(t, doc, "/$defs/request."+m)
		if !contains(root, "request."+m) {
			t.Errorf("root oneOf lacks request.%s", m)
		}
	}
	for _, e := range protocol.Events {
		at(t, doc, "/$defs/data."+e)
		if !contains(root, "event."+e) {
			t.Errorf("root oneOf lacks event.%s", e)
		}
	}
	defs := at(t, doc, "/$defs").(map[string]any)
	for _, name := range root {
		if _, ok := defs[name]; !ok {
			t.Errorf("root oneOf names $defs/%s, which does not exist", name)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestSchemaIDGrammars checks the schema's two ID patterns against
// ValidID and ValidSessionID on the same strings.
func TestSchemaIDGrammars(t *testing.T) {
	cases := []string{"", "a", "r1", "a.b", "a_b-c", "a b", "é", "a/b", "a\x00", "a\n", "..",
		strings.Repeat("x", 64), strings.Repeat("x", 65), strings.Repeat("é", 32)}
	for c := 0; c < 128; c++ {
		cases = append(cases, string([]byte{byte(c)}), "x"+string([]byte{byte(c)}))
	}
	doc := schemaDoc(t)
	idRE := regexp.MustCompile(at(t, doc, "/$defs/id/pattern").(string))
	sessionRE := regexp.MustCompile(at(t, doc, "/$defs/session_id/pattern").(string))
	for _, s := range cases {
		if got, want := idRE.MatchString(s), protocol.ValidID(s); got != want {
			t.Errorf("schema id pattern on %q = %v; ValidID = %v", s, got, want)
		}
		if got, want := sessionRE.MatchString(s), protocol.ValidSessionID(s); got != want {
			t.Errorf("schema session_id pattern on %q = %v; ValidSessionID = %v", s, got, want)
		}
	}
}

const (
	head  = `{"protocol":"magi-code.local-agent","version":1,`
	inst  = `"instance_id":"0b8a4d2e-7f11-4c3a-9d55-1e2f3a4b5c6d"`
	runID = `"4f1c2b3a-5d6e-4f70-8192-a3b4c5d6e7f8"`
	ids   = `"session_id":"s1","run_id":` + runID
)

func resp(seq int, id, body string) string {
	return fmt.Sprintf(`%s"type":"response",%s,"seq":%d,"id":%s,%s}`, head, inst, seq, id, body)
}

func event(seq int, name, data string) string {
	return fmt.Sprintf(`%s"type":"event",%s,"seq":%d,"event":"%s","data":{%s,%s}}`, head, inst, seq, name, ids, data)
}

func req(id, method, params string) string {
	return fmt.Sprintf(`%s"id":"%s","method":"%s","params":%s}`, head, id, method, params)
}

// validFrames holds one frame of every kind the root accepts, keyed by the
// $defs name that must be the one branch that matches.
var validFrames = map[string]string{
	"request.initialize":      req("r1", "initialize", `{"required_capabilities":["status","shutdown"]}`),
	"request.status":          req("r2", "status", `{}`),
	"request.shutdown":        req("r3", "shutdown", `{}`),
	"request.session.create":  req("r4", "session.create", `{}`),
	"request.session.open":    req("r5", "session.open", `{"session_id":"s-1_a"}`),
	"request.history.page":    req("r6", "history.page", `{"session_id":"s1","revision":"v.1","cursor":null}`),
	"request.turn.start":      req("r7", "turn.start", `{"session_id":"s1","prompt":"hello"}`),
	"request.turn.cancel":     req("r8", "turn.cancel", `{"session_id":"s1","run_id":"x"}`),
	"request.approval.answer": req("r9", "approval.answer", `{"session_id":"s1","run_id":"x","approval_id":"a","allow":false}`),
	"response.error":          resp(1, `null`, `"error":{"code":"invalid_request"}`),
	"response.initialize": resp(1, `"r1"`, `"result":{"capabilities":["initialize","status","shutdown","session.create","session.open","history.page","turn.start","turn.cancel","approval.answer"],`+
		`"limits":{"frame_bytes":65536,"json_depth":32,"id_bytes":64,"prompt_bytes":16384,"history_page_bytes":32768,"history_page_entries":100,"content_chunk_bytes":16384,"pending_responses":32,"requests_per_child":4096,"output_deadline_ms":2000},`+
		`"status":{"state":"idle","readiness":"ready","provider":"fixture","model":"fixture-model","context_id":"ab12","session_id":null,"run_id":null}}`),
	"response.status":          resp(2, `"r2"`, `"result":{"state":"starting","readiness":"initializing","provider":null,"model":null,"context_id":null,"session_id":null,"run_id":null}`),
	"response.shutdown":        resp(3, `"r3"`, `"result":{"state":"stopping"}`),
	"response.session":         resp(4, `"r4"`, `"result":{"session_id":"s1","durable":false,"revision":"v1","notices":[]}`),
	"response.history.page":    resp(5, `"r6"`, `"result":{"session_id":"s1","revision":"v1","entries":[{"message_id":"m1","kind":"user","text":"hi","partial":false,"part":0,"last_part":true}],"next_cursor":null,"complete":true}`),
	"response.turn.start":      resp(6, `"r7"`, `"result":{"run_id":`+runID+`,"accepted":true}`),
	"response.turn.cancel":     resp(7, `"r8"`, `"result":{"cancellation_requested":true}`),
	"response.approval.answer": resp(8, `"r9"`, `"result":{"recorded":true}`),
	"event.input.persisted":    event(9, "input.persisted", `"message_id":"m1","durable":true,"revision":"v2"`),
	"event.message.delta":      event(10, "message.delta", `"message_id":"m2","part":0,"text":"Hel"`),
	"event.message.reconcile":  event(11, "message.reconcile", `"message_id":"m2","part":0,"text":"Hello","last_part":true,"partial":false`),
	"event.activity":           event(12, "activity", `"activity_id":"a1","kind":"tool","state":"started","name":"shell","summary":"echo hi"`),
	"event.approval.requested": event(13, "approval.requested", `"approval_id":`+runID+`,"summary":"shell: echo hi","expires_in_ms":60000`),
	"event.diagnostic":         event(14, "diagnostic", `"code":"persistence_failed","summary":"x"`),
	"event.run.finished":       event(15, "run.finished", `"outcome":"completed","persistence":"durable","revision":"v3","error_code":null`),
}

// TestSchemaAcceptsEachFrameOnce validates one frame of every kind against
// the whole document and against its own $defs entry, and no other.
func TestSchemaAcceptsEachFrameOnce(t *testing.T) {
	for name, frame := range validFrames {
		if err := schemacheck.ValidateRoot([]byte(frame)); err != nil {
			t.Errorf("%s: %s\n%v", name, frame, err)
		}
		if err := schemacheck.Validate([]byte(frame)); err != nil {
			t.Errorf("%s (by its branch): %s\n%v", name, frame, err)
		}
		for other := range validFrames {
			err := schemacheck.ValidateDef(other, []byte(frame))
			if other == name && err != nil {
				t.Errorf("%s does not match its own $defs/%s: %v", frame, name, err)
			}
			if other != name && err == nil {
				t.Errorf("%s matches $defs/%s too; want only %s", frame, other, name)
			}
		}
	}
}

// TestSchemaRejects plants one mistake at a time in valid frames: a field
// added, renamed, mistyped, out of its enum or past its bound.
func TestSchemaRejects(t *testing.T) {
	cases := []struct{ name, base, old, new string }{
		{"extra response field", "response.shutdown", `"result"`, `"extra":1,"result"`},
		{"extra result field", "response.shutdown", `"stopping"}`, `"stopping","x":1}`},
		{"renamed event field", "event.message.delta", `"part"`, `"index"`},
		{"mistyped part", "event.message.delta", `"part":0`, `"part":"0"`},
		{"negative part", "event.message.delta", `"part":0`, `"part":-1`},
		{"unknown code", "response.error", `invalid_request`, `oops`},
		{"error with text", "response.error", `"code":"invalid_request"`, `"code":"invalid_request","message":"x"`},
		{"both result and error", "response.shutdown", `"result"`, `"error":{"code":"busy"},"result"`},
		{"seq 0", "response.shutdown", `"seq":3`, `"seq":0`},
		{"instance_id not a UUID", "event.diagnostic", `0b8a4d2e-7f11`, `0B8A4D2E-7F11`},
		{"unknown outcome", "event.run.finished", `"completed"`, `"done"`},
		{"unknown kind", "event.activity", `"tool"`, `"web"`},
		{"unknown event", "event.activity", `"event":"activity"`, `"event":"activities"`},
		{"unknown method", "request.status", `"status"`, `"stat"`},
		{"unknown request field", "request.status", `"params"`, `"x":1,"params"`},
		{"id too long", "request.status", `"r2"`, `"` + strings.Repeat("r", 65) + `"`},
		{"session id with a dot", "request.session.open", `s-1_a`, `s.1`},
		{"params not empty", "request.status", `{}`, `{"x":1}`},
		{"unknown status state", "response.status", `"starting"`, `"ready"`},
		{"starting with a provider", "response.status", `"provider":null`, `"provider":"fixture"`},
		{"unknown notice", "response.session", `"notices":[]`, `"notices":["hello"]`},
		{"complete with a cursor", "response.history.page", `"next_cursor":null`, `"next_cursor":"c1"`},
		{"accepted false", "response.turn.start", `"accepted":true`, `"accepted":false`},
		{"limit changed", "response.initialize", `"json_depth":32`, `"json_depth":64`},
		{"approval expiry too long", "event.approval.requested", `60000`, `60001`},
		{"durable false", "event.input.persisted", `"durable":true`, `"durable":false`},
		{"long delta text", "event.message.delta", `"Hel"`, `"` + strings.Repeat("h", 4001) + `"`},
		{"long summary", "event.diagnostic", `"summary":"x"`, `"summary":"` + strings.Repeat("s", 1025) + `"`},
		{"too many capabilities", "request.initialize", `["status","shutdown"]`, `[` + strings.Repeat(`"status",`, 16) + `"status"]`},
		{"version 2", "response.shutdown", `"version":1`, `"version":2`},
		{"type missing", "response.shutdown", `"type":"response",`, ``},
	}
	for _, c := range cases {
		frame := strings.Replace(validFrames[c.base], c.old, c.new, 1)
		if frame == validFrames[c.base] {
			t.Fatalf("%s: %q not found in %s", c.name, c.old, c.base)
		}
		if err := schemacheck.ValidateRoot([]byte(frame)); err == nil {
			t.Errorf("%s: schema accepts %s", c.name, frame)
		}
		if err := schemacheck.Validate([]byte(frame)); err == nil {
			t.Errorf("%s: schema accepts %s (by its branch)", c.name, frame)
		}
	}
}
