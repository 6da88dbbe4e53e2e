//go:build unix

package mission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// A prompt sent in one run comes back with Up in the next, from a file
// under MC_HOME that only its owner reads; an API key typed for /login
// never reaches it.
func TestPromptHistoryAcrossRuns(t *testing.T) {
	for _, size := range []struct{ cols, to int }{{80, 30}, {30, 80}} {
		t.Run(fmt.Sprintf("%d to %d", size.cols, size.to), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Text("first-answer")),
			}})
			v := startVT(t, ws, size.cols, 24)
			v.waitScreen("fixture-model")
			v.typeText("remember this prompt\r")
			v.waitIdle("turn completed")
			v.typeText("/quit\r")
			if code := v.exitCode(); code != 0 {
				t.Fatalf("exit %d after /quit:\n%s", code, v.dump())
			}
			path := filepath.Join(ws.Home, "prompt-history.jsonl")
			st, err := os.Stat(path)
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("the history file: %v, %v", st, err)
			}
			if b, _ := os.ReadFile(path); string(b) != "\"remember this prompt\"\n" {
				t.Fatalf("the history file holds %q", b)
			}
			v = startVT(t, ws, size.cols, 24)
			v.waitScreen("fixture-model")
			v.resize(size.to, 24)
			v.waitIdle("fixture-model")
			v.typeText("\x1b[A") // Up
			v.waitIdle("fixture-model")
			v.waitScreen("› remember this prompt")
			if strings.Count(strings.Join(v.screen(), "\n"), "remember this prompt") != 1 {
				t.Fatalf("the earlier run's prompt is not in the input once:\n%s", v.dump())
			}
		})
	}
}

// Start-up reads only the last 2 MiB of the history file: with 300
// entries of 15 KB (4.5 MiB), the entries kept, which the file is
// rewritten with (it is over 1 MiB), are those whose line lies whole in
// that tail, never an older one.
func TestPromptHistoryReadsOnlyTheTail(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	path := filepath.Join(ws.Home, "prompt-history.jsonl")
	var b strings.Builder
	var starts []int
	for i := range 300 {
		starts = append(starts, b.Len())
		fmt.Fprintf(&b, "\"entry %04d %s\"\n", i, strings.Repeat("q", 15000))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	first := 0 // the first entry whose line starts after the cut
	for first < len(starts) && starts[first] <= b.Len()-2<<20 {
		first++
	}
	v := startVT(t, ws, 80, 24)
	v.waitScreen("fixture-model")
	v.typeText("/quit\r")
	if code := v.exitCode(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, v.dump())
	}
	lines := strings.Split(strings.TrimSuffix(readFile(t, path), "\n"), "\n")
	if len(lines) != 300-first || !strings.HasPrefix(lines[0], fmt.Sprintf("\"entry %04d ", first)) || !strings.HasPrefix(lines[len(lines)-1], "\"entry 0299 ") {
		t.Fatalf("the history kept %d entries from %.12q; want the %d from entry %04d", len(lines), lines[0], 300-first, first)
	}
}
