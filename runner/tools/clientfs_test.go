//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// editorFS is an ACP client's file system as an editor implements it: by
// path, following every symlink (os.ReadFile, os.WriteFile). It records
// the paths it was handed, and fails on a special file (a FIFO would block
// it) rather than hang the test.
type editorFS struct{ reads, writes []string }

func (e *editorFS) ReadTextFile(_ context.Context, p string) (string, error) {
	e.reads = append(e.reads, p)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return "", errNotRegular
	}
	b, err := os.ReadFile(p)
	return string(b), err
}

func (e *editorFS) WriteTextFile(_ context.Context, p, content string) (bool, error) {
	e.writes = append(e.writes, p)
	if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() {
		return true, errNotRegular
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return true, err
	}
	return true, os.WriteFile(p, []byte(content), 0o644)
}

// TestClientFSPaths: an editor reading and writing for the file tools is
// handed only paths the tools would open themselves. A ".." after a missing
// component ("missing/../link") once resolved lexically to the link itself,
// unresolved, which the editor followed out of the workspace, to a
// credential file or into /proc; a FIFO would have hung its read. Each is
// refused and the canaries outside stay unread and unchanged; a plain
// file goes through the editor (the control).
func TestClientFSPaths(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{
		"work/a.txt":             "inside\n",
		"outside/secret.txt":     "CANARY outside\n",
		"home/.aws/credentials":  "CANARY credentials\n",
		"work/sub/keep.txt":      "kept\n",
		"work/sub/deeper/k2.txt": "kept\n",
	}, map[string]string{
		"work/link":    filepath.Join(root, "outside", "secret.txt"),
		"work/creds":   filepath.Join(root, "home", ".aws", "credentials"),
		"work/environ": "/proc/self/environ",
		"work/outdir":  filepath.Join(root, "outside"),
	})
	if err := syscall.Mkfifo(filepath.Join(root, "work", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{Cwd: filepath.Join(root, "work")}
	set := Builtin(o)
	run := func(e *editorFS, tool string, args map[string]any) Result {
		t.Helper()
		tl, _ := set.Get(tool)
		b, _ := json.Marshal(args)
		return tl.Run(WithClientFS(context.Background(), e), b)
	}
	escapes := []string{
		"missing/../link", "missing/../creds", "missing/../environ", "missing/../outdir/secret.txt",
		"sub/missing/../../link", "missing/x/../../link", "missing/./../link", "missing//../link",
		"ROOT/work/missing/../link", "fifo", "missing/../fifo",
	}
	for _, p := range escapes {
		p = strings.ReplaceAll(p, "ROOT", root)
		e := &editorFS{}
		if res := run(e, "read_file", map[string]any{"path": p}); !res.IsError || strings.Contains(res.Text, "CANARY") {
			t.Errorf("read_file %s through the editor = %+v", p, res)
		}
		if res := run(e, "edit_file", map[string]any{"path": p, "old": "CANARY", "new": "EDITED"}); !res.IsError {
			t.Errorf("edit_file %s through the editor = %+v", p, res)
		}
		if res := run(e, "write_file", map[string]any{"path": p, "content": "WRITTEN"}); !res.IsError {
			t.Errorf("write_file %s through the editor = %+v", p, res)
		}
		if len(e.reads)+len(e.writes) > 0 {
			t.Errorf("%s: the editor was handed %q and %q", p, e.reads, e.writes)
		}
	}
	for name, want := range map[string]string{"outside/secret.txt": "CANARY outside\n", "home/.aws/credentials": "CANARY credentials\n"} {
		if b, _ := os.ReadFile(filepath.Join(root, name)); string(b) != want {
			t.Errorf("%s is now %q", name, b)
		}
	}

	// The control: plain paths go through the editor, new ones too.
	e := &editorFS{}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "a.txt"}},
		{"edit_file", map[string]any{"path": "sub/../a.txt", "old": "inside", "new": "edited"}},
		{"write_file", map[string]any{"path": "sub/new/dir/n.txt", "content": "new"}},
		{"write_file", map[string]any{"path": "n2.txt", "content": "new"}},
	} {
		if res := run(e, c.tool, c.args); res.IsError {
			t.Errorf("%s %v = %+v", c.tool, c.args, res)
		}
	}
	want := []string{filepath.Join(root, "work", "a.txt"), filepath.Join(root, "work", "a.txt")}
	wantW := []string{filepath.Join(root, "work", "a.txt"), filepath.Join(root, "work", "sub", "new", "dir", "n.txt"), filepath.Join(root, "work", "n2.txt")}
	if !slices.Equal(e.reads, want) || !slices.Equal(e.writes, wantW) {
		t.Errorf("the editor read %q and wrote %q; want %q and %q", e.reads, e.writes, want, wantW)
	}
}

