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
