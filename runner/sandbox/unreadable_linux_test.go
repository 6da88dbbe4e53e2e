package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/ostest"
)

// TestReadGrants: the read grants around an unreadable path (MC_HOME,
// configured as a link) cover the rest of the file system: no grant is
// the path, lies in it, or holds it (a directory on the way is carved);
// its siblings are granted, symbolic links and multi-link files on the way
// are not. Without an existing unreadable path nothing is carved.
func TestReadGrants(t *testing.T) {
	root := ostest.OutsideTemp(t)
	home := filepath.Join(root, "home")
	mc := filepath.Join(home, ".magi-code")
	for _, d := range []string{filepath.Join(mc, "sessions"), filepath.Join(home, "proj"), filepath.Join(home, ".config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(home, ".bashrc"), filepath.Join(mc, "auth.json"), filepath.Join(home, "shared")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(home, "shared"), filepath.Join(root, "shared2")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "mclink")
	if err := os.Symlink(mc, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(mc, filepath.Join(home, "to-mc")); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(mc)
	if err != nil {
		t.Fatal(err)
	}
	realHome := filepath.Dir(real)
	dirs, files, ok := readGrants([]string{"relative/mc", link, filepath.Join(root, "missing")})
	if !ok {
		t.Fatal("an existing unreadable path carved nothing")
	}
	for _, g := range append(append([]string(nil), dirs...), files...) {
		if within(g, real) || within(real, g) {
			t.Errorf("grant %s reaches MC_HOME %s", g, real)
		}
	}
	for _, want := range []string{filepath.Join(realHome, "proj"), filepath.Join(realHome, ".config"), "/usr"} {
		if !slices.Contains(dirs, want) {
			t.Errorf("directories %q lack %s", dirs, want)
		}
	}
	if !slices.Contains(files, filepath.Join(realHome, ".bashrc")) {
		t.Errorf("files %q lack ~/.bashrc", files)
	}
	for _, bad := range []string{filepath.Join(realHome, "to-mc"), filepath.Join(realHome, "shared")} {
		if slices.Contains(files, bad) || slices.Contains(dirs, bad) {
			t.Errorf("grants hold %s (a link, a multi-link file)", bad)
		}
	}
	if _, _, ok := readGrants([]string{filepath.Join(root, "missing"), "rel"}); ok {
		t.Error("no existing unreadable path, yet carved")
	}
	if d, f, ok := readGrants([]string{"/"}); !ok || d != nil || f != nil {
		t.Errorf("readGrants(/) = %q, %q, %v; want nothing readable", d, f, ok)
	}
}

// TestUnreadable runs real commands confined with MC_HOME (configured as
// a link) unreadable: its files cannot be read or executed, by either
// path, from sh or python3; its names can be listed; the rest of the home
// reads and runs as before, and the workspace is written as before.
func TestUnreadable(t *testing.T) {
	requireLandlock(t)
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	root := ostest.OutsideTemp(t)
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	mc := filepath.Join(home, ".magi-code")
	for _, d := range []string{mc, ws, filepath.Join(home, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{filepath.Join(mc, "auth.json"): "SECRET\n", filepath.Join(mc, "run.sh"): "#!/bin/sh\necho RAN\n",
		filepath.Join(home, "notes.txt"): "PLAIN\n", filepath.Join(home, "bin", "tool.sh"): "#!/bin/sh\necho TOOL\n", filepath.Join(home, "top.sh"): "#!/bin/sh\necho TOP\n"}
	for f, content := range files {
		if err := os.WriteFile(f, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "mclink")
	if err := os.Symlink(mc, link); err != nil {
		t.Fatal(err)
	}
	run := func(script string) (string, bool) {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = ws
		p := Policy{Writable: []string{ws}, Protected: Protect(ws, link, false), Unreadable: []string{link}}
		if err := p.Wrap(cmd, self); err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	for _, script := range []string{
		"cat " + filepath.Join(mc, "auth.json"), "cat " + filepath.Join(link, "auth.json"),
		"python3 -c 'import sys; print(open(sys.argv[1]).read())' " + filepath.Join(link, "auth.json"),
		filepath.Join(mc, "run.sh"), "sh " + filepath.Join(link, "run.sh"),
	} {
		if out, ok := run(script); ok {
			t.Errorf("%q succeeded: %q", script, out)
		}
	}
	for script, want := range map[string]string{
		"cat " + filepath.Join(home, "notes.txt"):         "PLAIN\n",
		filepath.Join(home, "bin", "tool.sh"):             "TOOL\n",
		filepath.Join(home, "top.sh"):                     "TOP\n",
		"ls " + mc:                                        "auth.json\nrun.sh\n",
		"echo w > out.txt && cat out.txt":                 "w\n",
		"ls / >/dev/null && ls " + home + " | grep notes": "notes.txt\n",
	} {
		if out, ok := run(script); !ok || out != want {
			t.Errorf("%q: %q, %v; want %q", script, out, ok, want)
		}
	}
}

// TestUnreadableInsideWritable: a writable directory that holds an
// unreadable path (the workspace is the home holding MC_HOME and a
// credential store; MC_HOME under the temp directory) does not grant
// reading it: a confined command cannot read them, by path or by a link,
// with the launcher in a mount namespace of its own or without (per-entry
// grants); the rest of the writable directory is read and written as
// before.
func TestUnreadableInsideWritable(t *testing.T) {
	requireLandlock(t)
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	modes := []string{""}
	if st := ProbeWithMounts(); st.Mounts != "" {
		modes = append(modes, st.Mounts)
	}
	for _, mode := range modes {
		t.Run("mounts="+mode, func(t *testing.T) {
			home := ostest.OutsideTemp(t)
			mc, aws, sub := filepath.Join(home, ".magi-code"), filepath.Join(home, ".aws"), filepath.Join(home, "src")
			for _, d := range []string{mc, aws, sub} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for f, c := range map[string]string{filepath.Join(mc, "auth.json"): "MC-SECRET\n", filepath.Join(aws, "credentials"): "AWS-SECRET\n",
				filepath.Join(home, "notes.txt"): "PLAIN\n", filepath.Join(sub, "a.txt"): "A\n"} {
				if err := os.WriteFile(f, []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(mc, filepath.Join(sub, "mc")); err != nil {
				t.Fatal(err)
			}
			run := func(script string) (string, bool) {
				cmd := exec.Command("/bin/sh", "-c", script)
				cmd.Dir = home
				p := Policy{Writable: []string{home}, Protected: Protect(home, mc, false), Unreadable: []string{mc, aws}, Mounts: mode}
				if err := p.Wrap(cmd, self); err != nil {
					t.Fatal(err)
				}
				out, err := cmd.CombinedOutput()
				return string(out), err == nil
			}
			for _, script := range []string{"cat .magi-code/auth.json", "cat src/mc/auth.json", "cat " + filepath.Join(aws, "credentials"), "cat .aws/credentials"} {
				if out, ok := run(script); ok || strings.Contains(out, "SECRET") {
					t.Errorf("%q: %q, %v; want it refused", script, out, ok)
				}
			}
			for _, c := range []struct{ script, want string }{
				{"cat notes.txt", "PLAIN\n"},
				{"cat src/a.txt", "A\n"},
				{"echo w > src/new.txt && cat src/new.txt", "w\n"},
				{"echo e >> notes.txt && cat notes.txt", "PLAIN\ne\n"},
			} {
				if out, ok := run(c.script); !ok || out != c.want {
					t.Errorf("%q: %q, %v; want %q", c.script, out, ok, c.want)
				}
			}
		})
	}
}
