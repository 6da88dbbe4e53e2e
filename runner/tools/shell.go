package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/magi-code/magi-code/runner/protected"
	shellcheck "github.com/magi-code/magi-code/runner/shell"
	"github.com/magi-code/magi-code/runner/subproc"
)

// SandboxSummary is added to the summary and result of a sandboxed shell
// command that failed; NoNetworkSummary follows it when the command ran
// without the network, and the result (the model's) says how to ask for it
// (NoNetworkHint).
const (
	SandboxSummary   = "sandboxed: writes only to the workspace, temp and writable roots"
	NoNetworkSummary = "no network"
	NoNetworkHint    = `no network: if the command needs one, run it again with "network": true (the person is asked)`
)

// pipeCloseWait bounds how long output draining may outlast the shell after
// its process group was killed (a descendant that left the group can hold
// the pipe open).
const pipeCloseWait = 2 * time.Second

type shell struct{ o Options }

type shellArgs struct {
	Command string `json:"command"`
	// Network asks for the network for a confined command (Options.Network).
	Network bool `json:"network,omitempty"`
}

func (*shell) Name() string { return "shell" }
func (*shell) Description() string {
	return "Run a command with " + subproc.ShellName + " in the session working directory. Stdin is empty; stdout and stderr are combined and truncated when long. Commands time out. " +
		"Under auto, no network: set network for downloads or servers (go mod download, npm install, git fetch); the person is asked."
}
func (*shell) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","description":"shell command line"},"network":{"type":"boolean","description":"needs the network"}},"required":["command"]}`)
}
func (*shell) Mutating() bool { return true }

// StreamsOutput implements Streaming: the output goes to the context's
// Output as the command writes it.
func (*shell) StreamsOutput()                         {}
func (t *shell) Describe(args json.RawMessage) string { return describe(t.Request(args)) }

// Request implements Requester: the whole command, and whether it asks for
// the network.
func (t *shell) Request(args json.RawMessage) string {
	var a shellArgs
	_ = decode(args, &a)
	name := "shell: "
	if a.Network {
		name = "shell: [network] "
	}
	return strings.ToValidUTF8(name+a.Command, "\uFFFD")
}

// Run runs the command in its own process group with a minimal environment.
// On timeout or ctx end the whole group gets SIGKILL; after the shell
// exits, the group is killed too, so background children in it do not
// outlive the call (one that leaves the group, by setsid, does, unless the
// command is confined: the sandbox's supervisor then ends it, and a
// cancellation asks the supervisor). Run returns only after the shell was
// reaped and output drained.
func (t *shell) Run(ctx context.Context, args json.RawMessage) Result {
	var a shellArgs
	if err := decode(args, &a); err != nil || a.Command == "" {
		return errResult(t.Name(), "invalid arguments")
	}
	runCtx, cancel := context.WithTimeout(ctx, t.o.ShellTimeout)
	defer cancel()

	pr, pw, err := os.Pipe()
	if err != nil {
		return errResult(t.Name(), "cannot start")
	}
	defer pr.Close()
	cmd := subproc.Shell(runCtx, a.Command)
	cmd.Dir = t.o.Cwd
	cmd.Env = t.o.Env
	cmd.Stdin = nil // /dev/null
	// An *os.File: the child writes the pipe directly, and Wait returns
	// when the shell exits, not when every descendant closed the pipe.
	cmd.Stdout, cmd.Stderr = pw, pw
	subproc.OwnGroup(cmd)
	cmd.Cancel = func() error { return subproc.KillGroup(cmd.Process.Pid) }
	// Should the group kill not end the shell, exec kills it directly
	// after this delay.
	cmd.WaitDelay = pipeCloseWait
	// tree is the workspace's, brought up to date before a confined
	// command that may not write metadata starts: what appears in it by
	// the time the command ends is moved aside (newmeta.go, setAside).
	var tree *metaTree
	// gitRun are the paths git reads as configuration or runs from
	// outside its directory (shellcheck.GitRunPaths of the workspace's
	// repository and of each nested one: included files, hooks
	// directories) missing when the command starts: one it creates is
	// moved aside too, since the sandbox cannot mount over what is not
	// there.
	var gitRun []string
	// homeTop are, for each home the workspace holds (an agent started
	// in ~), the entries of its top before the command: a new one that is
	// configuration (~/.bash_aliases, which ~/.bashrc sources) is moved
	// aside too.
	homeTop := map[string][]string{}
	if t.o.Sandbox != nil {
		// A version control command that writes its metadata (.git,
		// .hg, .jj...) runs only after the person approved it
		// (ForceApproval asks: WritesMetadata comes with a reason): it
		// may then write the metadata, and nothing more.
		vcsWritable := t.check(a.Command).WritesMetadata
		if err := t.o.Sandbox(cmd, vcsWritable, t.networkOpen(a.Network)); err != nil {
			pw.Close()
			return errResult(t.Name(), "cannot start in the sandbox")
		}
		if !vcsWritable {
			tree = treeOf(t.o.Cwd)
			tree.newMetadata(t.o.Cwd) // not this command's
			for _, h := range protected.Homes(t.o.Env) {
				if within(t.o.cwdRealOrSelf(), realOrSelf(h)) {
					homeTop[h] = protected.Entries(h)
				}
			}
			// The workspace (a repository's top, or in one) once, and
			// each nested repository.
			repos := []string{filepath.Clean(t.o.Cwd)}
			for _, r := range tree.repositories() {
				if r != repos[0] {
					repos = append(repos, r)
				}
			}
			for _, r := range repos {
				for _, h := range shellcheck.GitRunPaths(r, t.o.Env) {
					if _, err := os.Lstat(h); errors.Is(err, fs.ErrNotExist) && !slices.Contains(gitRun, h) {
						gitRun = append(gitRun, h)
					}
				}
			}
		}
	}
	if err := cmd.Start(); err != nil {
		pw.Close()
		if errors.Is(err, subproc.ErrMultiLine) {
			return errResult(t.Name(), subproc.ErrMultiLine.Error())
		}
		return errResult(t.Name(), "cannot start")
	}
	pw.Close()
	pgid := cmd.Process.Pid

	out := &subproc.Capped{Limit: t.o.MaxOutput}
	var sink io.Writer = out
	live := OutputFrom(ctx)
	if live != nil {
		sink = io.MultiWriter(out, live)
	}
	var wg conc.WaitGroup
	wg.Go(func() { _, _ = io.Copy(sink, pr) })
	waitErr := cmd.Wait()
	// docs/protocol.md, Choices: tool subprocesses run in their own process group so
	// that cleanup reaches their children.
	_ = subproc.KillGroup(pgid)
	drainTimer := time.AfterFunc(pipeCloseWait, func() { _ = pr.Close() })
	wg.Wait()
	drainTimer.Stop()

	text, _ := clip(string(out.Bytes()), t.o.MaxOutput, out.Dropped())
	if tree != nil {
		created := tree.newMetadata(t.o.Cwd)
		for h, before := range homeTop {
			for _, e := range protected.Entries(h) {
				if protected.HomeConfigName(e) && !slices.Contains(before, e) && !slices.Contains(created, filepath.Join(h, e)) {
					created = append(created, filepath.Join(h, e))
				}
			}
		}
		for _, h := range gitRun {
			if _, err := os.Lstat(h); err == nil && !slices.Contains(created, h) {
				created = append(created, h)
			}
		}
		if note := setAside(t.o.Cwd, created); note != "" {
			// The note names what the command made: valid UTF-8 and
			// within the output's bound however many it made.
			note, _ = clip(note, t.o.MaxOutput, false)
			text = bound(text+note, t.o.MaxOutput, note)
		}
	}
	var outcome string
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		outcome = "cancelled"
	case runCtx.Err() != nil:
		outcome = "timed out after " + t.o.ShellTimeout.String()
	case waitErr == nil:
		outcome = "exit 0"
	case errors.As(waitErr, &exitErr) && exitErr.ExitCode() >= 0:
		outcome = "exit " + strconv.Itoa(exitErr.ExitCode())
	default:
		outcome = "killed"
	}
	if live != nil {
		live.Exited(exitStatus(waitErr))
	}
	res := Result{Text: text, IsError: outcome != "exit 0", Summary: "shell: " + outcome}
	if res.IsError && t.o.Sandbox != nil {
		// Say that the sandbox may be why: a refused write or socket
		// fails the command like any other error.
		if t.networkOpen(a.Network) {
			res.Summary += " (" + SandboxSummary + ")"
			outcome += "; " + SandboxSummary
		} else {
			res.Summary += " (" + SandboxSummary + "; " + NoNetworkSummary + ")"
			outcome += "; " + SandboxSummary + "; " + NoNetworkHint
		}
	}
	if res.IsError {
		res.Text = bound(text+"\n["+outcome+"]", t.o.MaxOutput, "\n["+outcome+"]")
	}
	if res.Text == "" {
		res.Text = "[no output]"
	}
	return res
}

