package history

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// TestTypeNames: every record type spells its name and is found by it;
// the zero type and any value past the last type are "unknown", never a
// name (and never an index past the table).
func TestTypeNames(t *testing.T) {
	for typ := TypeHeader; typ < typeCount; typ++ {
		if typeFromName([]byte(typ.String())) != typ || typ.String() == "unknown" {
			t.Fatalf("type %d: name %q", typ, typ.String())
		}
	}
	for _, typ := range []Type{0, typeCount, typeCount + 1, 255} {
		if got := typ.String(); got != "unknown" {
			t.Fatalf("Type(%d).String() = %q; want unknown", typ, got)
		}
	}
	if typeFromName([]byte("unknown")) != 0 || typeFromName(nil) != 0 {
		t.Fatal("a name outside the table names a type")
	}
}

// TestValidateBounds: the schema's bounds hold to the byte on both sides
// (activity ID, name and summary, diagnostic summary: at most 1,024 bytes;
// header version 1 or 2), and a type outside the table is invalid.
func TestValidateBounds(t *testing.T) {
	at := strings.Repeat("x", protocol.SummaryBytes)
	over := at + "x"
	idAt := strings.Repeat("i", protocol.ActivityInternalIDBytes)
	activity := func(id, name, summary string) Record {
		return Record{Type: TypeActivity, SessionID: "s", ActivityID: id, Kind: "tool", State: "completed", Name: name, Summary: summary}
	}
	diagnostic := func(summary string) Record {
		return Record{Type: TypeDiagnostic, SessionID: "s", Code: "execution_failed", Summary: summary}
	}
	header := func(v int) Record { return Record{Type: TypeHeader, SessionID: "s", Version: v} }
	for _, c := range []struct {
		name  string
		r     Record
		valid bool
	}{
		{"activity id at bound", activity(idAt, "n", "s"), true},
		{"activity id over", activity(idAt+"i", "n", "s"), false},
		{"activity name at bound", activity("a", at, "s"), true},
		{"activity name over", activity("a", over, "s"), false},
		{"activity summary at bound", activity("a", "n", at), true},
		{"activity summary over", activity("a", "n", over), false},
		{"diagnostic summary at bound", diagnostic(at), true},
		{"diagnostic summary over", diagnostic(over), false},
		{"version 0", header(0), false},
		{"version 1", header(1), true},
		{"version 2", header(SchemaVersion), true},
		{"version 3", header(SchemaVersion + 1), false},
		{"type past the table", Record{Type: typeCount, SessionID: "s"}, false},
		{"zero type", Record{Type: 0, SessionID: "s"}, false},
		{"run_completed with known error code", Record{Type: TypeRunCompleted, SessionID: "s", RunID: "r", Outcome: "failed", ErrorCode: "execution_failed"}, true},
		{"run_completed with unknown error code", Record{Type: TypeRunCompleted, SessionID: "s", RunID: "r", Outcome: "failed", ErrorCode: "made_up"}, false},
		{"run_completed without run", Record{Type: TypeRunCompleted, SessionID: "s", Outcome: "completed"}, false},
		{"bad run id", Record{Type: TypeCompaction, SessionID: "s", RunID: "a b", Text: "x"}, false},
		{"usage at the count bound", Record{Type: TypeUsage, SessionID: "s", RunID: "r", InputTokens: MaxTokenCount, ReasoningTokens: MaxTokenCount}, true},
		{"usage over the count bound", Record{Type: TypeUsage, SessionID: "s", RunID: "r", CachedInputTokens: MaxTokenCount + 1}, false},
		{"usage negative", Record{Type: TypeUsage, SessionID: "s", RunID: "r", OutputTokens: -1}, false},
		{"usage without run", Record{Type: TypeUsage, SessionID: "s"}, false},
		{"usage model over 256 bytes", Record{Type: TypeUsage, SessionID: "s", RunID: "r", Model: strings.Repeat("m", 257)}, false},
	} {
		if err := c.r.Validate(); (err == nil) != c.valid {
			t.Errorf("%s: Validate = %v; want valid %v", c.name, err, c.valid)
		}
		if !c.valid || c.r.Type == 0 {
			continue
		}
		// What Validate accepts reads back.
		line := AppendRecord(nil, &c.r)
		var got Record
		if err := parseLine(line[:len(line)-1], &got); err != nil || got != c.r {
			t.Errorf("%s: %s reads back as %+v, %v", c.name, line, got, err)
		}
	}
}

// TestRevisionFormat: "v<gen>-<first 16 bytes of the SHA-256 in hex>", the
// generation in decimal without leading zeros.
func TestRevisionFormat(t *testing.T) {
	var sum [32]byte
	for i := range sum {
		sum[i] = byte(i * 17)
	}
	for gen, want := range map[uint64]string{
		0:         "v0-00112233445566778899aabbccddeeff",
		7:         "v7-00112233445566778899aabbccddeeff",
		10:        "v10-00112233445566778899aabbccddeeff",
		9876543:   "v9876543-00112233445566778899aabbccddeeff",
		1<<64 - 1: "v18446744073709551615-00112233445566778899aabbccddeeff",
	} {
		if got := revisionOf(gen, sum); got != want {
			t.Errorf("revisionOf(%d) = %q; want %q", gen, got, want)
		}
	}
}
