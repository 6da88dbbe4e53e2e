//go:build unix

package mission

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// /status shows the selection, the approval mode from the settings, the
// sandbox and the session, at 80 and 30 columns.
func TestStatusCommand(t *testing.T) {
	for _, cols := range []int{80, 30} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "auto"})
			v := startVT(t, ws, cols, 24)
			v.waitScreen("fixture-model")
			v.typeText("/status\r")
			v.waitIdle("fixture-model")
			v.waitWords("none reported yet")
			// Wrapped at 30 columns: compared without spaces.
			all := strings.Join(strings.Fields(strings.Join(v.all(), "")), "")
			for _, want := range []string{"approvalmodeauto", "modelfixture-model", "sandbox", "session", "tokensnonereportedyet"} {
				if !strings.Contains(all, want) {
					t.Fatalf("/status lacks %q:\n%s", want, v.dump())
				}
			}
		})
	}
}
