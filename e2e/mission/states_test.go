//go:build unix

package mission

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client/clienttest"
)

// With the / menu open during a turn, Esc closes the menu and the turn
// runs on; a second Esc cancels it. At 80x24 and 30x24.
func TestEscClosesTheMenuBeforeTheTurn(t *testing.T) {
	for _, cols := range []int{80, 30} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Text("working on it"), clienttest.SleepMs(600_000)),
			}})
			v := startVT(t, ws, cols, 24)
			v.waitScreen("fixture-model")
			v.typeText("take your time\r")
			v.waitScreen("working on it")
			v.typeText("/")
			v.waitScreen("/resume")
			v.typeText("\x1b")
			v.waitScreen("› /")
			deadline := time.Now().Add(clienttest.HangGuard)
			for s := strings.Join(v.screen(), "\n"); strings.Contains(s, "/resume") && !strings.Contains(s, "cancelling") && time.Now().Before(deadline); s = strings.Join(v.screen(), "\n") {
				time.Sleep(20 * time.Millisecond)
			}
			if s := strings.Join(v.screen(), "\n"); strings.Contains(s, "cancelling") || strings.Contains(s, "/resume") {
				t.Fatalf("Esc did not close only the menu:\n%s", v.dump())
			}
			v.typeText("\x1b")
			v.waitIdle("turn cancelled")
		})
	}
}

// A prompt typed after the session failed to open is refused in words
// and stays in the input.
func TestPromptAfterAFailedOpenStays(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	v := startVT(t, ws, 80, 24, "resume", "0000dead")
	v.waitWords("resume:")
	v.waitScreen("fixture-model")
	v.typeText("hello there\r")
	v.waitWords("not sent: no session is open")
	v.waitIdle("› hello there")
	if strings.Contains(v.flat(), "you› hello there") {
		t.Fatalf("the prompt looks sent:\n%s", v.dump())
	}
}

// /model during a turn: when the turn ends the app restarts the backend
// with the new selection and reopens the session, and stays (it once
// exited 1). At 80x24 and 30x24.
func TestModelDuringATurnRestartsAfterIt(t *testing.T) {
	for _, cols := range []int{80, 30} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Text("working on it"), clienttest.SleepMs(1500), clienttest.Text(" done-now")),
			}})
			v := startVT(t, ws, cols, 24)
			v.waitScreen("fixture-model")
			v.typeText("take your time\r")
			v.waitScreen("working on it")
			v.typeText("/model fixture fixture-model-2\r")
			v.waitWords("the backend restarts with it when this turn ends")
			v.waitWords("turn completed")
			v.waitWords("backend restarted")
			// The new backend takes a turn (the fixture's script starts over).
			v.typeText("next question\r")
			deadline := time.Now().Add(clienttest.HangGuard)
			for strings.Count(v.flat(), "turn completed") < 2 {
				if time.Now().After(deadline) {
					t.Fatalf("no turn after the restart:\n%s", v.dump())
				}
				time.Sleep(20 * time.Millisecond)
			}
			v.quit()
		})
	}
}
