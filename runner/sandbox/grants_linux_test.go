package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/ostest"
)

// TestProbeGate: the ABI gate, with the kernel's answer injected: no
// Landlock and ABIs 1 and 2 are no sandbox; 3 and later are.
func TestProbeGate(t *testing.T) {
	for _, tc := range []struct {
		abi       int
		err       error
		available bool
	}{
		{0, os.ErrNotExist, false}, {1, nil, false}, {2, nil, false}, {3, nil, true}, {4, nil, true}, {6, nil, true},
	} {
		st := probe(func() (int, error) { return tc.abi, tc.err })
		if st.Available != tc.available || (!st.Available && st.Reason == "") {
			t.Errorf("probe(ABI %d, %v) = %+v; want available %v", tc.abi, tc.err, st, tc.available)
		}
	}
}

// TestProtectedPaths runs real commands confined to a workspace outside
// the temp directory whose .git, .magi-code, .claude and MC_HOME (reached through
// a symbolic link) are protected: writing, deleting or renaming them
// fails, writing elsewhere in the workspace succeeds; with gitWritable,
// .git can be written.
func TestProtectedPaths(t *testing.T) {
	requireLandlock(t)
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	root := ostest.OutsideTemp(t)
	ws := filepath.Join(root, "ws")
	mc := filepath.Join(ws, "state", "mc")
	for _, d := range []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, "src"), filepath.Join(ws, "vendor", "inner", ".git", "hooks"), filepath.Join(ws, "vendor", "inner", "src"), filepath.Join(ws, ".magi-code"), filepath.Join(ws, ".claude", "skills"), mc} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"top.txt", ".git/config", "state/other", "state/mc/settings.toml", "vendor/inner/.git/config", "vendor/mod.git"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("orig\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A link at the top of the workspace to a directory outside: a grant
	// through it would open the directory it leads to.
	if err := os.MkdirAll(filepath.Join(root, "outside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "outside"), filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "mclink")
	if err := os.Symlink(mc, link); err != nil {
		t.Fatal(err)
	}
	run := func(gitWritable bool, script string) bool {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = ws
		p := Policy{Writable: []string{ws}, Protected: Protect(ws, link, gitWritable)}
		if err := p.Wrap(cmd, self); err != nil {
			t.Fatal(err)
		}
		return cmd.Run() == nil
	}
	for _, script := range []string{
		"echo x > .git/hooks/pre-commit", "echo x >> .git/config", "rm -rf .git", "mv .git g",
		"echo x > .magi-code/settings.toml", "echo x > state/mc/settings.toml", "rm -rf state",
		"mkdir .claude/skills/k", "echo x > .claude/settings.json", "rm -rf .claude",
		"echo x > " + filepath.Join(link, "new"), "touch new-top-level-file", "rm top.txt", "echo x > escape/f",
		// a repository nested in the workspace keeps its .git too
		"echo x > vendor/inner/.git/hooks/pre-commit", "echo x >> vendor/inner/.git/config", "mv vendor/inner/.git vendor/inner/g",
		"rm -rf vendor/inner", "echo 'gitdir: /x' > vendor/inner/.git",
	} {
		if run(false, script) {
			t.Errorf("%q succeeded", script)
		}
	}
	for _, script := range []string{"echo y > src/a && rm src/a", "echo z > top.txt", "echo w > state/other", "mkdir -p src/b/c && rmdir src/b/c",
		"echo y > vendor/inner/src/a && rm vendor/inner/src/a", "echo z > vendor/mod.git"} {
		if !run(false, script) {
			t.Errorf("%q failed", script)
		}
	}
	for _, f := range []string{".git/config", "vendor/inner/.git/config"} {
		if data, _ := os.ReadFile(filepath.Join(ws, f)); string(data) != "orig\n" {
			t.Errorf("%s = %q", f, data)
		}
	}
	if !run(true, "echo x >> .git/config") {
		t.Error("with gitWritable, writing .git failed")
	}
	if run(true, "echo x > state/mc/settings.toml") {
		t.Error("with gitWritable, MC_HOME was written")
	}
}

// TestNoCapabilities: a confined command holds no capability, even when
// the launcher runs as root, and cannot read the environment of a
// non-dumpable parent (the agent).
func TestNoCapabilities(t *testing.T) {
	requireLandlock(t)
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status")
	if err := (Policy{Writable: []string{t.TempDir()}}).Wrap(cmd, self); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v %q", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 5 {
		t.Fatalf("capability lines %q", out)
	}
	// Without CAP_SETPCAP (an unprivileged launcher) the bounding set
	// cannot be emptied and needs not be: no_new_privs keeps the empty
	// permitted set empty across exec (dropPrivileges).
	bnd := hasSetpcap(t)
	for _, l := range lines {
		if strings.HasPrefix(l, "CapBnd:") && !bnd {
			continue
		}
		if f := strings.Fields(l); len(f) != 2 || strings.Trim(f[1], "0") != "" {
			t.Errorf("confined command (uid %d): %s; want no capability", os.Getuid(), l)
		}
	}
}

// hasSetpcap reports whether this process may drop capabilities from the
// bounding set (CAP_SETPCAP, bit 8, in its effective set).
func hasSetpcap(t *testing.T) bool {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n&(1<<8) != 0
		}
	}
	t.Fatal("no CapEff in /proc/self/status")
	return false
}

