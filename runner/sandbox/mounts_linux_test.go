package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/magi-code/magi-code/internal/ostest"
)

// requireMounts skips where the launcher can have no mount namespace, and
// returns the mode it uses.
func requireMounts(t *testing.T) string {
	t.Helper()
	requireLandlock(t)
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	// As the agent is: not dumpable, so its children's /proc files (their
	// id maps) are not its to write.
	if err := NotDumpable(); err != nil {
		t.Fatal(err)
	}
	mode := ProbeMounts(self)
	switch {
	case mode == "" && hasCap(unix.CAP_SYS_ADMIN):
		// Root with CAP_SYS_ADMIN can always have a mount namespace: a
		// failed probe is a failed mount.
		t.Fatal("the mount probe failed with CAP_SYS_ADMIN")
	case mode == "" && exec.Command("unshare", "--user", "--map-current-user", "--mount", "--propagation", "private", "true").Run() == nil:
		// util-linux's unshare gets a user and mount namespace here, and
		// changes propagation in it: the launcher's probe must too.
		t.Fatal("the mount probe failed where unshare --user --mount works")
	case mode == "":
		t.Skip("no mount namespace for the launcher here")
	}
	t.Logf("uid %d: mounts by %s", os.Getuid(), mode)
	return mode
}

// mountsWorkspace makes a workspace outside the temp directory with a
// .git (config, hooks), a nested repository sub/.git, a bare repository
// sub/origin.git, a submodule's .git file and an ordinary file, and
// returns it with the files whose bytes must not change.
func mountsWorkspace(t *testing.T) (string, map[string]string) {
	t.Helper()
	ws := filepath.Join(ostest.OutsideTemp(t), "ws")
	files := map[string]string{
		".git/config": "[core]\n", ".git/hooks/pre-commit.sample": "#!/bin/sh\n", ".git/HEAD": "ref: refs/heads/main\n",
		"sub/.git/config": "[core]\n", "sub/origin.git/HEAD": "ref: refs/heads/main\n", "sub/origin.git/config": "[core]\nbare = true\n",
		"sub/origin.git/hooks/x": "#!/bin/sh\n", "mod/.git": "gitdir: ../.git/modules/mod\n",
	}
	for f, data := range files {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{".git/objects", ".git/refs", "sub/origin.git/objects", "sub/origin.git/refs/heads", "src"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "top.txt"), []byte("orig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, files
}

// runIn runs script with sh through the launcher in ws under p; it
// reports whether it succeeded, and its output.
func runIn(t *testing.T, ws string, p Policy, script string) (bool, string) {
	t.Helper()
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = ws
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + ws}
	if err := p.Wrap(cmd, self); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	return err == nil, string(out)
}

// attacks on the metadata: each must fail, under mounts and without.
var attacks = []string{
	"echo x >> .git/config", "printf '[core]\\nfsmonitor = touch pwned\\n' > .git/config", "mv .git .git2", "rm -rf .git",
	"ln -sf /x .git/hooks/pre-commit", "touch .git/hooks/post-checkout", "mv .git/config .git/old", "rm .git/HEAD",
	"umount .git", "umount -l .git", "mount --bind src .git", "mount -t tmpfs none .git", "mount -o remount,rw .git",
	`python3 -c "import os; os.rename('.git', 'g')"`, `python3 -c "import shutil; shutil.rmtree('.git')"`,
	"ln .git/config hard && echo x >> hard",
	"echo x >> sub/.git/config", "mv sub/.git sub/g", "rm -rf sub/.git", "rm -rf sub",
	"echo x >> sub/origin.git/hooks/x", "echo x > sub/origin.git/hooks/post-receive", "mv sub/origin.git sub/o", "rm -rf sub/origin.git",
	"echo 'gitdir: /x' > mod/.git", "mv mod/.git mod/g", "rm mod/.git",
	"mv sub sub2 && echo x >> sub2/.git/config", "mv sub sub2; echo x >> sub2/origin.git/hooks/x",
	// a user and mount namespace of the command's own, where it would
	// hold CAP_SYS_ADMIN
	"unshare -Urm sh -c 'umount -l .git; mount -o remount,rw .git; echo x >> .git/config'",
	"unshare -Urm sh -c 'mount --bind src .git && echo x > .git/config'",
}

// TestMetadataMounts: with the launcher in a mount namespace of its own,
// the workspace's top directory is granted whole (new entries are made,
// renamed and removed there), while .git, a nested repository's .git, a
// bare repository and a submodule's .git file stay read-only and cannot
// be renamed, removed, unmounted or mounted over; their bytes do not
// change. Without the mounts (the fallback), the top directory takes no
// new entry, as before. The host's mount table is the same after.
func TestMetadataMounts(t *testing.T) {
	mode := requireMounts(t)
	for _, tc := range []struct {
		name   string
		mounts string
	}{{"mounts", mode}, {"fallback", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			ws, files := mountsWorkspace(t)
			policy := func() Policy {
				return Policy{Writable: []string{ws}, Protected: Protect(ws, "", false), Mounts: tc.mounts}
			}
			before, err := os.ReadFile("/proc/self/mountinfo")
			if err != nil {
				t.Fatal(err)
			}
			if os.Getenv("SANDBOX_SHARED_NS") != "" && !strings.Contains(string(before), " shared:") {
				t.Fatal("TestMountsPropagateNowhere's namespace has no shared mount")
			}
			const topLevel = "touch newfile && mkdir bin && mv newfile bin/ && echo ok > bin/x && cat bin/x && rm -r bin && mkdir .venv && rmdir .venv"
			ok, out := runIn(t, ws, policy(), topLevel)
			if ok != (tc.mounts != "") {
				t.Errorf("%q: ok=%v %q; want ok=%v", topLevel, ok, out, tc.mounts != "")
			}
			// The command runs as the caller, holding no capability, in
			// either namespace.
			if ok, out := runIn(t, ws, policy(), "id -u; grep CapEff /proc/self/status"); !ok || out != strconv.Itoa(os.Getuid())+"\nCapEff:\t0000000000000000\n" {
				t.Errorf("identity of a confined command: ok=%v %q", ok, out)
			}
			// In a user namespace, only the caller's own ids are mapped.
			if tc.mounts == MountsUserNS {
				want := strconv.Itoa(os.Getuid()) + " " + strconv.Itoa(os.Getuid()) + " 1"
				if ok, out := runIn(t, ws, policy(), "cat /proc/self/uid_map"); !ok || strings.Join(strings.Fields(out), " ") != want {
					t.Errorf("uid_map of a confined command: ok=%v %q; want %q", ok, out, want)
				}
			}
			// Its mounts propagate nowhere (made private before the binds):
			// no mount of its namespace is shared with or a slave of another
			// (without a namespace of its own, it sees the host's).
			if ok, out := runIn(t, ws, policy(), "grep -E ' (shared|master):' /proc/self/mountinfo; true"); tc.mounts != "" && (!ok || out != "") {
				t.Fatalf("a confined command's mounts propagate: ok=%v %q", ok, out)
			}
			for _, script := range attacks {
				if ok, out := runIn(t, ws, policy(), script); ok {
					t.Errorf("%q succeeded: %q", script, out)
				}
				if _, err := os.Lstat(filepath.Join(ws, "sub2")); err == nil {
					// Renamed away (mounts allow it): the next command's walk
					// must find the repository where it went.
					if ok, out := runIn(t, ws, policy(), "echo x >> sub2/.git/config || exit 1; echo x >> sub2/origin.git/hooks/x"); ok {
						t.Errorf("after %q, the renamed repository was written: %q", script, out)
					}
					for f, data := range files {
						f = filepath.Join("sub2", filepath.Clean(f)[len("sub"):])
						if got, err := os.ReadFile(filepath.Join(ws, f)); len(got) > 0 && string(got) != data {
							t.Fatalf("after %q, %s = %q, %v", script, f, got, err)
						}
					}
					if ok, out := runIn(t, ws, policy(), "mv sub2 sub"); !ok && tc.mounts != "" {
						t.Fatalf("moving sub back: %q", out)
					}
				}
				for f, data := range files {
					if got, err := os.ReadFile(filepath.Join(ws, f)); err != nil || string(got) != data {
						t.Fatalf("after %q, %s = %q, %v", script, f, got, err)
					}
				}
			}
			after, err := os.ReadFile("/proc/self/mountinfo")
			if err != nil {
				t.Fatal(err)
			}
			if string(before) != string(after) {
				t.Errorf("the host's mount table changed:\n%s\nafter:\n%s", before, after)
			}
			if _, err := os.Lstat(filepath.Join(ws, "pwned")); err == nil {
				t.Error("pwned exists")
			}
		})
	}
}

