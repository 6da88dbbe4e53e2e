package protocol

// Code is a protocol error code: the only thing an error response carries.
// Codes never carry submitted text, paths or underlying error strings.
type Code string

// Protocol errors.
const (
	CodeInvalidFrame          Code = "invalid_frame"
	CodeInvalidRequest        Code = "invalid_request"
	CodeInvalidParams         Code = "invalid_params"
	CodeProtocolMismatch      Code = "protocol_mismatch"
	CodeUnsupportedMethod     Code = "unsupported_method"
	CodeUnsupportedCapability Code = "unsupported_capability"
	CodeNotInitialized        Code = "not_initialized"
	CodeAlreadyInitialized    Code = "already_initialized"
	CodeDuplicateID           Code = "duplicate_id"
	CodeRequestLimit          Code = "request_limit"
	CodeFrameTooLarge         Code = "frame_too_large"
	CodeIncompleteFrame       Code = "incomplete_frame"
)

// Startup errors.
const (
	CodeConfigurationInvalid Code = "configuration_invalid"
	CodeProviderUnavailable  Code = "provider_unavailable"
	CodeProfileInvalid       Code = "profile_invalid"
	CodeMCPUnavailable       Code = "mcp_unavailable"
	CodeStartupCancelled     Code = "startup_cancelled"
	CodeStartupFailed        Code = "startup_failed"
)

// Session and history errors.
const (
	CodeBusy               Code = "busy"
	CodeStaleSession       Code = "stale_session"
	CodeSessionMissing     Code = "session_missing"
	CodeSessionBusy        Code = "session_busy"
	CodeSessionInvalid     Code = "session_invalid"
	CodeCwdMismatch        Code = "cwd_mismatch"
	CodeHistoryLimit       Code = "history_limit"
	CodeStaleRevision      Code = "stale_revision"
	CodeContentLimit       Code = "content_limit"
	CodeOperationCancelled Code = "operation_cancelled"
)

// Turn errors.
const (
	CodeStaleRun          Code = "stale_run"
	CodeStaleApproval     Code = "stale_approval"
	CodeExecutionFailed   Code = "execution_failed"
	CodePersistenceFailed Code = "persistence_failed"
	CodeOutputUnavailable Code = "output_unavailable"
)

// Notices returned by session.open.
const (
	NoticeSavedSelectionUnavailable = "saved_selection_unavailable"
	NoticeSavedSelectionNotice      = "saved_selection_notice"
	NoticeCwdUnverified             = "cwd_unverified"
)

// DiagProviderRetry is the runner's diagnostic code of a provider call
// being retried after waits of more than a second in all (a rate limit, an
// overloaded server, a dropped connection). Like every code of the runner's
// own, it is not an error code: the diagnostic event carries it as
// execution_failed (docs/protocol.md, Run events), with a summary saying it
// is a retry.
const DiagProviderRetry = "provider_retry"

// Invocation identities: what started the turns of a runtime. serve --stdio
// is the local agent (docs/protocol.md, Initialization: "Invocation identity
// is local_agent, not Mission Control or subagent"); the terminal app runs
// the same pipeline in-process as Mission Control; `magi-code acp` is an
// editor's agent (acp, docs/acp.md). Hooks read it in their
// input ("invocation") and every line of the diagnostic log carries it.
const (
	InvocationLocalAgent     = "local_agent"
	InvocationMissionControl = "mission_control"
	InvocationACP            = "acp"
)

// Closes reports whether answering with c ends admission and closes the
// connection. docs/protocol.md, Error codes: "Mismatch/request-limit/oversize close as specified."
func (c Code) Closes() bool {
	return c == CodeProtocolMismatch || c == CodeRequestLimit || c == CodeFrameTooLarge
}

// Codes lists every code of version 1, in the order docs/protocol.md lists them.
var Codes = [...]Code{
	CodeInvalidFrame, CodeInvalidRequest, CodeInvalidParams, CodeProtocolMismatch, CodeUnsupportedMethod,
	CodeUnsupportedCapability, CodeNotInitialized, CodeAlreadyInitialized, CodeDuplicateID, CodeRequestLimit,
	CodeFrameTooLarge, CodeIncompleteFrame,
	CodeConfigurationInvalid, CodeProviderUnavailable, CodeProfileInvalid, CodeMCPUnavailable,
	CodeStartupCancelled, CodeStartupFailed,
	CodeBusy, CodeStaleSession, CodeSessionMissing, CodeSessionBusy, CodeSessionInvalid, CodeCwdMismatch,
	CodeHistoryLimit, CodeStaleRevision, CodeContentLimit, CodeOperationCancelled,
	CodeStaleRun, CodeStaleApproval, CodeExecutionFailed, CodePersistenceFailed, CodeOutputUnavailable,
}

// Known reports whether c is a code of version 1. docs/protocol.md, Compatibility: "Clients must fail
// closed on unknown ... error code": nothing else goes on the wire.
func (c Code) Known() bool {
	for _, k := range Codes {
		if k == c {
			return true
		}
	}
	return false
}
