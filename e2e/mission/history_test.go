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
