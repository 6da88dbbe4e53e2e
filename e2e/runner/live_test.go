package runner

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
)

// livePause is how long the fixture pauses inside each secret and after
// the opening prose.
const livePause = 800

// TestDeltasLiveAroundPauses: prose the provider writes before a pause
// reaches message.delta while the provider is paused, not with what follows
// it; a secret with a pause inside it shows nothing of itself in any frame
// (deltas during the pause, deltas after it, reconciliation) or history
// page, for a secret of each family, split inside its random part.
func TestDeltasLiveAroundPauses(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid())))
	random := func(chars string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = chars[rng.IntN(len(chars))]
		}
		return string(b)
	}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	type secret struct{ name, before, core, after string }
	secrets := []secret{
		{"vault service token", "export VAULT_TOKEN=hvs.", random(alnum, 95), "\n"},
		{"google key in a url query", "<script src=\"https://maps.googleapis.com/maps/api/js?key=AIza", random(alnum, 35), "&callback=init\"></script>\n"},
		{"aws key id", "the key id is AKIA", random("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), ", and then\n"},
		{"github token", "token: ghp_", random(alnum, 36), "\n"},
		{"password assignment", "DB_PASSWORD=", random(alnum, 18), "\n"},
		{"anthropic key", "ANTHROPIC_API_KEY=sk-ant-api03-", random(alnum, 93) + "AA", "\n"},
	}
	const opening = "Let me look at the tests first. "
	steps := []step{text(opening), clienttest.SleepMs(livePause)}
	for _, s := range secrets {
		half := len(s.core) / 2
		steps = append(steps, text(s.before+s.core[:half]), clienttest.SleepMs(livePause), text(s.core[half:]+s.after))
	}
	steps = append(steps, text("That is all."))
	ws := clienttest.NewWorkspace(t, script(t, t.TempDir(), steps))
	ch := startChild(t, ws, client.Options{RecordFrames: true})
	sid := ch.Create().SessionID
	start := time.Now()
	runID, adm := ch.StartTurn(sid, "go")

	// The opening arrives during the first pause: its deltas come well
	// before the ones that follow the pause.
	var evs []client.Event
	var shown strings.Builder
	var openingAt time.Duration
	ch.Until(&evs, runID, "the opening prose in deltas", func(ev client.Event) bool {
		if ev.Name == protocol.EventMessageDelta {
			shown.WriteString(deltaText(t, ev))
		}
		openingAt = time.Since(start)
		return shown.String() == opening
	})
	ch.Until(&evs, runID, "the delta after the first pause", clienttest.Named(protocol.EventMessageDelta))
	if gap := time.Since(start) - openingAt; gap < livePause*time.Millisecond/2 {
		t.Fatalf("the opening prose came %v before the text after a %d ms pause: it was not shown during the pause", gap, livePause)
	}
	run := ch.Finish(sid, runID, adm, evs)
	run.WantOutcome(t, "completed", "")
	entries := ch.history(sid, run)
	ch.Shutdown()

	var want strings.Builder
	want.WriteString(opening)
	for _, s := range secrets {
		want.WriteString(redact.String(s.before + s.core + s.after))
	}
	want.WriteString("That is all.")
	if run.Reply() != want.String() {
		t.Fatalf("reply %q; want %q", run.Reply(), want.String())
	}
	var deltas strings.Builder
	for _, ev := range run.Events {
		if ev.Name == protocol.EventMessageDelta {
			deltas.WriteString(deltaText(t, ev))
		}
	}
	if deltas.String() != want.String() {
		t.Fatalf("deltas %q; want the reconciled text %q", deltas.String(), want.String())
	}
	for _, s := range secrets {
		half := len(s.core) / 2
		// Either half of the random part, in any frame or history entry.
		for _, part := range []string{s.core[:half], s.core[half:]} {
			for _, f := range ch.C.Frames() {
				if bytes.Contains(f.Raw, []byte(part)) {
					t.Errorf("frame %d shows part of the %s: %s", f.Seq, s.name, f.Raw)
				}
			}
			for _, e := range entries {
				if strings.Contains(e.Text, part) {
					t.Errorf("history %s entry shows part of the %s", e.Kind, s.name)
				}
			}
		}
		if !strings.Contains(want.String(), redact.String(s.before+s.core+s.after)) || !strings.Contains(redact.String(s.before+s.core+s.after), redact.Marker) {
			t.Errorf("the %s is not redacted: %q", s.name, redact.String(s.before+s.core+s.after))
		}
	}
}

// deltaText is the text of a message.delta event.
func deltaText(t *testing.T, ev client.Event) string {
	t.Helper()
	var d clienttest.TextEvent
	if err := ev.Decode(&d); err != nil {
		t.Fatalf("message.delta %s: %v", ev.Data, err)
	}
	return d.Text
}
