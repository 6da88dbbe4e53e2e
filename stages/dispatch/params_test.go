package dispatch

import (
	"reflect"
	"strings"
	"testing"
)

// decoders maps a method to its strict params decoder, as the machine uses
// them.
var decoders = map[string]func(raw []byte) (any, bool){
	"status":          func(raw []byte) (any, bool) { return nil, emptyParams(raw) },
	"initialize":      func(raw []byte) (any, bool) { return decodeInitialize(raw) },
	"session.open":    func(raw []byte) (any, bool) { return decodeOpen(raw) },
	"history.page":    func(raw []byte) (any, bool) { return decodePage(raw) },
	"turn.start":      func(raw []byte) (any, bool) { return decodeTurn(raw) },
	"turn.cancel":     func(raw []byte) (any, bool) { return decodeCancel(raw) },
	"approval.answer": func(raw []byte) (any, bool) { return decodeAnswer(raw, false) },
	// approval.answer of a client that required approval.session
	"approval.answer+scope": func(raw []byte) (any, bool) { return decodeAnswer(raw, true) },
}

func TestParams(t *testing.T) {
	long64 := strings.Repeat("a", 64)
	long65 := strings.Repeat("a", 65)
	tests := []struct {
		method string
		raw    string
		want   any // nil with ok=false means refused
		ok     bool
	}{
		// status, shutdown, session.create: exactly {}.
		{"status", `{}`, nil, true},
		{"status", " {\t}\r\n", nil, true},
		{"status", `{"a":1}`, nil, false},
		{"status", `{"":1}`, nil, false},
		{"status", `[]`, nil, false},
		{"status", `null`, nil, false},
		{"status", `"{}"`, nil, false},
		{"status", `0`, nil, false},
		{"status", `{} {}`, nil, false},
		{"status", ``, nil, false},

		// initialize
		{"initialize", `{"required_capabilities":["status","shutdown"]}`, InitializeParams{[]string{"status", "shutdown"}}, true},
		{"initialize", `{"required_capabilities":[]}`, InitializeParams{[]string{}}, true},
		{"initialize", `{"required_capabilities":["x-y_z.1"]}`, InitializeParams{[]string{"x-y_z.1"}}, true}, // grammar-valid, unknown: machine's verdict
		{"initialize", `{"required_capabilities":["status"],"required_capabilities":["status"]}`, nil, false},
		{"initialize", `{"required_capabilities":["status"],"required_c\u0061pabilities":[]}`, nil, false},
		{"initialize", `{"Required_capabilities":["status"]}`, nil, false},
		{"initialize", `{"required_capabilities":["status"],"extra":null}`, nil, false},
		{"initialize", `{"required_capabilities":[null]}`, nil, false},
		{"initialize", `{"required_capabilities":[["status"]]}`, nil, false},
		{"initialize", `{"required_capabilities":{"status":true}}`, nil, false},
		{"initialize", `{"required_capabilities":["a b"]}`, nil, false},
		{"initialize", `{"required_capabilities":["` + long65 + `"]}`, nil, false},
		{"initialize", `{"required_capabilities":["status",]}`, nil, false},
		{"initialize", `{}`, nil, false},
		{"initialize", `[]`, nil, false},

		// session.open
		{"session.open", `{"session_id":"abc_DEF-123"}`, OpenParams{"abc_DEF-123"}, true},
		{"session.open", `{"session_id":"` + long64 + `"}`, OpenParams{long64}, true},
		{"session.open", `{"session_id":"\u0061b"}`, OpenParams{"ab"}, true},
		{"session.open", `{"session_id":"` + long65 + `"}`, nil, false},
		{"session.open", `{"session_id":""}`, nil, false},
		{"session.open", `{"session_id":"a.b"}`, nil, false},
		{"session.open", `{"session_id":"../x"}`, nil, false},
		{"session.open", `{"session_id":"a b"}`, nil, false},
		{"session.open", `{"session_id":"é"}`, nil, false},
		{"session.open", `{"session_id":"a\u0000"}`, nil, false},
		{"session.open", `{"session_id":1}`, nil, false},
		{"session.open", `{"session_id":null}`, nil, false},
		{"session.open", `{"session_id":["a"]}`, nil, false},
		{"session.open", `{}`, nil, false},
		{"session.open", `{"session_id":"a","s\u0065ssion_id":"b"}`, nil, false},
		{"session.open", `{"session_id":"a","session_id":"a"}`, nil, false},
		{"session.open", `{"session_id":"a","revision":"v"}`, nil, false},
		{"session.open", `{"SESSION_ID":"a"}`, nil, false},
		{"session.open", `"a"`, nil, false},

		// history.page
		{"history.page", `{"session_id":"s","revision":"v1"}`, PageParams{SessionID: "s", Revision: "v1"}, true},
		{"history.page", `{"session_id":"s","revision":"v1","cursor":null}`, PageParams{SessionID: "s", Revision: "v1"}, true},
		{"history.page", `{"cursor":"c-1.x_Y","revision":"v1","session_id":"s"}`, PageParams{"s", "v1", "c-1.x_Y"}, true},
		{"history.page", `{"session_id":"s","revision":"v1","cursor":"` + long64 + `"}`, PageParams{"s", "v1", long64}, true},
		{"history.page", `{"session_id":"s","revision":"v1","cursor":"` + long65 + `"}`, nil, false},
		{"history.page", `{"session_id":"s","revision":"v1","cursor":"a/b"}`, nil, false},
		{"history.page", `{"session_id":"s","revision":"v1","cursor":""}`, nil, false},
		{"history.page", `{"session_id":"s","revision":"v1","cursor":0}`, nil, false},
		{"history.page", `{"session_id":"s","revision":"v1","cursor":false}`, nil, false},
		{"history.page", `{"session_id":"s","revision":"v1","cursor":null,"cursor":null}`, nil, false},
		{"history.page", `{"session_id":"s","revision":"v1","c\u0075rsor":"a","cursor":"b"}`, nil, false},
		{"history.page", `{"session_id":"s"}`, nil, false},
		{"history.page", `{"revision":"v1"}`, nil, false},
		{"history.page", `{"session_id":"s","revision":""}`, nil, false},
		{"history.page", `{"session_id":"s","revision":"` + long65 + `"}`, nil, false},
		{"history.page", `{"session_id":"s","revision":null}`, nil, false},
		{"history.page", `{"session_id":"s.x","revision":"v1"}`, nil, false},
		{"history.page", `{"session_id":"s","revision":"v1","limit":10}`, nil, false},

		// turn.start
		{"turn.start", `{"session_id":"s","prompt":"hi"}`, TurnParams{"s", "hi"}, true},
		{"turn.start", `{"session_id":"s","prompt":"  x  "}`, TurnParams{"s", "  x  "}, true},
		{"turn.start", `{"session_id":"s","prompt":"\u3000x"}`, TurnParams{"s", "\u3000x"}, true},
		{"turn.start", `{"session_id":"s","prompt":"\"<script>\""}`, TurnParams{"s", `"<script>"`}, true},
		{"turn.start", `{"session_id":"s","prompt":""}`, nil, false},
		{"turn.start", `{"session_id":"s","prompt":" "}`, nil, false},
		{"turn.start", `{"session_id":"s","prompt":"\t\n\r\u000b\u000c "}`, nil, false},
		{"turn.start", `{"session_id":"s","prompt":"\u3000"}`, nil, false},
		{"turn.start", "{\"session_id\":\"s\",\"prompt\":\"\u3000\u00a0\u2028\u2029\u0085\u1680\u2000\u200a\u202f\u205f\"}", nil, false},
		{"turn.start", `{"session_id":"s","prompt":"\u00a0\u2029"}`, nil, false},
		{"turn.start", `{"session_id":"s","prompt":"\u200b"}`, TurnParams{"s", "\u200b"}, true}, // zero width space is not unicode.IsSpace
		{"turn.start", `{"session_id":"s","prompt":null}`, nil, false},
		{"turn.start", `{"session_id":"s","prompt":["hi"]}`, nil, false},
		{"turn.start", `{"session_id":"s","prompt":1}`, nil, false},
		{"turn.start", `{"session_id":"s"}`, nil, false},
		{"turn.start", `{"prompt":"hi"}`, nil, false},
		{"turn.start", `{"session_id":"s","prompt":"hi","prompt":"hi"}`, nil, false},
		{"turn.start", `{"session_id":"s","pr\u006fmpt":"a","prompt":"b"}`, nil, false},
		{"turn.start", `{"session_id":"s","prompt":"hi","model":"x"}`, nil, false},
		{"turn.start", `{"session_id":"","prompt":"hi"}`, nil, false},
		{"turn.start", `{"session_id":"s","prompt":"\ud800"}`, nil, false},

		// turn.cancel
		{"turn.cancel", `{"session_id":"s","run_id":"0f8fad5b-d9cb-469f-a165-70867728950e"}`, CancelParams{"s", "0f8fad5b-d9cb-469f-a165-70867728950e"}, true},
		{"turn.cancel", `{"run_id":"r","session_id":"s"}`, CancelParams{"s", "r"}, true},
		{"turn.cancel", `{"session_id":"s"}`, nil, false},
		{"turn.cancel", `{"session_id":"s","run_id":""}`, nil, false},
		{"turn.cancel", `{"session_id":"s","run_id":"` + long65 + `"}`, nil, false},
		{"turn.cancel", `{"session_id":"s","run_id":"r r"}`, nil, false},
		{"turn.cancel", `{"session_id":"s","run_id":null}`, nil, false},
		{"turn.cancel", `{"session_id":"s","run_id":"r","run_id":"q"}`, nil, false},
		{"turn.cancel", `{"session_id":"s","run_id":"r","force":true}`, nil, false},

		// approval.answer
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true}`, AnswerParams{"s", "r", "a", true, false}, true},
		{"approval.answer", `{"allow":false,"approval_id":"a","run_id":"r","session_id":"s"}`, AnswerParams{"s", "r", "a", false, false}, true},
		// scope: unknown to a version 1 client (no approval.session)
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true,"scope":"session"}`, nil, false},
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true,"scope":"once"}`, nil, false},
		// with approval.session: once or session; session only with allow
		{"approval.answer+scope", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true}`, AnswerParams{"s", "r", "a", true, false}, true},
		{"approval.answer+scope", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true,"scope":"session"}`, AnswerParams{"s", "r", "a", true, true}, true},
		{"approval.answer+scope", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true,"scope":"once"}`, AnswerParams{"s", "r", "a", true, false}, true},
		{"approval.answer+scope", `{"session_id":"s","run_id":"r","approval_id":"a","allow":false,"scope":"once"}`, AnswerParams{"s", "r", "a", false, false}, true},
		{"approval.answer+scope", `{"session_id":"s","run_id":"r","approval_id":"a","allow":false,"scope":"session"}`, nil, false},
		{"approval.answer+scope", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true,"scope":"Session"}`, nil, false},
		{"approval.answer+scope", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true,"scope":"session-prefix"}`, nil, false},
		{"approval.answer+scope", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true,"scope":true}`, nil, false},
		{"approval.answer+scope", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true,"scope":null}`, nil, false},
		{"approval.answer+scope", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true,"scope":"session","scope":"session"}`, nil, false},
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"a"}`, nil, false},
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"a","allow":"true"}`, nil, false},
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"a","allow":1}`, nil, false},
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"a","allow":null}`, nil, false},
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"a","allow":True}`, nil, false},
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"","allow":true}`, nil, false},
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"a b","allow":true}`, nil, false},
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true,"allow":false}`, nil, false},
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"a","\u0061llow":true,"allow":false}`, nil, false},
		{"approval.answer", `{"session_id":"s","run_id":"r","approval_id":"a","allow":true,"remember":true}`, nil, false},
		{"approval.answer", `{"run_id":"r","approval_id":"a","allow":true}`, nil, false},
	}
	for _, tt := range tests {
		got, ok := decoders[tt.method]([]byte(tt.raw))
		if ok != tt.ok {
			t.Errorf("%s params %s: ok = %v; want %v", tt.method, tt.raw, ok, tt.ok)
			continue
		}
		if ok && tt.want != nil && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s params %s = %+v; want %+v", tt.method, tt.raw, got, tt.want)
		}
	}
}