// setAside moves each path of created (version control metadata or
// project configuration a confined command made where there was none:
// newmeta.go) to NAME.refused-by-sandbox beside it (or that name with -2,
// -3... when taken), and returns the note for the command's result, which
// names each one relative to dir; "" when there was none. A name it cannot
// move is named too. Where the sandbox protects metadata with read-only
// mounts, what is missing at launch cannot be mounted over, and with
// either kind of protection a directory below the top is writable, so a
// confined command could create a .git with hooks or a core.fsmonitor (run
// by the person's next git command there, or their prompt's git status), a
// .claude/settings.json whose hooks Claude Code runs, or a .magi-code with
// skills the next session loads: that is refused here, after the fact. A
// rename moves a link itself, never its target. No process of the command
// outlives it to create one later: the sandbox's supervisor ends them all
// before the command's wait returns.
func setAside(dir string, created []string) string {
	var note strings.Builder
	for _, from := range created {
		name, err := filepath.Rel(dir, from)
		if err != nil {
			name = from
		}
		if _, err := os.Lstat(from); err != nil {
			continue
		}
		// The next free name; past -9, one the command could not have
		// taken beforehand (it may make .refused-by-sandbox ... -100 first
		// to keep its .git where it is).
		to := from + ".refused-by-sandbox"
		for n := 2; n <= 17; n++ {
			if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
				break
			}
			if n <= 9 {
				to = from + ".refused-by-sandbox-" + strconv.Itoa(n)
			} else {
				to = from + ".refused-by-sandbox-" + strconv.FormatUint(rand.Uint64(), 36)
			}
		}
		_, taken := os.Lstat(to)
		if taken == nil || os.Rename(from, to) != nil {
			note.WriteString("\n[refused: the command created " + name + " (version control metadata or project configuration) and it could not be moved aside; remove it]")
			continue
		}
		note.WriteString("\n[refused: the command created " + name + " (version control metadata or project configuration, which runs outside the sandbox); moved to " + filepath.Base(to) + "]")
	}
	return note.String()
}

// exitStatus is how a waited command ended: its exit code (-1 when it did
// not exit by itself) and the name of the signal that ended it, if any.
func exitStatus(waitErr error) (code int, signal string) {
	if waitErr == nil {
		return 0, ""
	}
	var exitErr *exec.ExitError
	if !errors.As(waitErr, &exitErr) {
		return -1, ""
	}
	if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal().String()
	}
	return exitErr.ExitCode(), ""
}
