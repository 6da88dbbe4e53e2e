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
	why := string(t.destructive(a.Command))
	if net := t.networkAsks(a.Network); net != "" {
		if why != "" {
			return true, why + "; " + net
		}
		return true, net
	}
	return why != "", why
}

// ReasonUnconfined is the reason a shell command asks under auto when no
// OS sandbox would confine it (Options.Unconfined).
const ReasonUnconfined = "no OS sandbox: shell commands ask under auto"

// Reasons a confined shell command asks for the network.
const (
	// ReasonNetwork: the call set network: true under NetworkOnRequest.
	ReasonNetwork = "network requested"
	// ReasonNetworkUnclosable: under NetworkUnclosable every command asks.
	ReasonNetworkUnclosable = "the sandbox cannot close the network here"
)

// NetworkRule is when a confined shell command gets the network
// (Options.Network; [tools.sandbox] network).
type NetworkRule int

const (
	// NetworkOnRequest: closed; a call with network: true asks the person
	// (ReasonNetwork) and, allowed, runs with it open.
	NetworkOnRequest NetworkRule = iota
	// NetworkOpen: open for every command, unasked (the global setting
	// network = true).
	NetworkOpen
	// NetworkUnclosable: the sandbox cannot close the network on this
	// machine, so every command asks (ReasonNetworkUnclosable) and,
	// allowed, runs with it open.
	NetworkUnclosable
)

// networkAsks is the reason a confined call asks for the network, given
// its network argument; "" when it does not (or nothing confines it).
func (t *shell) networkAsks(requested bool) string {
	switch {
	case t.o.Sandbox == nil:
		return ""
	case t.o.Network == NetworkUnclosable:
		return ReasonNetworkUnclosable
	case t.o.Network == NetworkOnRequest && requested:
		return ReasonNetwork
	}
	return ""
}

// networkOpen reports whether a confined call gets the network: it asked
// for it (and so was asked about), or the rule opens it for every call.
func (t *shell) networkOpen(requested bool) bool {
	return requested || t.o.Network != NetworkOnRequest
}

// destructive is the guard rail's reason for command, "" when it runs
// without asking (or the guard rail is off). Under the sandbox version
// control metadata (.git, .hg, .jj...) is read-only, so version control
// commands that write it ask too.
func (t *shell) destructive(command string) shellcheck.Reason {
	return t.check(command).Why
}

// check is the guard rail's verdict on command; empty when the guard rail
// is off.
func (t *shell) check(command string) shellcheck.Verdict {
	if t.o.NoForceApproval {
		return shellcheck.Verdict{}
	}
	return shellcheck.Check(command, shellcheck.Place{Cwd: t.o.Cwd, Env: t.o.Env, GitReadOnly: t.o.Sandbox != nil})
}
