//go:build unix

package mission

import (
	"os"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// TestScreenshots prints the screens docs/mission-control.md shows, as
// text, when MISSION_SCREENSHOTS is set: go test -run TestScreenshots -v.
func TestScreenshots(t *testing.T) {
	if os.Getenv("MISSION_SCREENSHOTS") == "" {
		t.Skip("set MISSION_SCREENSHOTS to print the documentation's screens")
	}
	shot := func(v *vterm, name string) {
		rows := v.screen()
		for len(rows) > 0 && rows[len(rows)-1] == "" {
			rows = rows[:len(rows)-1]
		}
		t.Logf("%s:\n%s", name, strings.Join(rows, "\n"))
	}
	steps, _ := tallReply(30, 6)
	for i := range steps {
		if _, ok := steps[i]["sleep_ms"]; ok {
			steps[i] = clienttest.SleepMs(400)
		}
	}
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		clienttest.Response(steps...),
		clienttest.Response(clienttest.ToolCall("edit_file", map[string]any{"path": "config.go", "old": "timeout := 5", "new": "timeout := 50"})),
		clienttest.Response(clienttest.Text("Raised the *timeout* to `50`.")),
	}})
	ws.WriteFile(t, ws.Cwd+"/config.go", "timeout := 5\n")
	v := startVT(t, ws, 80, 24)
	v.waitScreen("fixture-model")
	v.typeText("show me the file\r")
	v.waitScreen("code-line-2")
	shot(v, "streaming")
	v.waitIdle("turn completed")
	v.typeText("raise the timeout\r")
	v.waitIdle("approve?")
	shot(v, "approval")
	v.answer("y")
	v.waitIdle("Raised")
	v.typeText("/")
	v.waitIdle("/resume")
	shot(v, "menu")
	v.typeText("\x15/resume\r")
	v.waitIdle("resume which session?")
	shot(v, "sessions")
	v.typeText("\x1b")
	v.waitIdle("ask anything")
	v.typeText("/model\r")
	v.waitIdle("choose a model")
	shot(v, "models")
}
