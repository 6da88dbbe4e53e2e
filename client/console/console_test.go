package console_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/client/console"
)

func TestMain(m *testing.M) { clienttest.Main(m) }

// TestShow drives a real child through one run per case and checks what a
// terminal shows: streamed text, reconciliation, tool activity, the
// approval question and its answer, diagnostics and the run's end, with
// the run.finished revision and outcome returned.
func TestShow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		responses   [][]clienttest.Step
		allow       bool
		wantOutcome string
		want        []string // lines or line fragments, in order
		wantMarker  bool
	}{
		{
			name: "approved tool",
			responses: [][]clienttest.Step{
				{clienttest.Text("Let me "), clienttest.Text("look."), clienttest.Shell("touch marker")},
				{clienttest.Text("Done.")},
			},
			allow: true, wantOutcome: "completed", wantMarker: true,
			want: []string{
				"  [input persisted]",
				"assistant> Let me look.",
				"  [reconciled]",
				"  [tool shell started]",
				"  [approval requested] ",
				"  [tool shell completed]",
				"assistant> Done.",
				"  [reconciled]",
				"  [run finished: completed, history durable]",
			},
		},
		{
			name: "denied tool",
			responses: [][]clienttest.Step{
				{clienttest.Shell("touch marker")},
				{clienttest.Text("Not allowed, then.")},
			},
			allow: false, wantOutcome: "completed",
			want: []string{
				"  [approval requested] ",
				"  [tool shell failed]",
				"assistant> Not allowed, then.",
				"  [run finished: completed, history durable]",
			},
		},
		{
			name:        "provider failure",
			responses:   [][]clienttest.Step{{clienttest.Text("partial"), {"error": "provider_unavailable"}}},
			wantOutcome: "failed",
			want: []string{
				"assistant> partial",
				"  [run finished: failed (",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: tc.responses, Approval: "ask"})
			ch := ws.StartChild(t, client.Options{})
			sid := ch.Create().SessionID
			runID, _ := ch.StartTurn(sid, "go")
			var out strings.Builder
			asked := 0
			revision, outcome, err := console.Show(clienttest.Guard(t), ch.C, &out, sid, runID, func(summary string) bool {
				asked++
				if summary == "" {
					t.Error("approval asked with an empty summary")
				}
				return tc.allow
			})
			if err != nil {
				t.Fatal(err)
			}
			if outcome != tc.wantOutcome || revision == "" {
				t.Fatalf("Show = %q, %q; want outcome %q and a revision\n%s", revision, outcome, tc.wantOutcome, out.String())
			}
			rest := out.String()
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q after what came before:\n%s", w, out.String())
				}
				rest = rest[i+len(w):]
			}
			if want := strings.Count(strings.Join(tc.want, "\n"), "[approval requested]"); asked != want {
				t.Fatalf("approve called %d times; want %d", asked, want)
			}
			if got := clienttest.FileExists(filepath.Join(ws.Cwd, "marker")); got != tc.wantMarker {
				t.Fatalf("the tool ran: %v; want %v", got, tc.wantMarker)
			}
			// The history of the run pages at the returned revision.
			if entries, _, _ := ch.History(sid, revision); len(entries) == 0 {
				t.Fatal("no history at the returned revision")
			}
			ch.Shutdown()
		})
	}
}
