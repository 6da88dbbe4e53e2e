package tools

import (
	"encoding/json"
	"strings"

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
// shell.Destructive), checked against the session cwd (as given and resolved) and
// the HOME of the shell's environment. Invalid arguments are not
// destructive: Run refuses them. It is pure (no I/O) and takes microseconds;
// it satisfies agent.ApprovalForcer.
func (t *shell) ForceApproval(args json.RawMessage) (bool, string) {
	if t.o.NoForceApproval {
		return false, ""
	}
	var a shellArgs
	if err := decode(args, &a); err != nil || a.Command == "" {
		return false, ""
	}
	home := ""
	for _, kv := range t.o.Env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	if bad, why := shellcheck.Destructive(a.Command, t.o.Cwd, home); bad {
		return bad, why
	}
	// The same workspace by its resolved path (/tmp and /private/tmp on
	// macOS): rm -rf of either spelling deletes it.
	if t.o.cwdReal != t.o.Cwd {
		return shellcheck.Destructive(a.Command, t.o.cwdReal, home)
	}
	return false, ""
}
