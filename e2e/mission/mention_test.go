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

// Tab completes an @path mention from the workspace: a unique match
// whole, several listed under the input; a path out of the workspace (by
// .., or through a link) completes nothing. The completed prompt is sent
// as typed. At 80 and at 30 columns.
func TestMentionCompletion(t *testing.T) {
	for _, size := range []struct{ cols, rows int }{{80, 24}, {30, 20}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
			outside := t.TempDir()
			for _, f := range []string{filepath.Join(ws.Cwd, "docs", "guide.md"), filepath.Join(ws.Cwd, "docs", "gallery.md"), filepath.Join(outside, "secret-notes.txt")} {
				if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(f, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(outside, filepath.Join(ws.Cwd, "out")); err != nil {
				t.Fatal(err)
			}
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("fixture-model")
			v.typeText("read @do")
			v.waitScreen("read @do")
			v.typeText("\t")
			v.waitScreen("read @docs/")
			v.typeText("g\t")
			v.waitScreen("  gallery.md")
			v.waitScreen("  guide.md")
			v.typeText("u\t")
			v.waitScreen("read @docs/guide.md")
			v.typeText("\x15@out/se\t")
			v.waitIdle("› @out/se")
			v.typeText("\x15@../se\t")
			v.waitIdle("(no completion")
			if strings.Contains(v.flat(), "secret-notes") {
				t.Fatalf("a file outside the workspace was offered:\n%s", v.dump())
			}
			v.typeText("\x15")
			v.typeText("@docs/gu\t")
			v.waitScreen("@docs/guide.md")
			v.typeText("\r")
			v.waitWords("echo: @docs/guide.md")
		})
	}
}
