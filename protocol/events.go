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