// TestVCSMetadataReadOnly runs real commands confined to a workspace
// outside the temp directory that holds the metadata of version control
// systems other than git, at the top and nested: Mercurial's .hg/hgrc
// (whose hooks the person's next hg command runs), jj's .jj, Sapling's
// .sl, Pijul's .pijul, Darcs' _darcs, Bazaar's .bzr and Fossil's checkout
// database. Writing, appending, renaming or deleting them fails, as does
// replacing the directory that holds one; the rest of the workspace is
// written; with vcsWritable (a version control command the person
// approved) they can be written.
func TestVCSMetadataReadOnly(t *testing.T) {
	requireLandlock(t)
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(ostest.OutsideTemp(t), "ws")
	files := []string{".hg/hgrc", "sub/.jj/repo/config.toml", "sub/src/a.go", ".sl/config", "p/.pijul/config",
		"d/_darcs/prefs/defaults", "b/.bzr/branch/branch.conf", "f/.fslckout", "remote/origin.git/HEAD",
		"remote/origin.git/objects/x", "remote/origin.git/refs/heads/main", "remote/origin.git/hooks/README", "top.txt"}
	for _, f := range files {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("orig\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "remote/origin.git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(vcsWritable bool, script string) bool {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = ws
		// A walk of its own: the cached one of an earlier test must not
		// stand for this workspace.
		p := Policy{Writable: []string{ws}, Protected: Protect(ws, "", vcsWritable)}
		if err := p.Wrap(cmd, self); err != nil {
			t.Fatal(err)
		}
		return cmd.Run() == nil
	}
	for _, script := range []string{
		"echo x >> .hg/hgrc", "printf '[hooks]\\npre-status = touch ~/pwned\\n' > .hg/hgrc", "mkdir .hg/x", "mv .hg .hg2", "rm -rf .hg",
		"rm .hg/hgrc", "mv .hg/hgrc .hg/old", "ln -s /x .hg/link",
		"echo x >> sub/.jj/repo/config.toml", "mkdir sub/.jj/repo/y", "mv sub/.jj sub/jj2", "rm -rf sub/.jj", "rm -rf sub",
		"mv sub sub2", "echo x >> .sl/config", "mv .sl sl", "echo x >> p/.pijul/config", "mv p/.pijul p/pj",
		"echo x >> d/_darcs/prefs/defaults", "echo x >> b/.bzr/branch/branch.conf", "echo x >> f/.fslckout",
		"mv f/.fslckout f/old", "rm f/.fslckout", "touch f/.fslckout-journal",
		// a bare repository (a fixture's remote): its hooks run at a push to it
		"echo x > remote/origin.git/hooks/post-receive", "echo x >> remote/origin.git/HEAD", "mv remote/origin.git remote/o",
		// the top directory holds metadata: nothing is created beside it
		"mkdir .jj", "touch .fslckout",
		`python3 -c "import os; os.rename('.hg', 'h')"`,
	} {
		if run(false, script) {
			t.Errorf("%q succeeded", script)
		}
	}
	for _, script := range []string{"echo y > sub/src/b.go && rm sub/src/b.go", "echo z >> sub/src/a.go", "echo w >> top.txt", "mkdir -p sub/src/x/y && rmdir sub/src/x/y"} {
		if !run(false, script) {
			t.Errorf("%q failed", script)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "remote/origin.git/HEAD")); string(data) != "ref: refs/heads/main\n" {
		t.Errorf("the bare repository's HEAD = %q", data)
	}
	if _, err := os.Stat(filepath.Join(ws, "remote/origin.git/hooks/post-receive")); err == nil {
		t.Error("a hook was planted in the bare repository")
	}
	for _, f := range files[:len(files)-1] {
		if f == "sub/src/a.go" || strings.HasPrefix(f, "remote/") {
			continue
		}
		if data, err := os.ReadFile(filepath.Join(ws, f)); string(data) != "orig\n" {
			t.Errorf("%s = %q, %v", f, data, err)
		}
	}
	for _, script := range []string{"echo x >> .hg/hgrc", "echo x >> sub/.jj/repo/config.toml", "touch f/.fslckout-journal"} {
		if !run(true, script) {
			t.Errorf("with vcsWritable, %q failed", script)
		}
	}
}
