//go:build unix

package config

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestBindResolution is the table of what an approval binds: which paths a
// definition names resolve to files of the writable roots, how, and what
// refuses the approval.
func TestBindResolution(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "proj")
	out := filepath.Join(base, "outside")
	old := filepath.Join(base, "proj-old") // starts with the workspace's name
	files := map[string]string{
		"proj/tools/mcp.sh":       "echo mcp",
		"proj/bin/server":         "#!/bin/sh\n",
		"proj/pathbin/mytool":     "#!/bin/sh\nmy",
		"proj/x.json":             "{}",
		"proj/pkg/__init__.py":    "",
		"proj/srvmod.py":          "import sys",
		"outside/real.sh":         "echo outside",
		"outside/bin/tool":        "#!/bin/sh\nout",
		"outside/bin/mytool":      "#!/bin/sh\nshadow",
		"proj-old/x.sh":           "echo old",
		"proj/pathbin/notexec.sh": "echo",
	}
	for rel, text := range files {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.Contains(rel, "bin/") && !strings.HasSuffix(rel, "notexec.sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(out, "real.sh"), filepath.Join(ws, "out-link")))
	must(os.Symlink(filepath.Join(ws, "tools", "mcp.sh"), filepath.Join(ws, "in-link")))
	must(os.Symlink(filepath.Join(ws, "nothing"), filepath.Join(ws, "dangling")))
	must(os.Symlink(ws, filepath.Join(out, "ws-link")))
	must(syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644))
	big, err := os.Create(filepath.Join(ws, "big"))
	must(err)
	must(big.Truncate(MaxBoundFileBytes + 1)) // sparse: cheap to make, read whole
	big.Close()
	exact, err := os.Create(filepath.Join(ws, "exact"))
	must(err)
	must(exact.Truncate(MaxBoundFileBytes))
	exact.Close()
	var many []string
	for i := range MaxBoundFiles + 1 {
		p := filepath.Join(ws, "many", fmt.Sprint(i))
		must(os.MkdirAll(filepath.Dir(p), 0o755))
		must(os.WriteFile(p, nil, 0o644))
		many = append(many, p)
	}

	b := binder{roots: []string{ws}, path: "", dir: ws}
	f := func(rel string) BoundFile {
		return BoundFile{Path: filepath.Join(ws, rel), SHA256: sha(files["proj/"+rel])}
	}
	tests := []struct {
		name    string
		command string
		args    []string
		env     map[string]string
		dir     string
		path    string
		want    []BoundFile
		unbound []string
		err     error
	}{
		{name: "relative command", command: "./bin/server", want: []BoundFile{f("bin/server")}},
		{name: "relative command, bare dir", command: "bin/server", want: []BoundFile{f("bin/server")}},
		{name: "relative to the server's cwd", command: "./mcp.sh", dir: filepath.Join(ws, "tools"), want: []BoundFile{f("tools/mcp.sh")}},
		{name: "absolute command inside", command: filepath.Join(ws, "bin", "server"), want: []BoundFile{f("bin/server")}},
		{name: "PATH entry inside the workspace", command: "mytool", path: "relative/bin:" + filepath.Join(ws, "pathbin"), want: []BoundFile{f("pathbin/mytool")}},
		{name: "PATH: first match wins, outside", command: "mytool", path: filepath.Join(out, "bin") + ":" + filepath.Join(ws, "pathbin")},
		{name: "PATH: relative entry skipped", command: "mytool", path: relToWd(t, filepath.Join(ws, "pathbin")), dir: ws},
		{name: "PATH: not executable skipped", command: "notexec.sh", path: filepath.Join(ws, "pathbin")},
		{name: "PATH entry outside", command: "tool", path: filepath.Join(out, "bin")},
		{name: "interpreter and script", command: "sh", args: []string{"tools/mcp.sh"}, want: []BoundFile{f("tools/mcp.sh")}},
		{name: "--flag=path", command: "node", args: []string{"--config=./x.json"}, want: []BoundFile{f("x.json")}},
		{name: "-x=path", command: "node", args: []string{"-c=x.json"}, want: []BoundFile{f("x.json")}},
		{name: "flag then path", command: "node", args: []string{"--config", "x.json"}, want: []BoundFile{f("x.json")}},
		{name: "same file twice", command: "sh", args: []string{"tools/mcp.sh", "./tools/../tools/mcp.sh"}, want: []BoundFile{f("tools/mcp.sh")}},
		{name: "sorted by path", command: "./tools/mcp.sh", args: []string{"x.json", "bin/server"}, want: []BoundFile{f("bin/server"), f("tools/mcp.sh"), f("x.json")}},
		{name: "a shell's -c script", command: "sh", args: []string{"-c", "cd pkg && exec sh tools/mcp.sh;node --config=x.json"},
			want: []BoundFile{f("tools/mcp.sh"), f("x.json")}, unbound: []string{filepath.Join(ws, "pkg")}},
		{name: "quoted word", command: "bash", args: []string{"-lc", "'./bin/server'"}, want: []BoundFile{f("bin/server")}},
		{name: "file in an env value", command: "node", env: map[string]string{"NODE_OPTIONS": "--require ./x.json", "A": "FOO=tools/mcp.sh"},
			want: []BoundFile{f("tools/mcp.sh"), f("x.json")}},
		{name: "search path in env", command: "python3", env: map[string]string{"PYTHONPATH": "pkg:/usr/lib"}, unbound: []string{filepath.Join(ws, "pkg")}},
		{name: "directory arg", command: "node", args: []string{"."}, unbound: []string{ws}},
		{name: "python -m package directory", command: "python3", args: []string{"-m", "pkg"}, unbound: []string{filepath.Join(ws, "pkg")}},
		{name: "python -m module.py", command: "python3", args: []string{"-u", "-m", "srvmod"}, want: []BoundFile{f("srvmod.py")}},
		{name: "python -mmodule.py", command: "python3", args: []string{"-msrvmod", "--port=1"}, want: []BoundFile{f("srvmod.py")}},
		{name: "python -m package.sub", command: "python3", args: []string{"-m", "pkg.server"}, unbound: []string{filepath.Join(ws, "pkg")}},
		{name: "python -m of a missing module", command: "python3", args: []string{"-m", "http.server"}},
		{name: "--root=directory", command: "srv", args: []string{"--root=pkg"}, unbound: []string{filepath.Join(ws, "pkg")}},
		{name: "symlink inside, to inside", command: "sh", args: []string{"in-link"},
			want: []BoundFile{{Path: filepath.Join(ws, "in-link"), Target: filepath.Join(ws, "tools", "mcp.sh"), SHA256: sha("echo mcp")}}},
		{name: "symlink out: the link is bound, not what it leads to", command: "sh", args: []string{"out-link"},
			want: []BoundFile{{Path: filepath.Join(ws, "out-link"), Target: filepath.Join(out, "real.sh")}}},
		{name: "outside path leading in", command: "sh", args: []string{filepath.Join(out, "ws-link", "x.json")},
			want: []BoundFile{{Path: filepath.Join(out, "ws-link", "x.json"), Target: filepath.Join(ws, "x.json"), SHA256: sha("{}")}}},
		{name: "missing file", command: "sh", args: []string{"nope.sh", "./bin/nope"}},
		{name: "dangling link", command: "sh", args: []string{"dangling"}},
		{name: "fifo is not a file", command: "sh", args: []string{"fifo"}},
		{name: "outside the roots", command: "sh", args: []string{filepath.Join(out, "real.sh")}},
		{name: "sibling that starts with the workspace's name", command: "sh", args: []string{filepath.Join(old, "x.sh"), "../proj-old/x.sh"}},
		{name: "exactly the size bound", command: "sh", args: []string{"exact"},
			want: []BoundFile{{Path: filepath.Join(ws, "exact"), SHA256: func() string {
				h := sha256.New()
				h.Write(make([]byte, MaxBoundFileBytes))
				return hex.EncodeToString(h.Sum(nil))
			}()}}},
		{name: "over-size", command: "sh", args: []string{"big"}, err: errBindTooLarge},
		{name: "too many files", command: "sh", args: many, err: errBindTooMany},
		{name: "exactly the count bound", command: "sh", args: many[:MaxBoundFiles]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := b
			b.path = tt.path
			got, err := b.bind(tt.command, tt.args, tt.env, tt.dir)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("bind = %+v, %v; want %v", got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("bind: %v", err)
			}
			if tt.name == "exactly the count bound" {
				if len(got.Files) != MaxBoundFiles {
					t.Fatalf("bound %d files; want %d", len(got.Files), MaxBoundFiles)
				}
				return
			}
			if !slices.Equal(got.Files, tt.want) {
				t.Errorf("files = %+v\nwant %+v", got.Files, tt.want)
			}
			if !slices.Equal(got.Unbound, tt.unbound) {
				t.Errorf("unbound = %q; want %q", got.Unbound, tt.unbound)
			}
		})
	}
}

