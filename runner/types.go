package runner

import (
	"context"

	"github.com/magi-code/magi-code/runner/agent"
	"github.com/magi-code/magi-code/runner/approval"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/tools"
)

// The runner's types that a caller implements or reads. They are aliases:
// the definitions, and their documentation, live in the runner's parts.
// The sources of a response's usage (agent.UsageSink).
const (
	UsageTurn       = agent.UsageTurn
	UsageCompaction = agent.UsageCompaction
	UsageSubagent   = agent.UsageSubagent
)

type (
	// Env is what Admit takes from the process (see ProcessEnv).
	Env = config.Env
	// Sink receives a run's visible progress (agent.Sink).
	Sink = agent.Sink
	// UsageSink, RunningSink, OutputSink and LineSink are the optional
	// parts of a Sink.
	UsageSink   = agent.UsageSink
	RunningSink = agent.RunningSink
	OutputSink  = agent.OutputSink
	LineSink    = agent.LineSink
	// Usage is a response's token counts (provider.Usage).
	Usage = provider.Usage
	// ClientFS is a client's file system the file tools read and write
	// through (tools.ClientFS; see WithClientFS).
	ClientFS = tools.ClientFS
	// Approver asks the user to allow one tool call.
	Approver = agent.Approver
	// Decision is how an approval request ended (approval.Decision).
	Decision = approval.Decision
	// Grants are one session's exact-call grants (approval.Grants).
	Grants = approval.Grants
	// Result is what a run produced, whatever its outcome.
	Result = agent.Result
	// Outcome is how a run ended (run.finished outcome spelling).
	Outcome = agent.Outcome
	// Message and ToolCall are the plain conversation types a Sink sees.
	Message  = agent.Message
	ToolCall = agent.ToolCall
	// Error carries a safe code; as a cancellation cause it becomes the
	// run's failure code.
	Error = agent.Error
	// Provider streams model responses.
	Provider = provider.Provider
)

// Approval decisions (approval.Decision): who decided.
const (
	Allowed           = approval.Allowed
	Denied            = approval.Denied
	Expired           = approval.Expired
	ApprovalCancelled = approval.Cancelled
	// AllowedForSession: allowed, and this exact call granted for the rest
	// of the session (approval.Ask).
	AllowedForSession = approval.AllowedForSession
)

// NewGrants returns an empty set of session grants (approval.NewGrants).
func NewGrants() *Grants { return approval.NewGrants() }

// Request is the whole request of the approval asked on ctx, unredacted
// and unbounded ("" when the tool has no more than its summary;
// approval.Request).
func Request(ctx context.Context) string { return approval.Request(ctx) }

// Grantable reports whether the approval asked on ctx may be answered
// AllowedForSession (approval.Grantable).
func Grantable(ctx context.Context) bool { return approval.Grantable(ctx) }

// ApprovalReason is the reason of the protection that forced the approval
// being asked on ctx (no OS sandbox, a read outside the workspace, a force
// push...), "" when the approval mode asked (approval.Reason).
func ApprovalReason(ctx context.Context) string { return approval.Reason(ctx) }

// Approval modes of a Turn (agent.ApprovalAsk, agent.ApprovalAuto).
const (
	ApprovalAsk  = agent.ApprovalAsk
	ApprovalAuto = agent.ApprovalAuto
)

// Outcomes.
const (
	Completed = agent.Completed
	Cancelled = agent.Cancelled
	Failed    = agent.Failed
)

// Activity kinds and states, spelled as in the protocol's activity event.
const (
	KindTool       = agent.KindTool
	KindSubagent   = agent.KindSubagent
	KindCompaction = agent.KindCompaction

	StateStarted   = agent.StateStarted
	StateCompleted = agent.StateCompleted
	StateFailed    = agent.StateFailed
)

// UnknownToolName is the activity name shown for a tool name the model
// made up that is not safe to show.
const UnknownToolName = agent.UnknownToolName

// RoleUser is the role of user messages (Sink.Compaction keeps only these).
const RoleUser = provider.RoleUser

// WithClientFS returns ctx carrying fs: the file tools of the runs under
// it read and write the client's buffers, after their protections and
// approvals (tools.WithClientFS).
func WithClientFS(ctx context.Context, fs ClientFS) context.Context {
	return tools.WithClientFS(ctx, fs)
}

// ErrCancelled is the cancellation cause of a run cancelled by the user.
var ErrCancelled = agent.ErrCancelled

// ErrRoundLimit is the error of a run that reached its bound of provider
// calls (agent.DefaultMaxRounds): Failed with execution_failed.
var ErrRoundLimit = agent.ErrRoundLimit

// FailureDetail is what the diagnostic log says of a failed run's error
// beyond its code (agent.FailureDetail); both front doors log it.
func FailureDetail(err error) string { return agent.FailureDetail(err) }