// TestMetadataMountsLinkedGit: a .git that is a symbolic link (to a git
// directory kept elsewhere in the workspace) is not mounted over but
// carved as without mounts: the link cannot be replaced by a directory of
// the command's, nor its target written.
func TestMetadataMountsLinkedGit(t *testing.T) {
	mode := requireMounts(t)
	ws := filepath.Join(ostest.OutsideTemp(t), "ws")
	if err := os.MkdirAll(filepath.Join(ws, "gitdir", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "gitdir", "config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("gitdir", filepath.Join(ws, ".git")); err != nil {
		t.Fatal(err)
	}
	p := Policy{Writable: []string{ws}, Protected: Protect(ws, "", false), Mounts: mode}
	for _, script := range []string{"rm .git && mkdir .git && echo evil > .git/config", "mv .git g && ln -s /x .git",
		"echo x >> .git/config", "echo x >> gitdir/config", "mv gitdir g"} {
		if ok, out := runIn(t, ws, p, script); ok {
			t.Errorf("%q succeeded: %q", script, out)
		}
	}
	if target, err := os.Readlink(filepath.Join(ws, ".git")); err != nil || target != "gitdir" {
		t.Errorf(".git now %q, %v", target, err)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "gitdir", "config")); string(data) != "[core]\n" {
		t.Errorf("gitdir/config = %q", data)
	}
}