// relToWd is p relative to the test's working directory: a relative PATH
// entry that leads to p.
func relToWd(t *testing.T, p string) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, p)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func TestChangedFile(t *testing.T) {
	a := BoundFile{Path: "/w/a.sh", SHA256: sha("a")}
	b := BoundFile{Path: "/w/b.sh", SHA256: sha("b")}
	tests := []struct {
		name          string
		recorded, now []BoundFile
		want          string
	}{
		{"same", []BoundFile{a, b}, []BoundFile{a, b}, ""},
		{"none bound", nil, nil, ""},
		{"contents changed", []BoundFile{a, b}, []BoundFile{a, {Path: b.Path, SHA256: sha("evil")}}, "/w/b.sh"},
		{"became a link", []BoundFile{a}, []BoundFile{{Path: a.Path, Target: "/w/c.sh", SHA256: a.SHA256}}, "/w/a.sh"},
		{"link retargeted", []BoundFile{{Path: a.Path, Target: "/usr/bin/x"}}, []BoundFile{{Path: a.Path, Target: "/usr/bin/y"}}, "/w/a.sh"},
		{"vanished", []BoundFile{a, b}, []BoundFile{a}, "/w/b.sh"},
		{"vanished first", []BoundFile{a, b}, []BoundFile{b}, "/w/a.sh"},
		{"appeared", []BoundFile{a}, []BoundFile{a, b}, "/w/b.sh"},
		{"approved before files were bound", nil, []BoundFile{a}, "/w/a.sh"},
	}
	for _, tt := range tests {
		if got := changedFile(tt.recorded, tt.now); got != tt.want {
			t.Errorf("%s: changedFile = %q; want %q", tt.name, got, tt.want)
		}
	}
}

