package protocol

// Event names of version 1.
const (
	EventInputPersisted    = "input.persisted"
	EventMessageDelta      = "message.delta"
	EventMessageReconcile  = "message.reconcile"
	EventActivity          = "activity"
	EventApprovalRequested = "approval.requested"
	EventDiagnostic        = "diagnostic"
	EventRunFinished       = "run.finished"
)

// Events lists the event names of version 1, in the order docs/protocol.md's event
// table lists them.
var Events = [...]string{
	EventInputPersisted, EventMessageDelta, EventMessageReconcile, EventActivity,
	EventApprovalRequested, EventDiagnostic, EventRunFinished,
}

// EventUsage is the optional event of the usage capability: a client that
// names CapabilityUsage in initialize's required_capabilities gets one
// for each model response that reported token counts (docs/protocol.md,
// Optional capabilities). It is not one of Events: a client that did not
// require it never sees it.
const EventUsage = "usage"

// EventActivityOutput is the optional event of the activity.output
// capability: one chunk of a primary tool call's output, redacted and
// bounded (docs/protocol.md, Optional capabilities). Like EventUsage it is
// not one of Events.
const EventActivityOutput = "activity.output"