// TestMountProtected: what the launcher mounts and what it leaves to the
// grants, with the mount injected: a missing path is left out; a path
// that is a symbolic link, one whose mount fails, one no writable
// directory holds, and one that is or holds a writable directory stay.
func TestMountProtected(t *testing.T) {
	root := ostest.OutsideTemp(t)
	ws := filepath.Join(root, "ws")
	for _, d := range []string{"ws/.git", "ws/sub/.hg", "ws/fail/.git", "elsewhere/.git", "ws/.jj/inner", "ws/real.git"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real.git", filepath.Join(ws, "linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "file.git"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var bound []string
	bind := func(p string) error {
		if filepath.Base(filepath.Dir(p)) == "fail" {
			return errors.New("planted")
		}
		bound = append(bound, p)
		return nil
	}
	j := func(p string) string { return filepath.Join(root, p) }
	writable := []string{ws, j("ws/.jj/inner")}
	protected := []string{j("ws/.git"), j("ws/.hg"), j("ws/sub/.hg"), j("ws/fail/.git"), j("elsewhere/.git"), j("ws/linked"), j("ws/file.git"), j("ws/.jj")}
	left := mountProtected(writable, protected, bind)
	if want := []string{j("ws/.git"), j("ws/sub/.hg"), j("ws/file.git")}; !slices.Equal(bound, want) {
		t.Errorf("mounted %q; want %q", bound, want)
	}
	if want := []string{j("ws/fail/.git"), j("elsewhere/.git"), j("ws/linked"), j("ws/.jj")}; !slices.Equal(left, want) {
		t.Errorf("left to the grants %q; want %q", left, want)
	}
}

// TestMountsPropagateNowhere runs TestMetadataMounts again in a mount
// namespace whose mounts are shared (as on systemd hosts, where / is
// shared): the launcher's read-only binds must not propagate back to it,
// which they would without makePrivate. Root only (util-linux unshare
// makes the namespace); TestMetadataMounts reads the table before and
// after.
func TestMountsPropagateNowhere(t *testing.T) {
	requireLandlock(t)
	if !hasCap(unix.CAP_SYS_ADMIN) {
		t.Skip("needs CAP_SYS_ADMIN to make a namespace with shared mounts")
	}
	if os.Getenv("SANDBOX_SHARED_NS") != "" {
		t.Skip("already in the shared namespace")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare")
	}
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(unshare, "--mount", "--propagation", "shared", self, "-test.run", "^TestMetadataMounts$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "SANDBOX_SHARED_NS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("TestMetadataMounts with shared mounts: %v\n%s", err, out)
	}
	// The inner run must have found shared mounts to be a test at all.
	if !strings.Contains(string(out), "PASS") {
		t.Fatalf("inner run: %s", out)
	}
}

// BenchmarkLaunchMounts is BenchmarkLaunch in a git workspace, with the
// read-only mounts (as the agent runs where it has them) and with
// per-entry grants: the cost the namespace and the mounts add.
func BenchmarkLaunchMounts(b *testing.B) {
	if st := Probe(); !st.Available {
		b.Skipf("no OS sandbox here: %s", st.Reason)
	}
	self, err := Self()
	if err != nil {
		b.Fatal(err)
	}
	mode := ProbeMounts(self)
	ws := filepath.Join(ostest.OutsideTemp(b), "ws")
	for _, d := range []string{".git/hooks", "src"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, m := range []string{mode, ""} {
		name := "mounts-" + m
		if m == "" {
			name = "grants"
		}
		b.Run(name, func(b *testing.B) {
			p := Policy{Writable: []string{ws}, Protected: Protect(ws, "", false), Mounts: m, Network: true}
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				cmd.Dir = ws
				if err := p.Wrap(cmd, self); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestOtherTerminals: a terminal outside the sandbox (one the test
// holds, as the person's shell or Mission Control holds theirs) can be
// neither written nor read by a confined command, under mounts (a devpts
// of the command's own on /dev/pts) or without (/dev/pts not granted);
// under mounts the command still opens terminals of its own.
func TestOtherTerminals(t *testing.T) {
	mode := requireMounts(t)
	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Skip("no terminals here:", err)
	}
	defer unix.Close(master)
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts := "/dev/pts/" + strconv.Itoa(n)
	// The other end stays open, as a terminal in use does.
	slave, err := os.OpenFile(pts, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	ws, _ := mountsWorkspace(t)
	for _, m := range []string{mode, ""} {
		p := Policy{Writable: []string{ws}, Protected: Protect(ws, "", false), Mounts: m}
		for _, script := range []string{"echo pwned > " + pts, "printf pwned >> " + pts, "exec 3<>" + pts + " && echo pwned >&3"} {
			if ok, out := runIn(t, ws, p, script); ok {
				t.Errorf("mounts %q: %s succeeded (%q)", m, script, out)
			}
		}
		// Opened without blocking, for reading: a terminal outside, the
		// console and the virtual terminals (which a confined root, the
		// owner of these, opens by their modes alone).
		for _, dev := range []string{pts, "/dev/console", "/dev/tty0", "/dev/tty1", "/dev/vcs"} {
			if _, err := os.Stat(dev); err != nil {
				continue
			}
			script := `python3 -c "import os; os.open('` + dev + `', os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)"`
			if ok, _ := runIn(t, ws, p, script); ok {
				t.Errorf("mounts %q: %s opened for reading", m, dev)
			}
		}
		buf := make([]byte, 64)
		if k, err := unix.Read(master, buf); err == nil && k > 0 {
			t.Errorf("mounts %q: the terminal outside received %q", m, buf[:k])
		}
	}
	own := `python3 -c "import os; m, s = os.openpty(); os.write(s, b'ok\n'); print(os.read(m, 8))"`
	if ok, out := runIn(t, ws, Policy{Writable: []string{ws}, Protected: Protect(ws, "", false), Mounts: mode}, own); !ok {
		t.Errorf("under mounts, a terminal of the command's own failed: %q", out)
	}
}
