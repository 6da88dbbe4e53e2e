package tools

import (
	"encoding/json"

	shellcheck "github.com/magi-code/magi-code/runner/shell"
)

// ForceApprover is implemented by tools some of whose calls need the user's
// approval even under tools.approval = "auto". The agent asks it before
// running a call; the shell tool implements it with shell.Destructive.
type ForceApprover interface {
	// ForceApproval reports whether this call must be approved by the user,
	// and a short fixed reason (safe to show, no quoted arguments).
	ForceApproval(args json.RawMessage) (bool, string)
}

var _ ForceApprover = (*shell)(nil)

// ForceApproval reports whether the command is destructive (see
// shell.Destructive), checked against the session cwd and the shell's
// environment (HOME, TMPDIR); the reason is one of shell.Reasons. Invalid
// arguments are not destructive: Run refuses them. It reads the file system
// only to resolve the symbolic links and globs of the paths a recursive
// delete or permission change names; it satisfies agent.ApprovalForcer.
func (t *shell) ForceApproval(args json.RawMessage) (bool, string) {
	var a shellArgs
	if err := decode(args, &a); err != nil || a.Command == "" {
		return false, ""
	}
	if t.o.Unconfined {
		return true, ReasonUnconfined
	}
	why := t.destructive(a.Command)
	return why != "", string(why)
}

// ReasonUnconfined is the reason a shell command asks under auto when no
// OS sandbox would confine it (Options.Unconfined).
const ReasonUnconfined = "no OS sandbox: shell commands ask under auto"

// destructive is the guard rail's reason for command, "" when it runs
// without asking (or the guard rail is off). Under the sandbox the
// workspace's .git is read-only, so git commands that write it ask too.
func (t *shell) destructive(command string) shellcheck.Reason {
	if t.o.NoForceApproval {
		return ""
	}
	_, why := shellcheck.Destructive(command, shellcheck.Place{Cwd: t.o.Cwd, Env: t.o.Env, GitReadOnly: t.o.Sandbox != nil})
	return why
}