// TestResolveMissingDotDot: a missing component is a directory the write
// will create; a ".." leaves it and the existing components after it are
// resolved again: "missing/../link" is where the link leads (outside
// here), never the link itself.
func TestResolveMissingDotDot(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{"work/a.txt": "a", "outside/s.txt": "s"}, map[string]string{
		"work/link": filepath.Join(root, "outside", "s.txt"), "work/dirlink": "../outside", "work/proclink": "/proc/self",
	})
	o := Options{Cwd: filepath.Join(root, "work")}
	for p, want := range map[string]string{
		"missing/../link": "outside/s.txt", "m/n/../../link": "outside/s.txt", "missing/./../link": "outside/s.txt",
		"missing//../dirlink/s.txt": "outside/s.txt", "m/../n/../dirlink/new/../s.txt": "outside/s.txt",
		"missing/../a.txt": "work/a.txt", "missing/x/y.txt": "work/missing/x/y.txt", "./missing/./y.txt": "work/missing/y.txt",
		"m/x/../y/../../link": "outside/s.txt", "a.txt/../link": "outside/s.txt", "link": "outside/s.txt",
		"missing/../../work/link": "outside/s.txt", "dirlink/missing/../s.txt": "outside/s.txt",
	} {
		if c := o.readTarget(p, false); c.real != filepath.Join(root, want) || c.outside != !strings.HasPrefix(want, "work/") {
			t.Errorf("readTarget(%s) = %+v; want %s", p, c, want)
		}
	}
	for _, p := range []string{"missing/../link", "m/n/../../dirlink/x.txt", "missing/../dirlink/new/f.txt"} {
		if real, reason, _ := o.writeTarget(p); real != "" || reason != RefusedOutsideCwd {
			t.Errorf("writeTarget(%s) = %q %q; want refused outside", p, real, reason)
		}
	}
	for _, p := range []string{"missing/../proclink/environ", "missing/../../../../../../../../../../proc/self/environ"} {
		if c := o.readTarget(p, false); c.refuse != RefusedProcess {
			t.Errorf("readTarget(%s) = %+v; want refused (process)", p, c)
		}
	}
}

// TestClientChecksOwnOpen: the client is handed a path only when the
// tools' own open of it holds at that moment, whatever was checked
// before (a component swapped for a link after the check): clientRead
// and clientTarget refuse a link on the way, a FIFO, a file on procfs;
// clientTarget also a new file below a link or in /proc.
func TestClientChecksOwnOpen(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{"work/a.txt": "a", "outside/s.txt": "CANARY"}, map[string]string{
		"work/link": filepath.Join(root, "outside", "s.txt"), "work/dirlink": filepath.Join(root, "outside"),
	})
	if err := syscall.Mkfifo(filepath.Join(root, "work", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := filepath.Join(root, "work")
	bad := []string{w + "/link", w + "/dirlink/s.txt", w + "/fifo", "/proc/self/environ", "/proc/self/status"}
	for _, p := range bad {
		e := &editorFS{}
		if text, stop := clientRead(context.Background(), e, "read_file", p); stop == nil || !stop.IsError || text != "" || len(e.reads) > 0 {
			t.Errorf("clientRead(%s) = %q %+v; the editor read %q", p, text, stop, e.reads)
		}
	}
	proc := "/proc/" + strconv.Itoa(os.Getpid())
	for _, p := range append(bad, w+"/a.txt/x", w+"/dirlink/new.txt", w+"/dirlink/new/dir/f.txt", proc+"/new", proc+"/fd/new/x", proc+"/environ") {
		if clientTarget(p) {
			t.Errorf("clientTarget(%s) = true", p)
		}
	}
	for _, p := range []string{w + "/a.txt", w + "/new.txt", w + "/new/dir/f.txt"} {
		if !clientTarget(p) {
			t.Errorf("clientTarget(%s) = false", p)
		}
	}
	e := &editorFS{}
	if text, stop := clientRead(context.Background(), e, "read_file", w+"/a.txt"); stop != nil || text != "a" {
		t.Errorf("clientRead(a.txt) = %q %+v", text, stop)
	}
}

// TestLinkedCredentialStores: a credential store of the home that is a
// symbolic link (~/.ssh -> Dropbox/ssh, ~/.config -> dotfiles/config) is
// protected where it leads, whatever the names there: read_file, grep and
// list_dir refuse it without asking, in the workspace (a dotfiles
// checkout) and outside it, and grep's walk skips it. Without Home only
// names decide (the control).
func TestLinkedCredentialStores(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{
		"Dropbox/ssh/server-key":          "CANARY ssh\n",
		"dotfiles/config/gh/tokens.yml":   "CANARY gh\n",
		"dotfiles/notes.txt":              "plain\n",
		"home/.bashrc":                    "plain\n",
		"dotfiles/config/other/plain.txt": "plain\n",
	}, map[string]string{
		"home/.ssh":    filepath.Join(root, "Dropbox", "ssh"),
		"home/.config": "../dotfiles/config",
	})
	o := Options{Cwd: filepath.Join(root, "dotfiles"), Home: filepath.Join(root, "home"), AskOutsideReads: true}
	set := Builtin(o)
	for _, c := range []struct{ tool, path string }{
		{"read_file", "config/gh/tokens.yml"}, {"grep", "config/gh"}, {"list_dir", "config/gh"},
		{"read_file", "ROOT/Dropbox/ssh/server-key"}, {"grep", "ROOT/Dropbox/ssh"}, {"list_dir", "ROOT/Dropbox/ssh"},
		{"read_file", "ROOT/Dropbox/./ssh/server-key"}, {"grep", "ROOT/Dropbox/ssh/../ssh"},
	} {
		tl, _ := set.Get(c.tool)
		args := readArgs(c.tool, strings.ReplaceAll(c.path, "ROOT", root))
		force, _ := tl.(ForceApprover).ForceApproval(args)
		res := tl.Run(WithApproved(context.Background(), c.tool, args), args)
		if force || res.Text != RefusedCredentialRead {
			t.Errorf("%s(%s) = asks %v, %+v; want refused without asking", c.tool, c.path, force, res)
		}
	}
	// The walk of the workspace skips the linked store, not the rest.
	grep := json.RawMessage(`{"pattern":"CANARY|plain","path":"."}`)
	tl, _ := set.Get("grep")
	if res := tl.Run(context.Background(), grep); strings.Contains(res.Text, "CANARY") || !strings.Contains(res.Text, "plain.txt") {
		t.Errorf("grep . = %q", res.Text)
	}
	// Without Home, names alone decide: the same files are read.
	o.Home = ""
	set = Builtin(o)
	tl, _ = set.Get("grep")
	if res := tl.Run(context.Background(), grep); !strings.Contains(res.Text, "CANARY gh") {
		t.Errorf("without Home, grep . = %q", res.Text)
	}
	rf, _ := set.Get("read_file")
	args := readArgs("read_file", filepath.Join(root, "Dropbox", "ssh", "server-key"))
	if res := rf.Run(WithApproved(context.Background(), "read_file", args), args); !strings.Contains(res.Text, "CANARY ssh") {
		t.Errorf("without Home, read_file server-key = %+v", res)
	}
}

