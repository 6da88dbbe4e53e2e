package agent

import (
	"encoding/json"

	"github.com/magi-code/magi-code/runner/tools"
)

// ApprovalForcer is an optional interface of a tools.Tool: the protections
// hook point. Before a call runs, the runner asks the tool
// whether this call must be approved whatever the approval mode. When
// ForceApproval returns true, the call requests approval even under
// approval = "auto" (and even for a tool that is not Mutating), and the
// approval summary starts with "protected: " and reason. Denial, expiry and
// cancellation then behave as for any approval: the tool never runs, and
// the activity summary names the protection (approval.Outcome).
//
// runner/tools implements it for destructive shell commands (recursive
// deletes of the workspace or home, force pushes, disk formatting) and,
// under approval = "ask", for reads outside the working directory; a call
// the person allowed runs with its context marked (tools.WithApproved),
// which is what lets such a read go ahead. reason
// is a short fixed phrase such as "recursive delete of the home directory";
// it is shown to the user after redaction, so it must not quote secrets.
// ForceApproval must be fast and side-effect free: it runs on the run's
// goroutine, before any hook and before the tool.
type ApprovalForcer interface {
	ForceApproval(args json.RawMessage) (force bool, reason string)
}

// ProtectedPrefix starts the approval summary of a forced approval.
const ProtectedPrefix = "protected: "

// needsApproval reports whether a call must be approved, with what summary,
// and the protection's reason when a protection forced it: mutating tools
// under "ask", and any call a tool's ForceApproval claims, whatever the
// mode.
func (r *run) needsApproval(tool tools.Tool, args json.RawMessage) (ask bool, summary, reason string) {
	if f, ok := tool.(ApprovalForcer); ok {
		if force, reason := f.ForceApproval(args); force {
			return true, ProtectedPrefix + reason + ": " + tool.Describe(args), reason
		}
	}
	if !tool.Mutating() || r.cfg.Approval == ApprovalAuto {
		return false, "", ""
	}
	return true, tool.Describe(args), ""
}

// wholeRequest is the whole request of a call that asks, as its summary
// would be without Describe's bound (tools.Requester), or "" when the tool
// describes no more than its summary.
func wholeRequest(tool tools.Tool, args json.RawMessage, reason string) string {
	rq, ok := tool.(tools.Requester)
	if !ok {
		return ""
	}
	if reason != "" {
		return ProtectedPrefix + reason + ": " + rq.Request(args)
	}
	return rq.Request(args)
}
