package history

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// parseLine decodes one stored line (without its LF), as a full read does.
func parseLine(line []byte, r *Record) error { return parseRecord(line, r, false, nil) }

func TestRecordRoundTrip(t *testing.T) {
	recs := []Record{
		{Type: TypeHeader, SessionID: "s", Version: 2, Cwd: "/w", Provider: "p", Model: "m", Thinking: "high", CreatedAt: "t"},
		{Type: TypeHeader, SessionID: "s", Version: 1},
		{Type: TypeInput, SessionID: "s", RunID: "r.1", MessageID: "u1", Text: "hi \"there\"\n\x01😀漢", Cwd: "/w"},
		{Type: TypeInternalInput, SessionID: "s", Text: "auto"},
		{Type: TypeAssistantChunk, SessionID: "s", MessageID: "a", Text: ""},
		{Type: TypeAssistant, SessionID: "s", MessageID: "a", Text: "", HasText: true, Partial: true},
		{Type: TypeAssistant, SessionID: "s", MessageID: "a"},
		{Type: TypeReasoningSummary, SessionID: "s", ID: "rs1", Text: "why", ProviderSummary: true},
		{Type: TypeActivity, SessionID: "s", ActivityID: strings.Repeat("x", 1024), Kind: "tool", State: "failed", Name: "shell", Summary: "exit 1"},
		{Type: TypeCompaction, SessionID: "s", Text: "summary"},
		{Type: TypeDiagnostic, SessionID: "s", Code: "persistence_failed", Summary: "slow disk"},
		{Type: TypeRunCompleted, SessionID: "s", RunID: "r", Outcome: "failed", ErrorCode: "execution_failed"},
		{Type: TypeToolCall, SessionID: "s", CallID: "c", Name: "shell", Arguments: `{"command":"echo hi"}`},
		{Type: TypeToolResult, SessionID: "s", CallID: "c", Text: "hi\n", IsError: true},
		{Type: TypeTaskScope, SessionID: "s", Ceiling: "read-only"},
		{Type: TypeUsage, SessionID: "s", RunID: "r", Model: "gpt-5.4", InputTokens: MaxTokenCount, OutputTokens: 80, CachedInputTokens: 1024, ReasoningTokens: 16},
		{Type: TypeUsage, SessionID: "s", RunID: "r"}, // zero counts, no model
	}
	for _, want := range recs {
		t.Run(want.Type.String(), func(t *testing.T) {
			if err := want.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			line := AppendRecord(nil, &want)
			if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
				t.Fatalf("not one line: %q", line)
			}
			var got Record
			if err := parseLine(line[:len(line)-1], &got); err != nil {
				t.Fatalf("parseLine(%s): %v", line, err)
			}
			if got != want {
				t.Fatalf("parseLine(%s) = %+v; want %+v", line, got, want)
			}
		})
	}
}

