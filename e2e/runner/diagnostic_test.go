package runner

import (
	"bytes"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/protocol"
)

// TestDiagnosticSummaryRedacted: a diagnostic's summary is redacted, not
// only cut to 1024 bytes. The failing hook's diagnostic names the tool, and
// the tool's name carries its MCP server's name, which here is shaped like
// a GitHub token: neither the live frame nor the stored history entry may
// show it, and the diagnostic still says what failed.
func TestDiagnosticSummaryRedacted(t *testing.T) {
	t.Parallel()
	const token = "ghp_Zq8Xw3Lm9Vt2Rk7Np4Hs6Jd1Fb5Gc0Ya8Ue3" // not the alphabet: gitleaks allowlists that as a placeholder
	const leak = "Zq8Xw3Lm9Vt2Rk7Np4Hs6Jd1"
	tool := "mcp__" + token + "__lookup"
	ws, _ := mcpWorkspace(t, "auto", mcpServer(token, nil)+hook("pre_tool_use", "mcp__.*", "exit 1"),
		[]step{toolCall(tool, map[string]any{"key": "k1"})}, []step{text("done")})
	ch := startChild(t, ws, client.Options{RecordFrames: true})
	sid := ch.Create().SessionID
	r := ch.Turn(sid, "look it up")
	r.WantOutcome(t, "completed", "")
	if got := r.Diagnostics(); len(got) != 1 || got[0] != string(protocol.CodeExecutionFailed) {
		t.Fatalf("diagnostics %q; want one execution_failed", got)
	}
	summaries := 0
	for _, ev := range r.Events {
		if ev.Name != protocol.EventDiagnostic {
			continue
		}
		var d struct{ Summary string }
		_ = ev.Decode(&d)
		if !strings.Contains(d.Summary, "pre_tool_use hook failed") {
			t.Fatalf("diagnostic summary %q does not say what failed", d.Summary)
		}
		summaries++
	}
	if summaries != 1 {
		t.Fatalf("%d diagnostic events; want 1", summaries)
	}
	for _, f := range ch.C.Frames() {
		if bytes.Contains(f.Raw, []byte(leak)) {
			t.Fatalf("frame %d shows the secret-shaped name: %s", f.Seq, f.Raw)
		}
	}
	diags := 0
	for _, e := range ch.history(sid, r) {
		if strings.Contains(e.Text, leak) {
			t.Fatalf("history entry %s shows the secret-shaped name: %q", e.Kind, e.Text)
		}
		if e.Kind == "diagnostic" {
			diags++
		}
	}
	if diags != 1 {
		t.Fatalf("%d diagnostic entries in history; want 1", diags)
	}
	ch.Shutdown()
}