// TestMCHomeLinks: a file MC_HOME links to (settings.toml, auth.json kept
// in a dotfiles checkout) is MC_HOME's: refused to read and to write by
// its own path, in the workspace or out, and skipped by grep's walk;
// MCHomeLinks lists it, resolved, and nothing that is not a link.
func TestMCHomeLinks(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{
		"dotfiles/magi/settings.toml": "CANARY settings\n",
		"dotfiles/magi/auth.json":     "CANARY auth\n",
		"dotfiles/skills/s/SKILL.md":  "CANARY skill\n",
		"dotfiles/notes.txt":          "plain\n",
		"mc/plain.md":                 "not a link\n",
	}, map[string]string{
		"mc/settings.toml": "../dotfiles/magi/settings.toml",
		"mc/skills":        filepath.Join(root, "dotfiles", "skills"),
		"mclink":           "mc",
	})
	got := MCHomeLinks(filepath.Join(root, "mclink"))
	want := []string{filepath.Join(root, "dotfiles", "magi", "settings.toml"), filepath.Join(root, "dotfiles", "skills")}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("MCHomeLinks = %q; want %q", got, want)
	}
	o := Options{Cwd: filepath.Join(root, "dotfiles"), MCHome: filepath.Join(root, "mclink"), AskOutsideReads: true}
	set := Builtin(o)
	for _, c := range []struct{ tool, path string }{
		{"read_file", "magi/settings.toml"}, {"grep", "magi/settings.toml"}, {"read_file", "ROOT/dotfiles/magi/settings.toml"},
		{"grep", "skills"}, {"list_dir", "skills"}, {"read_file", "skills/s/SKILL.md"},
	} {
		tl, _ := set.Get(c.tool)
		args := readArgs(c.tool, strings.ReplaceAll(c.path, "ROOT", root))
		force, _ := tl.(ForceApprover).ForceApproval(args)
		if res := tl.Run(context.Background(), args); force || res.Text != RefusedCredentialRead {
			t.Errorf("%s(%s) = asks %v, %+v; want refused without asking", c.tool, c.path, force, res)
		}
	}
	wf, _ := set.Get("write_file")
	if res := wf.Run(context.Background(), json.RawMessage(`{"path":"magi/settings.toml","content":"x"}`)); res.Text != RefusedCredentialWrite {
		t.Errorf("write_file magi/settings.toml = %+v", res)
	}
	grep := json.RawMessage(`{"pattern":"CANARY|plain","path":"."}`)
	tl, _ := set.Get("grep")
	// auth.json is refused by its name; settings.toml and the skill only
	// because MC_HOME links to them.
	if res := tl.Run(context.Background(), grep); strings.Contains(res.Text, "CANARY") || !strings.Contains(res.Text, "notes.txt") {
		t.Errorf("grep . = %q", res.Text)
	}
}