func TestParseLineRejects(t *testing.T) {
	cases := []struct{ name, line string }{
		{"empty", ``},
		{"blank", `   `},
		{"not object", `[]`},
		{"empty object", `{}`},
		{"no session", `{"type":"compaction","text":"x"}`},
		{"unknown type", `{"type":"bogus","session_id":"s"}`},
		{"unknown field", `{"type":"compaction","session_id":"s","text":"x","extra":"y"}`},
		{"field of another type", `{"type":"compaction","session_id":"s","text":"x","outcome":"completed"}`},
		{"duplicate", `{"type":"compaction","session_id":"s","text":"x","text":"y"}`},
		{"duplicate after null", `{"type":"compaction","session_id":"s","run_id":null,"run_id":"r","text":"x"}`},
		{"case folded key", `{"Type":"compaction","session_id":"s","text":"x"}`},
		{"missing required", `{"type":"input","session_id":"s","message_id":"m"}`},
		{"nested", `{"type":"compaction","session_id":"s","text":{"a":1}}`},
		{"trailing", `{"type":"compaction","session_id":"s","text":"x"} {}`},
		{"trailing comma", `{"type":"compaction","session_id":"s","text":"x",}`},
		{"invalid utf8", "{\"type\":\"compaction\",\"session_id\":\"s\",\"text\":\"\xff\"}"},
		{"raw control", "{\"type\":\"compaction\",\"session_id\":\"s\",\"text\":\"a\x01\"}"},
		{"lone surrogate", `{"type":"compaction","session_id":"s","text":"\ud800"}`},
		{"low surrogate first", `{"type":"compaction","session_id":"s","text":"\udc00\ud800"}`},
		{"bad escape", `{"type":"compaction","session_id":"s","text":"\x"}`},
		{"unterminated", `{"type":"compaction","session_id":"s","text":"x`},
		{"float version", `{"type":"session","session_id":"s","version":2.0}`},
		{"string version", `{"type":"session","session_id":"s","version":"2"}`},
		{"future version", `{"type":"session","session_id":"s","version":3}`},
		{"leading zero", `{"type":"session","session_id":"s","version":02}`},
		{"bad session id", `{"type":"compaction","session_id":"a/b","text":"x"}`},
		{"bad message id", `{"type":"input","session_id":"s","message_id":"a.b","text":"x"}`},
		{"bad state", `{"type":"activity","session_id":"s","activity_id":"a","kind":"tool","state":"running"}`},
		{"long summary", `{"type":"diagnostic","session_id":"s","code":"c","summary":"` + strings.Repeat("x", protocol.SummaryBytes+1) + `"}`},
		{"bad code", `{"type":"diagnostic","session_id":"s","code":"a b"}`},
		{"bad outcome", `{"type":"run_completed","session_id":"s","run_id":"r","outcome":"done"}`},
		{"null type", `{"type":null,"session_id":"s"}`},
		{"bool for string", `{"type":"compaction","session_id":"s","text":true}`},
		// Lines that end inside or right after a value: no panic, an error.
		{"ends after colon", `{"type":"session","session_id":"s","version":`},
		{"ends after number", `{"type":"session","session_id":"s","version":2`},
		{"ends in true", `{"type":"assistant","session_id":"s","message_id":"m","partial":tr`},
		{"ends in false", `{"type":"assistant","session_id":"s","message_id":"m","partial":f`},
		{"ends in null", `{"type":"compaction","session_id":"s","text":"x","run_id":nu`},
		{"ends after an escaped quote", `{"type":"compaction","session_id":"s","text":"a\"`},
		{"ends in text after an escape", `{"type":"compaction","session_id":"s","text":"a\"bc`},
		{"two-digit version", `{"type":"session","session_id":"s","version":12}`},
		{"version zero", `{"type":"session","session_id":"s","version":0}`},
		{"usage without run", `{"type":"usage","session_id":"s","input_tokens":1,"output_tokens":2}`},
		{"usage without output", `{"type":"usage","session_id":"s","run_id":"r","input_tokens":1}`},
		{"usage count of 16 digits", `{"type":"usage","session_id":"s","run_id":"r","input_tokens":1000000000000000,"output_tokens":2}`},
		{"usage negative", `{"type":"usage","session_id":"s","run_id":"r","input_tokens":-1,"output_tokens":2}`},
		{"usage float", `{"type":"usage","session_id":"s","run_id":"r","input_tokens":1.0,"output_tokens":2}`},
		{"usage string count", `{"type":"usage","session_id":"s","run_id":"r","input_tokens":"1","output_tokens":2}`},
		{"usage leading zero", `{"type":"usage","session_id":"s","run_id":"r","input_tokens":01,"output_tokens":2}`},
		{"count on another type", `{"type":"compaction","session_id":"s","text":"x","input_tokens":1}`},
		{"number for a string", `{"type":"compaction","session_id":"s","text":1}`},
		{"version of a usage", `{"type":"usage","session_id":"s","run_id":"r","input_tokens":1,"output_tokens":2,"version":2}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r Record
			// Capacity equal to length: a read past the line panics.
			line := []byte(c.line)
			if err := parseLine(line[:len(line):len(line)], &r); err == nil {
				t.Fatalf("parseLine(%q) = %+v; want error", c.line, r)
			}
		})
	}
}

func TestParseLineAccepts(t *testing.T) {
	cases := []struct {
		name, line string
		want       Record
	}{
		{"whitespace and CR", " {\t\"type\" : \"compaction\" ,\"session_id\":\"s\",\"text\":\"x\"}\r", Record{Type: TypeCompaction, SessionID: "s", Text: "x"}},
		{"escapes", `{"type":"compaction","session_id":"s","text":"\u0041\/\b\f\ud83d\ude00"}`, Record{Type: TypeCompaction, SessionID: "s", Text: "A/\b\f😀"}},
		{"null optional", `{"type":"run_completed","session_id":"s","run_id":"r","outcome":"completed","error_code":null}`, Record{Type: TypeRunCompleted, SessionID: "s", RunID: "r", Outcome: "completed"}},
		{"escaped key", `{"typ\u0065":"compaction","session_id":"s","text":"x"}`, Record{Type: TypeCompaction, SessionID: "s", Text: "x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r Record
			if err := parseLine([]byte(c.line), &r); err != nil || r != c.want {
				t.Fatalf("parseLine(%q) = %+v, %v; want %+v", c.line, r, err, c.want)
			}
		})
	}
}

// FuzzReader feeds arbitrary bytes to the streaming reader and the
// projection. It must never panic; whatever it accepts must project into
// pages within bounds whose parts rejoin; every accepted line re-encodes to
// a line that decodes to the same record.
func FuzzReader(f *testing.F) {
	e := &env{store: &Store{cwd: "/w"}}
	seed := encode(append([]Record{e.header("s")}, turn("s", "r1", "hi", "hello \x01 😀")...)...)
	f.Add(seed)
	f.Add(seed[:len(seed)-3])
	f.Add([]byte(`{"type":"session","session_id":"s","version":1}` + "\n" + `{"type":"input","session_id":"s","message_id":"m","text":"x"}` + "\n"))
	f.Add([]byte("\n"))
	f.Add([]byte(`{"type":"session","session_id":"s","version":2}` + "\n" +
		`{"type":"reasoning_summary","session_id":"s","id":"x","text":"a","provider_summary":true}` + "\n" +
		`{"type":"activity","session_id":"s","activity_id":"a","kind":"tool","state":"started"}` + "\n"))
	f.Add([]byte(`{"type":"session","session_id":"s","version":2}` + "\n" +
		`{"type":"usage","session_id":"s","run_id":"r","model":"m","input_tokens":999999999999999,"output_tokens":0,"reasoning_tokens":7}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Differential: whatever the strict decoder accepts is valid JSON
		// with the same text as encoding/json reads it.
		for _, line := range bytes.Split(data, []byte("\n")) {
			var r Record
			if parseLine(line, &r) != nil {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("accepted invalid JSON %q: %v", line, err)
			}
			if txt, ok := m["text"].(string); ok && r.Type != TypeAssistant && txt != r.Text {
				t.Fatalf("text %q decoded as %q; encoding/json says %q", line, r.Text, txt)
			}
			if n, ok := m["input_tokens"].(float64); ok && int64(n) != r.InputTokens {
				t.Fatalf("input_tokens %q decoded as %d; encoding/json says %v", line, r.InputTokens, n)
			}
		}
		b := NewBuilder(Detail{})
		var rec Record
		sc, code := scan(bytes.NewReader(data), "s", false, func(r *Record) protocol.Code {
			line := AppendRecord(nil, r)
			if err := parseLine(line[:len(line)-1], &rec); err != nil || rec != *r {
				t.Fatalf("re-encoded %+v does not round-trip: %v", *r, err)
			}
			if !b.Add(r) {
				return protocol.CodeHistoryLimit
			}
			return ""
		})
		if code != "" {
			return
		}
		p, code := b.Finish("s", revisionOf(1, sc.sum), 1, sc.torn)
		if code != "" {
			return
		}
		if sc.torn && p.Complete() {
			t.Fatal("torn file projected complete")
		}
		var cursor *string
		for {
			raw, code := p.AppendPage(nil, cursor)
			if code != "" {
				t.Fatalf("page: %s", code)
			}
			if len(raw) > protocol.HistoryPageBytes {
				t.Fatalf("page of %d bytes", len(raw))
			}
			j, _ := p.page(cursor)
			if j == len(p.starts)-1 {
				break
			}
			c := p.cursor(p.starts[j+1])
			cursor = &c
		}
	})
}
