package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Modes of [tools.sandbox] mode.
const (
	ModeWorkspaceWrite = "workspace-write"
	ModeOff            = "off"
)

// LauncherArg is argv[1] of the launcher: the executable restricts itself
// and execs argv[3:], with the Policy encoded as JSON in argv[2].
const LauncherArg = "__sandbox-exec"

// SupervisorArg is argv[1] of the supervisor, which Wrap starts: the
// executable starts the launcher with the same arguments as its child and
// supervises it (supervise_linux.go).
const SupervisorArg = "__sandbox-supervise"

// Mounts modes of Policy.Mounts and Status.Mounts: how the launcher gets a
// mount namespace of its own, or "" (no mounts: per-entry grants).
const (
	// MountsNS: a new mount namespace (root with CAP_SYS_ADMIN).
	MountsNS = "ns"
	// MountsUserNS: a new user namespace mapping only the caller's own
	// user and group (setgroups denied), and a mount namespace it owns.
	MountsUserNS = "userns"
)

// MountProbeArg is argv[1] of the probe ProbeMounts starts: the
// executable makes the mounts of the launcher on its own directory, checks
// it is read-only, and exits 0.
const MountProbeArg = "__sandbox-mount-probe"

// LauncherFailed is the launcher's exit status when it cannot confine the
// command (the command never runs).
const LauncherFailed = 126

// Policy is what one sandboxed command may do.
type Policy struct {
	// Writable are absolute directories below which the command may write.
	// Missing ones are skipped.
	Writable []string `json:"writable"`
	// Protected are absolute paths that stay read-only although a writable
	// directory holds them (version control metadata, MC_HOME): with
	// Mounts, the launcher mounts each read-only over itself
	// (mountProtected); without, or where a mount fails, it grants such a
	// directory entry by entry instead (see grants). Missing ones are
	// skipped.
	Protected []string `json:"protected,omitempty"`
	// Mounts is how the launcher starts in a mount namespace of its own
	// (MountsNS, MountsUserNS: ProbeMounts's answer), or "" for none.
	Mounts string `json:"mounts,omitempty"`
	// HostNS is the mount namespace of the process that wrapped the
	// command (Wrap sets it): the launcher mounts nothing in it.
	HostNS uint64 `json:"host_ns,omitempty"`
	// UID and GID are the caller's ids, which the launcher maps in a user
	// namespace of its own (MountsUserNS; Wrap sets them).
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
	// Unreadable are absolute paths whose files the command cannot read
	// (MC_HOME: the stored provider credentials, every project's sessions
	// and logs). Everything else stays readable; names may still be
	// listed. Missing ones are skipped.
	Unreadable []string `json:"unreadable,omitempty"`
	// Network leaves the network open: without it the command can open
	// no socket (socketpair excepted), of any family.
	Network bool `json:"network"`
	// ownPTYs is the launcher's own: /dev/pts is a devpts instance of the
	// command's own (privatePTYs), so it may open the terminals there.
	// Without, /dev/pts is the host's, where every terminal of the
	// person's is, and is not granted.
	ownPTYs bool
}

// Status says whether this machine offers the sandbox.
type Status struct {
	Available bool
	// ABI is the Landlock ABI version (0 without Landlock).
	ABI int
	// Reason is a fixed phrase saying why not, when not Available.
	Reason string
	// NetworkClosable says the launcher can close the network (its filter
	// is written for this architecture: NetworkClosable()).
	NetworkClosable bool
	// Mounts is ProbeMounts's answer, when asked: how version control
	// metadata is kept read-only (read-only mounts, or per-entry grants
	// when "").
	Mounts string
	// MountsLater, when set, stands for Mounts until a command first needs
	// it: it returns ProbeMounts's answer, starting the probe's processes
	// at its first call only (LazyMounts), so that starting the agent
	// does not wait for them. Text then leaves the choice unsaid.
	MountsLater func() string
}

// LazyMounts is Probe, with MountsLater set where the sandbox is
// available and this executable can be found to act as the launcher:
// what the agent decides at startup, and the first confined command
// completes.
func LazyMounts() Status {
	st := Probe()
	if st.Available {
		if self, err := Self(); err == nil {
			st.MountsLater = sync.OnceValue(func() string { return ProbeMounts(self) })
		}
	}
	return st
}

// MountsText is what Text says of how version control metadata is kept
// read-only, given the launcher's mounts mode.
func MountsText(mounts string) string {
	if mounts != "" {
		return ".git protected by read-only mounts"
	}
	return ".git protected by per-entry grants: new files at the repository's top level are refused"
}

// ProbeWithMounts is Probe, with ProbeMounts's answer in Mounts where
// the sandbox is available and this executable can be found to act as
// the launcher: what the agent decides once at startup, and config show
// says.
func ProbeWithMounts() Status {
	st := LazyMounts()
	if st.MountsLater != nil {
		st.Mounts, st.MountsLater = st.MountsLater(), nil
	}
	return st
}

