//go:build unix

package mission

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client/clienttest"
)

// A settings file with broken TOML is named at start, with the line and
// column where it breaks, and the app says it is not ready; at 80 and 30
// columns.
func TestSettingsErrorNamesTheFile(t *testing.T) {
	for _, cols := range []int{80, 30} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
			p := filepath.Join(ws.Home, "settings.toml")
			ws.WriteFile(t, p, "provider = \"fixture\"\nbroken = = 1\n")
			v := startVT(t, ws, cols, 24)
			v.waitWords("not ready")
			v.waitIdle("›")
			flat := strings.ReplaceAll(v.flat(), " ", "")
			if want := strings.ReplaceAll(p+": invalid TOML at line 2, column 10", " ", ""); !strings.Contains(flat, want) {
				t.Fatalf("the screen does not name the file and the place (%q):\n%s", want, v.dump())
			}
			v.quit()
		})
	}
}

// A blank --prompt is a usage error: exit 2, the app never opens.
func TestBlankPromptExits2(t *testing.T) {
	for _, text := range []string{"", "  \t "} {
		ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
		v := startVT(t, ws, 80, 24, "--prompt", text)
		if code := v.exitCode(); code != 2 {
			t.Fatalf("--prompt %q: exit %d:\n%s", text, code, v.dump())
		}
		if strings.Contains(v.flat(), "ask anything") {
			t.Fatalf("--prompt %q opened the app:\n%s", text, v.dump())
		}
	}
}

// Ctrl-Z suspends the app: under a shell with job control the job stops
// (the shell says so and goes on), and fg brings it back with the draft.
func TestCtrlZSuspends(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash for job control")
	}
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", `set -m; "$0"; echo "job-ended-or-stopped:$?"; fg`, clienttest.Binary(t))
	v := startVTCmd(t, ws, cmd, nil, 80, 24)
	v.waitIdle("fixture-model")
	v.typeText("draft")
	v.waitScreen("draft")
	v.typeText("\x1a")                      // Ctrl-Z
	v.waitWords("job-ended-or-stopped:148") // 128+SIGTSTP: stopped, not ended
	v.waitIdle("› draft")
	v.typeText(" more\r")
	v.waitWords("you› draft more")
	v.waitIdle("turn completed")
}

// The /model picker filters as the person types: Enter stores the model
// the typed words chose, not the row highlighted before typing; at 80 and
// 30 columns.
func TestModelPickerFilters(t *testing.T) {
	for _, cols := range []int{80, 30} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
			v := startVT(t, ws, cols, 24)
			v.waitIdle("fixture-model")
			v.typeText("/model\r")
			v.waitWords("choose a model")
			v.typeText("haiku")
			v.waitIdle("filter: haiku")
			if strings.Contains(strings.Join(v.screen(), "\n"), "gpt") {
				t.Fatalf("the filter still shows other models:\n%s", v.dump())
			}
			v.typeText("\r")
			v.waitWords("stored provider anthropic")
			_, provider, model := settingsLines(t, ws)
			if provider != `provider = "anthropic"` || !strings.Contains(model, "haiku") {
				t.Fatalf("stored %q %q; want an anthropic haiku model", provider, model)
			}
			v.quit()
		})
	}
}

// Ctrl-C on an empty input leaves only when pressed twice in a row: the
// first says so and the app stays; a key in between starts over; at 80
// and 30 columns.
func TestCtrlCOnAnEmptyInputAsksTwice(t *testing.T) {
	for _, cols := range []int{80, 30} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
			v := startVT(t, ws, cols, 24)
			v.waitIdle("fixture-model")
			stays := func() {
				t.Helper()
				v.waitIdle("Ctrl-C again leaves")
				select {
				case <-v.done:
					t.Fatalf("one Ctrl-C on an empty input left the app:\n%s", v.dump())
				default:
				}
			}
			v.typeText("\x03")
			stays()
			v.typeText("x\x7f") // a key in between: the next Ctrl-C asks again
			v.waitIdle("›")
			if strings.Contains(strings.Join(v.screen(), "\n"), "Ctrl-C again leaves") {
				t.Fatalf("the hint stayed after another key:\n%s", v.dump())
			}
			v.typeText("\x03")
			stays()
			v.typeText("\x03")
			if code := v.exitCode(); code != 0 {
				t.Fatalf("exit %d after Ctrl-C twice:\n%s", code, v.dump())
			}
		})
	}
}

// A reasoning summary full of control sequences (shown only in a resumed
// session's history) is shown with them visible, and none reaches the
// terminal as a control sequence.
func TestResumedReasoningNeverDrivesTheTerminal(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		clienttest.Response(clienttest.Step{"reasoning_summary": "thought-start " + forgedText()}, clienttest.Text("answer-done")),
	}})
	first := startVT(t, ws, 80, 24, "--prompt", "think")
	if code := first.exitCode(); code != 0 {
		t.Fatalf("first turn: exit %d:\n%s", code, first.dump())
	}
	r := startVT(t, ws, 80, 24, "--continue")
	r.waitIdle("answer-done")
	all := strings.Join(strings.Fields(strings.Join(r.all(), "")), "")
	if !strings.Contains(all, "thinking:thought-start") || !strings.Contains(all, "␛]0;FORGED-TITLE␇") {
		t.Fatalf("the resumed reasoning is not shown with its controls visible:\n%s", r.dump())
	}
	r.quit()
	assertNoForgery(t, r)
}

// /login during a turn: the key is stored at once, and when the turn ends
// the app restarts the backend and stays (it once exited 1), and takes
// the next turn.
func TestLoginDuringATurnRestartsAfterIt(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		clienttest.Response(clienttest.Text("working on it"), clienttest.SleepMs(1500), clienttest.Text(" done-now")),
	}})
	v := startVT(t, ws, 80, 24)
	v.waitScreen("fixture-model")
	v.typeText("take your time\r")
	v.waitScreen("working on it")
	v.typeText("/login openai\r")
	v.waitWords("API key")
	v.typeText("sk-test-0123456789abcdefghijklmnop\r")
	v.waitWords("the backend restarts with it when this turn ends")
	v.waitWords("turn completed")
	v.waitWords("backend restarted")
	v.typeText("next question\r")
	deadline := time.Now().Add(clienttest.HangGuard)
	for strings.Count(v.flat(), "turn completed") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no turn after the restart:\n%s", v.dump())
		}
		time.Sleep(20 * time.Millisecond)
	}
	v.quit()
}

// A broken agent profile: the app is not ready and says which command
// names the file and the problem, and that command does.
func TestProfileErrorSaysWhereToLook(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings+"agent = \"rev\"\n")
	ws.WriteFile(t, filepath.Join(ws.Home, "agents", "rev.md"), "---\nname: rev\nmode: [primary\n---\nbody\n")
	v := startVT(t, ws, 80, 24)
	v.waitWords("not ready: the selected agent profile is invalid or missing; `magi-code config show` names the file and the problem")
	v.quit()
	cmd := exec.Command(clienttest.Binary(t), "config", "show")
	cmd.Dir, cmd.Env = ws.Cwd, ws.Env()
	out, _ := cmd.Output()
	if !strings.Contains(string(out), "rev.md:2: profile invalid") {
		t.Fatalf("config show does not name the profile's file and line:\n%s", out)
	}
}
