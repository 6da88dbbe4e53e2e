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

// /logout removes the stored key of the provider in use, as magi-code
// logout does (the other provider's key stays), and restarts the backend,
// which then has no credential; a second /logout says nothing is stored.
// At 80 and at 30 columns.
func TestLogoutRemovesTheStoredKey(t *testing.T) {
	const openaiKey, anthropicKey = "sk-logout-test-0123456789abcdefghij", "sk-ant-logout-test-0123456789abcdef"
	for _, size := range []struct{ cols, rows int }{{80, 24}, {30, 20}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			ws := clienttest.NewWorkspace(t, "provider = \"openai\"\nmodel = \"gpt-4.1\"\n")
			for provider, key := range map[string]string{"openai": openaiKey, "anthropic": anthropicKey} {
				login := start(t, ws, "login", provider)
				login.waitFor("API key (not shown)")
				login.typeText(key + "\r")
				login.waitFor("stored the " + provider + " API key")
				if code := login.exit(); code != 0 {
					t.Fatalf("login %s exit %d", provider, code)
				}
			}
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("gpt-4.1")
			v.waitWords("ready")
			v.typeText("/logout\r")
			v.waitWords("removed the stored openai credential")
			v.waitWords("not ready: no usable credential")
			auth := readFile(t, filepath.Join(ws.Home, "auth.json"))
			if strings.Contains(auth, openaiKey) || !strings.Contains(auth, anthropicKey) {
				t.Fatalf("auth.json after /logout:\n%s", auth)
			}
			if st, err := os.Stat(filepath.Join(ws.Home, "auth.json")); err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("auth.json mode %v, %v", st.Mode().Perm(), err)
			}
			v.typeText("/logout openai\r")
			v.waitWords("logout: no stored credential for openai")
			v.typeText("/logout nonesuch\r")
			v.waitWords("logout: unknown provider nonesuch")
			if strings.Contains(v.flat(), openaiKey[:12]) {
				t.Fatalf("the key reached the screen:\n%s", v.dump())
			}
		})
	}
}