// Text is the one-line description for `config show` and the diagnostic
// log, given the settings mode and network ([tools.sandbox]).
func (s Status) Text(mode string, network bool) string {
	switch {
	case mode == ModeOff:
		return "off (settings); the destructive-command guard stands alone"
	case !s.Available:
		return "unavailable: " + s.Reason + "; the destructive-command guard stands alone"
	}
	text := "workspace-write under approval = auto (Landlock ABI " + itoa(s.ABI) + "); "
	if s.MountsLater == nil {
		text += MountsText(s.Mounts) + "; "
	}
	switch {
	case network:
		return text + "network open (settings)"
	case !s.NetworkClosable:
		return text + "the network cannot be closed on this architecture: every shell command asks"
	}
	return text + "no network unless the person allows a command that asks for it"
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// No cache of the person's is writable to confined commands: what a
// toolchain fetched and built is later used by the person's unconfined
// commands, checked, where it is checked at all, against something the
// same cache holds. The go command extracts a cached module zip after
// comparing its .ziphash file, not the zip, with go.sum, and trusts its
// build cache's entries as they are (a compiled package is checked by
// size); Cargo unpacks a cached .crate file without hashing it again and
// resolves new versions and dependencies from cached index entries that
// the registry then answers 304 Not Modified for; npm checks a cached
// tarball against the cached registry metadata that names it, fresh for
// as long as the headers stored beside it say. So a confined command that
// wrote any of them would choose the code of the person's next
// unconfined build or install. Confined commands get a Go build cache and
// an npm cache of their own instead (OwnCaches), and build with the Go
// modules and crates the person's own builds fetched and extracted (the
// trees they are extracted into were never writable to them either).
// docs/configuration.md lists each root and why.

// Defaults returns the writable directories of a command run in cwd with
// env: cwd, the temp directory (os.TempDir, /tmp and env's TMPDIR), the
// confined commands' own caches (OwnCaches), then extra (the setting
// writable_roots). Relative and empty entries are dropped; the list has no
// duplicates.
func Defaults(cwd string, env []string, extra []string) []string {
	lookup := func(k string) string { return getenv(env, k) }
	dirs := []string{cwd, os.TempDir(), "/tmp", lookup("TMPDIR")}
	for _, c := range ownCaches {
		dirs = append(dirs, ownCache(c.name, cwd, env))
	}
	dirs = append(dirs, extra...)
	var out []string
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// getenv is the value of k in env, the last entry winning as in exec.
func getenv(env []string, k string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], k+"="); ok {
			return v
		}
	}
	return ""
}

// ownCaches are the caches that commands confined in a workspace get of
// their own instead of the person's, each as the variable that points the
// toolchain at it and the directory below magi-code in the user cache
// directory: Go's build cache (the go command trusts its entries) and
// npm's cache (its cached registry metadata, fresh for as long as the
// headers stored with it say, decides what a later unconfined npm install
// of a package no lock file pins installs, and the tarball it names is
// checked only against that same metadata).
var ownCaches = []struct{ env, name string }{{"GOCACHE", "go-build"}, {"npm_config_cache", "npm"}}

// OwnCaches returns the caches of commands confined in the workspace cwd,
// given their environment env, as "VAR=DIR" entries to add to it: each
// below the user cache directory ($XDG_CACHE_HOME when absolute, else
// $HOME/.cache), in magi-code/NAME and a name derived from cwd, so no
// unconfined command (which uses the person's own caches) and no confined
// command of another workspace reads what one workspace's commands put
// there. None when env names no absolute cache directory. The launcher's
// caller creates the directories and adds the entries; Defaults makes
// them writable.
func OwnCaches(cwd string, env []string) []string {
	var out []string
	for _, c := range ownCaches {
		if dir := ownCache(c.name, cwd, env); dir != "" {
			out = append(out, c.env+"="+dir)
		}
	}
	return out
}

// BuildCache is the Go build cache (GOCACHE) of OwnCaches.
func BuildCache(cwd string, env []string) string { return ownCache("go-build", cwd, env) }

// ownCache is the directory of the cache name of commands confined in cwd
// (OwnCaches), or "".
func ownCache(name, cwd string, env []string) string {
	base := getenv(env, "XDG_CACHE_HOME")
	if !filepath.IsAbs(base) {
		base = ""
		if home := getenv(env, "HOME"); filepath.IsAbs(home) {
			base = filepath.Join(home, ".cache")
		}
	}
	if base == "" || !filepath.IsAbs(cwd) {
		return ""
	}
	sum := sha256.Sum256([]byte(filepath.Clean(cwd)))
	return filepath.Join(filepath.Clean(base), "magi-code", name, hex.EncodeToString(sum[:8]))
}

// Wrap rewrites cmd, not yet started, to run through the supervisor and
// the launcher of the executable self under p (supervise_linux.go): cmd
// starts the supervisor, unconfined, which starts the launcher, which
// confines itself and execs the command. cmd.Path must be absolute. With
// p.Mounts, the launcher starts in a mount namespace of its own (nsAttr).
// The supervisor, and the command, each start in a session of their own,
// without a controlling terminal: through the terminal it shares with the
// person (/dev/tty), a confined command could push input (TIOCSTI) that
// an unconfined shell or app then reads as typed. cmd.Cancel asks the
// supervisor to end the command and everything it started, which a kill
// of the supervisor's group (itself alone) would not.
func (p Policy) Wrap(cmd *exec.Cmd, self string) error {
	if !filepath.IsAbs(cmd.Path) || !filepath.IsAbs(self) {
		return errors.New("sandbox: command and launcher must be absolute paths")
	}
	if p.Mounts != "" {
		if p.HostNS = mountNS(); p.HostNS == 0 {
			p.Mounts = ""
		}
		p.UID, p.GID = os.Getuid(), os.Getgid()
	}
	spec, err := json.Marshal(p)
	if err != nil {
		return err
	}
	args := append([]string{self, SupervisorArg, string(spec), cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = self, args
	newSession(cmd)
	stopOnCancel(cmd)
	return nil
}

// Self is the executable the launcher runs as: this process's own binary.
func Self() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(self)
}