func TestPromptBytes(t *testing.T) {
	euro := "€" // 3 bytes
	tests := []struct {
		name   string
		prompt string // Go string; encoded raw into the JSON
		ok     bool
	}{
		{"16,384 ASCII bytes", strings.Repeat("a", 16384), true},
		{"16,385 ASCII bytes", strings.Repeat("a", 16385), false},
		{"16,384 bytes with 3-byte runes", strings.Repeat(euro, 5461) + "a", true},
		{"16,385 bytes with 3-byte runes", strings.Repeat(euro, 5461) + "aa", false},
		{"16,386 bytes ending in a 3-byte rune", strings.Repeat("a", 16383) + euro, false},
		{"16,384 bytes with 4-byte runes", strings.Repeat("😀", 4096), true},
		{"16,388 bytes with 4-byte runes", strings.Repeat("😀", 4097), false},
		{"16,384 bytes of ideographic spaces and one rune", strings.Repeat("\u3000", 5461) + "x", true},
		{"ideographic spaces only", strings.Repeat("\u3000", 100), false},
	}
	for _, tt := range tests {
		raw := `{"session_id":"s","prompt":"` + tt.prompt + `"}`
		_, ok := decodeTurn([]byte(raw))
		if ok != tt.ok || Prompt(tt.prompt) != tt.ok {
			t.Errorf("%s (%d bytes): decodeTurn ok = %v, Prompt = %v; want %v", tt.name, len(tt.prompt), ok, Prompt(tt.prompt), tt.ok)
		}
	}
	// The bound applies to the decoded prompt, not to its escaped spelling:
	// 8192 escapes of é are 49,152 raw bytes but 16,384 decoded bytes.
	for _, tt := range []struct {
		n  int
		ok bool
	}{{8192, true}, {8193, false}} {
		raw := `{"session_id":"s","prompt":"` + strings.Repeat(`\u00e9`, tt.n) + `"}`
		p, ok := decodeTurn([]byte(raw))
		if ok != tt.ok || ok && p.Prompt != strings.Repeat("é", tt.n) {
			t.Errorf("%d escaped é: ok = %v; want %v", tt.n, ok, tt.ok)
		}
	}
}

