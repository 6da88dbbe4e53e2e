//go:build unix

package acp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/ostest"
)

// TestEditorWritesKeepHardLinks: through magi-code acp, write_file and
// edit_file hand their content to the editor (fs/write_text_file), which
// may write the file in place, as this one does (os.WriteFile truncates
// and writes the inode the path names). A workspace file hard-linked to a
// file outside (pnpm links its store into node_modules) first gets an
// inode of its own, with its old content, so the editor's write changes
// only the workspace's name: the file outside keeps its content, the
// workspace file gets the new one.
func TestEditorWritesKeepHardLinks(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "auto", Responses: [][]clienttest.Step{
		response(clienttest.ToolCall("write_file", map[string]any{"path": "w.txt", "content": "new\n"})),
		response(clienttest.ToolCall("edit_file", map[string]any{"path": "e.txt", "old": "STORE", "new": "EDITED"})),
		response(text("done")),
	}})
	outside := ostest.OutsideTemp(t)
	for _, name := range []string{"w.txt", "e.txt"} {
		store := filepath.Join(outside, name)
		if err := os.WriteFile(store, []byte("STORE-ORIGINAL\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(store, filepath.Join(ws.Cwd, name)); err != nil {
			t.Skip("no hard links here:", err)
		}
	}
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	writes := 0
	resp, _ := a.until(a.prompt(sid, "go"), diskEditor(t, a, &writes))
	if stopReason(t, resp) != "end_turn" {
		t.Fatal(resp.raw)
	}
	if writes != 2 {
		t.Errorf("%d fs/write_text_file calls; want 2 (the editor still writes)", writes)
	}
	for name, want := range map[string]string{"w.txt": "new\n", "e.txt": "EDITED-ORIGINAL\n"} {
		if b, _ := os.ReadFile(filepath.Join(outside, name)); string(b) != "STORE-ORIGINAL\n" {
			t.Errorf("the file outside linked to %s became %q; want it untouched", name, b)
		}
		if b, _ := os.ReadFile(filepath.Join(ws.Cwd, name)); string(b) != want {
			t.Errorf("workspace %s = %q; want %q", name, b, want)
		}
	}
}
