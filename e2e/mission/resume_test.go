//go:build unix

package mission

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// A resumed session reads as it did live: the same transcript lines from
// the prompt to the turn's end (the reply's text, the call's line with the
// person's approval before it and its output under it, the partial reply
// and then the provider's error, in that order), and the same tokens in the
// status bar, at 80 and 30 columns.
func TestResumedSessionReadsLikeLive(t *testing.T) {
	for _, cols := range []int{80, 30} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Text("Let me look first."),
					clienttest.Shell("printf 'out-one\\nout-two\\nout-three\\nout-four\\nout-five\\nout-six\\n'"),
					clienttest.Step{"usage": map[string]any{"input_tokens": 1200, "output_tokens": 80}}),
				clienttest.Response(clienttest.Text("The output says six-things and then"),
					clienttest.Step{"usage": map[string]any{"input_tokens": 3000, "output_tokens": 45, "cached_input_tokens": 1000}},
					clienttest.Step{"error": "rate_limited"}),
			}})
			live := startVT(t, ws, cols, 24)
			live.waitScreen("fixture-model")
			live.typeText("look at the files\r")
			live.waitScreen("approve?")
			live.answer("y")
			live.waitIdle("turn failed")
			liveLines := transcript(t, live)
			liveBar := statusBar(live)
			liveTokens := tokenRows(t, live)
			// The live counts themselves: two responses, the second's context.
			if want := "tokens in 4.2k (1.0k from the provider's cache) tokens out 125 context 3.0k"; liveTokens != want ||
				cols == 80 && !strings.HasSuffix(liveBar, "· 3.0k context") {
				t.Fatalf("live tokens %q, status bar %q; want %q and 3.0k context", liveTokens, liveBar, want)
			}
			live.typeText("/quit\r")
			if code := live.exitCode(); code != 0 {
				t.Fatalf("exit %d after /quit:\n%s", code, live.dump())
			}
			resumed := startVT(t, ws, cols, 24, "--continue")
			resumed.waitIdle("resumed session")
			resumed.waitIdle("fixture-model")
			got := transcript(t, resumed)
			if strings.Join(got, "\n") != strings.Join(liveLines, "\n") {
				t.Fatalf("the resumed transcript differs from the live one:\nlive:\n%s\n--- resumed:\n%s\n--- resumed screen:\n%s",
					strings.Join(liveLines, "\n"), strings.Join(got, "\n"), resumed.dump())
			}
			if bar := statusBar(resumed); bar != liveBar {
				t.Fatalf("the status bar differs: live %q, resumed %q", liveBar, bar)
			}
			if rows := tokenRows(t, resumed); rows != liveTokens {
				t.Fatalf("/status differs: live %q, resumed %q", liveTokens, rows)
			}
			resumed.typeText("\x0f") // Ctrl-O: the resumed call's output, whole
			resumed.waitWords("out-six")
			if os.Getenv("MISSION_TRANSCRIPT") != "" {
				t.Logf("live:\n%s\n%s\nresumed:\n%s", strings.Join(liveLines, "\n"), liveBar, resumed.dump())
			}
		})
	}
}

// transcript is the rows from the turn's prompt to the line before its end
// line ("turn failed..."), which only a live turn prints.
func transcript(t *testing.T, v *vterm) []string {
	t.Helper()
	all := v.all()
	from, to := -1, -1
	for i, r := range all {
		if from < 0 && strings.HasPrefix(r, "you› ") {
			from = i
		}
		if from >= 0 && to < 0 && (strings.HasPrefix(r, "turn ") || strings.Contains(r, "›") && i > from || strings.HasPrefix(r, " fixture")) {
			to = i
		}
	}
	if from < 0 || to < 0 {
		t.Fatalf("no transcript on the screen:\n%s", v.dump())
	}
	return all[from:to]
}

// statusBar is the screen's last non-empty row.
func statusBar(v *vterm) string {
	s := v.screen()
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != "" {
			return s[i]
		}
	}
	return ""
}

// tokenRows is what /status says of the tokens (from "tokens in" to the
// context's count), wrapped lines joined.
func tokenRows(t *testing.T, v *vterm) string {
	t.Helper()
	v.typeText("/status\r")
	v.waitWords("tokens out")
	v.waitIdle("fixture-model")
	flat := v.flat()
	i := strings.LastIndex(flat, "tokens in")
	if i < 0 {
		t.Fatalf("/status has no tokens:\n%s", v.dump())
	}
	words := strings.Fields(flat[i:])
	for k, w := range words {
		if w == "context" && k+1 < len(words) {
			return strings.Join(words[:k+2], " ")
		}
	}
	t.Fatalf("/status has no context:\n%s", v.dump())
	return ""
}
