package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/internal/diaglog"
	"github.com/magi-code/magi-code/protocol"
)

// TestProviderFailureReason: a provider failure tells the person why. Its
// run ends failed with a spec code (execution_failed; an unusable
// credential provider_unavailable), and before run.finished a diagnostic
// with the same code carries the reason's fixed sentence (rate limited,
// unauthorized, model not found, context too long, network), at most 1024
// bytes; the history keeps it as a diagnostic entry beside the partial
// reply, and the child's diagnostic log has the same line.
func TestProviderFailureReason(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		reason, code, says string
	}{
		{"rate_limited", "execution_failed", "rate limiting"},
		{"unauthorized", "provider_unavailable", "did not accept the credential"},
		{"model_not_found", "execution_failed", "does not know the model"},
		{"context_too_long", "execution_failed", "too long for the model's context window"},
		{"network", "execution_failed", "could not be reached"},
	} {
		t.Run(c.reason, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ch := newChild(t, script(t, dir, []step{text("half "), {"error": c.reason}}), client.Options{})
			sid := ch.Create().SessionID
			r := ch.Turn(sid, "go")
			r.WantOutcome(t, "failed", c.code)
			var summary string
			for i, ev := range r.Events {
				if ev.Name != protocol.EventDiagnostic {
					continue
				}
				var d struct{ Code, Summary string }
				_ = ev.Decode(&d)
				if d.Code != c.code || i >= len(r.Events)-1 {
					t.Fatalf("diagnostic %+v at %d of %d events; want code %s before run.finished", d, i, len(r.Events), c.code)
				}
				summary = d.Summary
			}
			if !strings.Contains(summary, c.says) || len(summary) > 1024 || strings.Contains(c.reason, "_") && strings.Contains(summary, c.reason) {
				t.Fatalf("diagnostic summary %q; want the sentence with %q, not the reason's name", summary, c.says)
			}
			var kinds []string
			for _, e := range ch.history(sid, r) {
				switch {
				case e.Kind == "diagnostic" && strings.Contains(e.Text, c.says):
					kinds = append(kinds, "diagnostic")
				case e.Kind == "assistant" && e.Text == "half " && e.Partial:
					kinds = append(kinds, "partial reply")
				}
			}
			if len(kinds) != 2 {
				t.Fatalf("history has %q; want the diagnostic and the partial reply", kinds)
			}
			ch.Shutdown()
			logs := filepath.Join(ch.WS.Home, "logs")
			files, err := diaglog.List(logs)
			if err != nil || len(files) != 1 {
				t.Fatalf("logs: %v, %d files", err, len(files))
			}
			b, _ := os.ReadFile(filepath.Join(logs, files[0].Name()))
			if !strings.Contains(string(b), `"msg":"diagnostic"`) || !strings.Contains(string(b), c.says) {
				t.Fatalf("the diagnostic log lacks the reason:\n%s", b)
			}
		})
	}
}