func TestSessionIDGrammar(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"a", true},
		{"A-z_0-9", true},
		{strings.Repeat("x", 64), true},
		{strings.Repeat("x", 65), false},
		{"", false},
		{"a.b", false},
		{".", false},
		{"a/b", false},
		{"a\\b", false},
		{"a b", false},
		{"ä", false},
		{"a\x00", false},
		{"a\n", false},
	}
	for _, tt := range tests {
		if got := SessionID(tt.id); got != tt.ok {
			t.Errorf("SessionID(%q) = %v; want %v", tt.id, got, tt.ok)
		}
	}
}

// TestParamsThroughMachine checks that a refused params value is
// invalid_params at the machine, for every method, once lifecycle passes.
func TestParamsThroughMachine(t *testing.T) {
	bad := []struct{ method, params string }{
		{"status", `{"a":1}`},
		{"shutdown", `[]`},
		{"session.create", `{"session_id":"s1"}`},
		{"session.open", `{"session_id":"a","s\u0065ssion_id":"b"}`},
		{"history.page", `{"session_id":"s1","revision":"v1","cursor":"` + strings.Repeat("c", 65) + `"}`},
		{"turn.start", `{"session_id":"s1","prompt":"\u3000"}`},
		{"turn.cancel", `{"session_id":"s1","run_id":7}`},
		{"approval.answer", `{"session_id":"s1","run_id":"run-1","approval_id":"a","allow":"yes"}`},
	}
	for _, b := range bad {
		t.Run(b.method, func(t *testing.T) {
			stepAll(t, NewMachine(counterIDs()), seq(running, []step{
				{line("x", b.method, b.params), want("respond x error=invalid_params")},
			}))
		})
	}
}
