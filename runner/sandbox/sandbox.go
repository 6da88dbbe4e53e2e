package sandbox

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Modes of [tools.sandbox] mode.
const (
	ModeWorkspaceWrite = "workspace-write"
	ModeOff            = "off"
)

// LauncherArg is argv[1] of the launcher: the executable restricts itself
// and execs argv[3:], with the Policy encoded as JSON in argv[2].
const LauncherArg = "__sandbox-exec"

// LauncherFailed is the launcher's exit status when it cannot confine the
// command (the command never runs).
const LauncherFailed = 126

// Policy is what one sandboxed command may do.
type Policy struct {
	// Writable are absolute directories below which the command may write.
	// Missing ones are skipped.
	Writable []string `json:"writable"`
	// Network allows TCP connect and bind.
	Network bool `json:"network"`
}

// Status says whether this machine offers the sandbox.
type Status struct {
	Available bool
	// ABI is the Landlock ABI version (0 without Landlock).
	ABI int
	// Reason is a fixed phrase saying why not, when not Available.
	Reason string
}

// Text is the one-line description for `config show` and the diagnostic
// log, given the mode setting.
func (s Status) Text(mode string) string {
	switch {
	case mode == ModeOff:
		return "off (settings); the destructive-command guard stands alone"
	case !s.Available:
		return "unavailable: " + s.Reason + "; the destructive-command guard stands alone"
	}
	return "workspace-write under approval = auto (Landlock ABI " + itoa(s.ABI) + ")"
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

// cacheDirs are the package caches below HOME that the defaults keep
// writable, so that go test, npm test and cargo build work: ~/.cache (Go's
// build cache GOCACHE, pip, and other XDG caches), ~/go/pkg/mod (Go's
// module cache), ~/.npm, and Cargo's downloads, ~/.cargo/registry and
// ~/.cargo/git. Not ~/.cargo itself, nor ~/.rustup: they hold programs
// the person runs unconfined (~/.cargo/bin is on the PATH, ~/.cargo/env is
// sourced by the shell's profile, ~/.rustup holds the toolchains), and
// cargo works with the rest of its home read-only.
var cacheDirs = []string{".cache", "go/pkg/mod", ".npm", ".cargo/registry", ".cargo/git"}

// cacheEnv are variables that move those caches; their values are writable
// too when the command's environment sets them (CARGO_HOME's registry and
// git only, as for ~/.cargo).
var cacheEnv = []string{"GOCACHE", "GOMODCACHE", "npm_config_cache", "TMPDIR"}

// Defaults returns the writable directories of a command run in cwd with
// env: cwd, the temp directory (os.TempDir and /tmp), the caches below
// env's HOME and those its cache variables name, then extra (the setting
// writable_roots). Relative and empty entries are dropped; the list has no
// duplicates.
func Defaults(cwd string, env []string, extra []string) []string {
	lookup := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	dirs := []string{cwd, os.TempDir(), "/tmp"}
	if home := lookup("HOME"); home != "" {
		for _, d := range cacheDirs {
			dirs = append(dirs, filepath.Join(home, d))
		}
	}
	for _, k := range cacheEnv {
		dirs = append(dirs, lookup(k))
	}
	if ch := lookup("CARGO_HOME"); ch != "" {
		dirs = append(dirs, filepath.Join(ch, "registry"), filepath.Join(ch, "git"))
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

// Wrap rewrites cmd, not yet started, to run through the launcher of the
// executable self under p. cmd.Path must be absolute. The command starts in
// a session of its own, without a controlling terminal: through the
// terminal it shares with the person (/dev/tty), a confined command could
// push input (TIOCSTI) that an unconfined shell or app then reads as typed.
// A session leader leads its own process group too (pgid = pid), so group
// kills (runner/subproc) still reach everything it starts.
func (p Policy) Wrap(cmd *exec.Cmd, self string) error {
	if !filepath.IsAbs(cmd.Path) || !filepath.IsAbs(self) {
		return errors.New("sandbox: command and launcher must be absolute paths")
	}
	spec, err := json.Marshal(p)
	if err != nil {
		return err
	}
	args := append([]string{self, LauncherArg, string(spec), cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = self, args
	newSession(cmd)
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
