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

// Ctrl-R searches the prompts kept across runs: the newest match stands
// in the input, Ctrl-R again goes older, Enter keeps it and a second Enter
// sends it; Esc brings the draft back. At 80 and at 30 columns.
func TestReverseSearchOfPromptHistory(t *testing.T) {
	for _, size := range []struct{ cols, rows int }{{80, 24}, {30, 20}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
			hist := "\"deploy to staging\"\n\"run the tests\"\n\"deploy to prod\"\n\"lint it\"\n"
			if err := os.WriteFile(filepath.Join(ws.Home, "prompt-history.jsonl"), []byte(hist), 0o600); err != nil {
				t.Fatal(err)
			}
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("fixture-model")
			v.typeText("my draft")
			v.waitScreen("my draft")
			v.typeText("\x12") // Ctrl-R
			v.waitScreen("reverse search:")
			v.typeText("depl")
			v.waitScreen("› deploy to prod")
			v.typeText("\x12")
			v.waitScreen("› deploy to staging")
			v.typeText("\x1b") // Esc
			v.waitScreen("› my draft")
			v.waitIdle("› my draft")
			if strings.Contains(strings.Join(v.screen(), "\n"), "reverse search") {
				t.Fatalf("Esc left the search on screen:\n%s", v.dump())
			}
			v.typeText("\x15") // Ctrl-U clears the draft
			v.typeText("\x12")
			v.typeText("tests")
			v.waitScreen("› run the tests")
			v.typeText("\r")
			v.waitIdle("› run the tests")
			v.typeText("\r")
			v.waitWords("echo: run the tests")
		})
	}
}
