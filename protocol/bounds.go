package protocol

import "time"

// Protocol identity. docs/protocol.md, Compatibility: "serves magi-code.local-agent, version 1".
const (
	ProtocolName    = "magi-code.local-agent"
	ProtocolVersion = 1
)

// Bounds, named after the rows of the bounds table of docs/protocol.md.
const (
	MaxInputFrameBytes      = 65536 // excluding LF
	MaxOutputFrameBytes     = 65536 // including LF
	MaxJSONDepth            = 32    // containers
	MaxIDBytes              = 64    // ID, method, capability, cursor, revision
	MaxPromptBytes          = 16384 // UTF-8 bytes, non-whitespace
	HistoryChunkBytes       = 16384 // history content chunk, raw UTF-8
	LiveChunkBytes          = 4000  // live event content chunk, raw UTF-8
	HistoryPageBytes        = 32768 // serialized result bytes
	HistoryPageEntries      = 100
	HistorySnapshotBytes    = 8 << 20
	HistorySnapshotParts    = 10000
	StoredHistoryBytes      = 64 << 20
	StoredHistoryLines      = 100000
	PendingOutputFrames     = 32
	WorkerEvents            = 32
	RunContentBytes         = 8 << 20
	RunSegments             = 512
	RunActivityIDs          = 4096
	ActivityInternalIDBytes = 1024
	SummaryBytes            = 1024
	RequestIDsPerChild      = 4096
	MaxRequiredCapabilities = 16
	MaxSelectionNameBytes   = 256 // provider/model names
	ReadBatchBytes          = 4096
)

// Durations from the bounds table.
const (
	OutputDeadline    = 2000 * time.Millisecond // from enqueue, not reset by partial progress
	CleanupWait       = 2000 * time.Millisecond
	ClosingDrain      = 2000 * time.Millisecond
	CriticalEventWait = 2000 * time.Millisecond
	ApprovalExpiry    = 60000 * time.Millisecond
)

// Methods of version 1, in the order docs/protocol.md lists them. All nine are
// advertised as capabilities.
var Methods = [...]string{
	"initialize", "status", "shutdown",
	"session.create", "session.open", "history.page",
	"turn.start", "turn.cancel", "approval.answer",
}

// CapabilityUsage is the optional capability of token usage: the usage
// run event. It is advertised only to a client that required it.
const CapabilityUsage = "usage"

// OptionalCapabilities are capabilities beyond the nine methods that a
// client gets only by naming them in required_capabilities
// (docs/protocol.md, Optional capabilities).
var OptionalCapabilities = [...]string{CapabilityUsage, CapabilityActivityOutput, CapabilityApprovalSession, CapabilityApprovalRequest, CapabilityMCPStatus, CapabilityCompact}

// CapabilityActivityOutput is the optional capability of tool output: the
// activity.output run event, which carries a primary tool call's output
// (redacted, at most ActivityOutputBytes) before the call's last activity
// state. It is advertised only to a client that required it.
const CapabilityActivityOutput = "activity.output"

// CapabilityApprovalSession is the optional capability of session grants:
// approval.requested says whether the request may be answered for the
// session ("session_grant"), and approval.answer takes "scope": "session"
// to allow the exact call for the rest of the session (docs/protocol.md,
// Optional capabilities). It is advertised only to a client that required
// it.
const CapabilityApprovalSession = "approval.session"

// CapabilityApprovalRequest is the optional capability of whole requests:
// approval.requested carries "request", the whole request redacted (a
// shell call's whole command, where "summary" is cut near 900 bytes), at
// most ApprovalRequestBytes, and "request_truncated" when it went on past
// them (docs/protocol.md, Optional capabilities). It is advertised only to
// a client that required it.
const CapabilityApprovalRequest = "approval.request"

// Bounds of approval.requested's "request": raw UTF-8 bytes, and bytes
// once JSON-escaped, so the frame stays within MaxOutputFrameBytes with a
// summary of SummaryBytes escaped whole (6 bytes a byte at worst).
const (
	ApprovalRequestBytes        = 16000
	ApprovalRequestEscapedBytes = 32000
)

// CapabilityMCPStatus is the optional capability of MCP server state:
// status (and initialize's status) carries "mcp_servers" once startup
// succeeded (docs/protocol.md, Optional capabilities). It is advertised
// only to a client that required it.
const CapabilityMCPStatus = "mcp.status"

// CapabilityCompact is the optional capability of the /compact built-in:
// a turn.start whose prompt is "/compact" (and the person's instructions)
// compacts the session's conversation now instead of going to the model
// (docs/protocol.md, Optional capabilities). It is advertised only to a
// client that required it.
const CapabilityCompact = "compact"

// MCPStatusServers bounds the servers status lists.
const MCPStatusServers = 64

// Values of approval.answer's "scope" (the approval.session capability).
const (
	ScopeOnce    = "once"
	ScopeSession = "session"
)

// Bounds of the activity.output event (docs/protocol.md, Optional
// capabilities): the text of one event is a live chunk, and a call's
// output at most four of them.
const (
	ActivityOutputChunkBytes = LiveChunkBytes
	ActivityOutputBytes      = 4 * ActivityOutputChunkBytes
)

// IsCapability reports whether name is one of the nine advertised
// capabilities or an optional one.
func IsCapability(name string) bool {
	for _, m := range Methods {
		if m == name {
			return true
		}
	}
	for _, c := range OptionalCapabilities {
		if c == name {
			return true
		}
	}
	return false
}