// TestMCPApprovalBindsFiles: a project server whose script is in the
// workspace starts only while the script is what was approved.
func TestMCPApprovalBindsFiles(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
	w.write(t, "cwd/.magi-code/settings.toml", `
[mcp_servers.script]
command = "sh"
args = ["tools/mcp.sh"]

[mcp_servers.plain]
command = "/bin/true"
`, 0o644)
	w.write(t, "cwd/tools/mcp.sh", "echo approved\n", 0o644)
	script := w.path("cwd/tools/mcp.sh")
	check := func(step string, started, unapproved []string, changed string) {
		t.Helper()
		w.logs = nil
		env := w.env()
		var logs []string
		env.Logf = func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }
		snap, code := Load(t.Context(), env)
		if code != "" {
			t.Fatalf("%s: Load = %q (logs %q)", step, code, logs)
		}
		if got := names(snap.MCPServers); !slices.Equal(got, started) {
			t.Errorf("%s: started %q; want %q", step, got, started)
		}
		if got := names(snap.MCPUnapproved); !slices.Equal(got, unapproved) {
			t.Errorf("%s: unapproved %q; want %q", step, got, unapproved)
		}
		want := "config: MCP server script is not approved: " + changed + " changed since it was approved; run `magi-code mcp approve script` again"
		if got := slices.Contains(logs, want); got != (changed != "") {
			t.Errorf("%s: log %q has %q: %v; want %v", step, logs, want, got, changed != "")
		}
	}
	approve := func(name string) Binding {
		t.Helper()
		b, err := Approve(w.env(), name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if b := approve("script"); !slices.Equal(b.Files, []BoundFile{{Path: script, SHA256: sha("echo approved\n")}}) {
		t.Fatalf("Approve bound %+v", b.Files)
	}
	approve("plain")
	check("approved", []string{"plain", "script"}, nil, "")

	w.write(t, "cwd/tools/mcp.sh", "touch canary\n", 0o644)
	check("rewritten", []string{"plain"}, []string{"script"}, script)
	list, err := ListMCP(w.env())
	if err != nil || !strings.Contains(MCPText(list), "not approved: "+script+" changed since it was approved; run `magi-code mcp approve script` again") {
		t.Errorf("mcp list = %q, %v", MCPText(list), err)
	}
	approve("script")
	check("approved again", []string{"plain", "script"}, nil, "")
	// Re-approving replaced the record: the first contents are not approved
	// any more.
	w.write(t, "cwd/tools/mcp.sh", "echo approved\n", 0o644)
	check("back to the first contents", []string{"plain"}, []string{"script"}, script)
	approve("script")

	if err := os.Remove(script); err != nil {
		t.Fatal(err)
	}
	check("vanished", []string{"plain"}, []string{"script"}, script)
	w.write(t, "cwd/tools/other.sh", "echo approved\n", 0o644)
	if err := os.Symlink("other.sh", script); err != nil {
		t.Fatal(err)
	}
	check("became a link to the same contents", []string{"plain"}, []string{"script"}, script)

	// An approval recorded before files were bound (digest only) approves a
	// server that names no workspace file, not one that does.
	approve("script")
	data, err := os.ReadFile(w.path("home/mcp-approvals.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st approvalStore
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	for name, recs := range st.Servers {
		for i := range recs {
			recs[i].Files = nil
		}
		st.Servers[name] = recs
	}
	data, _ = json.Marshal(st)
	w.write(t, "home/mcp-approvals.json", string(data), 0o600)
	check("legacy approvals", []string{"plain"}, []string{"script"}, script)
}

func TestApproveRefusesWhatItCannotBind(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
	w.write(t, "cwd/.magi-code/settings.toml", "[mcp_servers.big]\ncommand = \"./big\"\n", 0o644)
	f, err := os.Create(w.path("cwd/big"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(MaxBoundFileBytes + 1)
	f.Close()
	if _, err := Approve(w.env(), "big"); !errors.Is(err, errBindTooLarge) {
		t.Fatalf("Approve = %v; want %v", err, errBindTooLarge)
	}
	if _, err := os.Stat(w.path("home/mcp-approvals.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused approval wrote the store: %v", err)
	}
}

// TestMCPApprovalBindsEnvFiles: a file named by a value of the server's
// env (NODE_OPTIONS=--require ./pre.js) is bound like an argument.
func TestMCPApprovalBindsEnvFiles(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
	w.write(t, "cwd/.magi-code/settings.toml", "[mcp_servers.e]\ncommand = \"/bin/true\"\nenv = {NODE_OPTIONS = \"--require ./tools/pre.js\"}\n", 0o644)
	w.write(t, "cwd/tools/pre.js", "1", 0o644)
	b, err := Approve(w.env(), "e")
	if err != nil || len(b.Files) != 1 || b.Files[0].Path != w.path("cwd/tools/pre.js") {
		t.Fatalf("Approve = %+v, %v", b, err)
	}
	for _, step := range []struct {
		text    string
		started bool
	}{{"1", true}, {"2", false}} {
		w.write(t, "cwd/tools/pre.js", step.text, 0o644)
		snap, code := w.load(t)
		if code != "" || (len(snap.MCPServers) == 1) != step.started {
			t.Errorf("pre.js %q: Load %q, started %q; want started %v", step.text, code, names(snap.MCPServers), step.started)
		}
	}
}

// FuzzBindNamed: whatever a definition holds, every path it names is
// absolute and clean, each argument as a whole is among them, and the
// binding of a workspace holding one script binds only files inside it
// (or links there), hashed exactly when they resolve inside.
func FuzzBindNamed(f *testing.F) {
	for _, s := range []string{"tools/mcp.sh", "--config=./tools/mcp.sh", "cd a && sh 'tools/mcp.sh'", "../x", "", "=", "-=", "a:b,c;d|e", "/", "..", "x\x00y", "--a=b=c", " \t"} {
		f.Add("sh", s, "NODE_OPTIONS", s)
	}
	ws := f.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "tools"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "tools", "mcp.sh"), []byte("echo"), 0o644); err != nil {
		f.Fatal(err)
	}
	b := binder{roots: []string{ws}, dir: ws}
	f.Fuzz(func(t *testing.T, command, arg, key, value string) {
		env := map[string]string{key: value}
		named := b.named(command, []string{arg}, env, "")
		for _, p := range named {
			if !filepath.IsAbs(p) || filepath.Clean(p) != p {
				t.Fatalf("named %q: not absolute and clean", p)
			}
		}
		whole := filepath.Join(ws, arg)
		if filepath.IsAbs(arg) {
			whole = filepath.Clean(arg)
		}
		if arg != "" && !slices.Contains(named, whole) {
			t.Fatalf("named %q lacks the argument %q", named, arg)
		}
		got, err := b.bind(command, []string{arg}, env, "")
		if err != nil {
			t.Fatalf("bind: %v", err)
		}
		for _, bf := range got.Files {
			canon := cmp.Or(bf.Target, bf.Path)
			if !b.inside(bf.Path) && !b.inside(canon) {
				t.Fatalf("bound %+v outside %s", bf, ws)
			}
			if (bf.SHA256 != "") != b.inside(canon) {
				t.Fatalf("bound %+v: hashed %v, inside %v", bf, bf.SHA256 != "", b.inside(canon))
			}
		}
	})
}

// TestBindingText: mcp approve says each file it bound, how, and each
// directory it could not bind.
func TestBindingText(t *testing.T) {
	if got, want := BindingText(Binding{}), "bound no file of the workspace: the approval covers the definition alone\n"; got != want {
		t.Errorf("empty binding: %q; want %q", got, want)
	}
	got := BindingText(Binding{Files: []BoundFile{
		{Path: "/w/a.sh", SHA256: "aa"},
		{Path: "/w/l.sh", Target: "/w/t.sh", SHA256: "bb"},
		{Path: "/w/py", Target: "/usr/bin/python3"},
	}, Unbound: []string{"/w/pkg"}})
	want := "bound /w/a.sh sha256:aa\n" +
		"bound /w/l.sh (/w/t.sh) sha256:bb\n" +
		"bound /w/py as a link to /usr/bin/python3\n" +
		"not bound: /w/pkg is a directory; what the server runs from it may change without a new approval\n"
	if got != want {
		t.Errorf("BindingText = %q\nwant %q", got, want)
	}
}
