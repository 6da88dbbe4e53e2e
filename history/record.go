package history

import (
	"errors"
	"strconv"

	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/protocol"
)

// SchemaVersion is the header version this package writes. Version 1 is the
// older layout whose header may lack cwd (opened with the cwd_unverified
// notice); version 2 always records the canonical absolute cwd.
const SchemaVersion = 2

// Type is a record's "type" field.
type Type uint8

// Record types, in the order doc.go describes them.
const (
	TypeHeader           Type = iota + 1 // "session": first line of every nonempty file
	TypeInput                            // "input": required user input
	TypeInternalInput                    // "internal_input": automatic/provider-only prompt, replay only
	TypeAssistantChunk                   // "assistant_chunk": one accepted delta of a segment
	TypeAssistant                        // "assistant": segment completion, reconciled text
	TypeReasoningSummary                 // "reasoning_summary"
	TypeActivity                         // "activity": tool/subagent/compaction state
	TypeCompaction                       // "compaction": summary; replay starts here
	TypeDiagnostic                       // "diagnostic": code + redacted summary
	TypeRunCompleted                     // "run_completed": durable end of a turn
	TypeToolCall                         // "tool_call": replay only
	TypeToolResult                       // "tool_result": replay only
	TypeTaskScope                        // "task_scope": delegated task-scope ceiling
	TypeUsage                            // "usage": token counts of one model response
	TypeApproval                         // "approval": a request the person allowed
	TypeSelection                        // "selection": the session's selection, changed after its header
	TypeSideUsage                        // "side_usage": token counts of a compaction's or a subagent's response
	typeCount
)

var typeNames = [typeCount]string{
	TypeHeader:           "session",
	TypeInput:            "input",
	TypeInternalInput:    "internal_input",
	TypeAssistantChunk:   "assistant_chunk",
	TypeAssistant:        "assistant",
	TypeReasoningSummary: "reasoning_summary",
	TypeActivity:         "activity",
	TypeCompaction:       "compaction",
	TypeDiagnostic:       "diagnostic",
	TypeRunCompleted:     "run_completed",
	TypeToolCall:         "tool_call",
	TypeToolResult:       "tool_result",
	TypeTaskScope:        "task_scope",
	TypeUsage:            "usage",
	TypeApproval:         "approval",
	TypeSelection:        "selection",
	TypeSideUsage:        "side_usage",
}

func (t Type) String() string {
	if t > 0 && t < typeCount {
		return typeNames[t]
	}
	return "unknown"
}

func typeFromName(s []byte) Type {
	for t := TypeHeader; t < typeCount; t++ {
		if typeNames[t] == string(s) {
			return t
		}
	}
	return 0
}

// Record is one line of a session file. Only the fields that belong to Type
// are written or accepted when read (see fieldsOf). It is a flat value:
// every field is a string, a bool or (version) a small integer.
type Record struct {
	Type      Type
	SessionID string

	// header
	Version   int
	Cwd       string // header; optional on input records
	Provider  string
	Model     string
	Thinking  string
	CreatedAt string

	RunID     string
	MessageID string // input, internal_input, assistant_chunk, assistant
	ID        string // reasoning_summary: stored item identity, optional

	Text    string // input, chunks, assistant, reasoning, compaction, tool_result
	HasText bool   // assistant only: false means a legacy completion, use chunks
	Partial bool   // assistant: the segment ended early (failed/cancelled run)

	ProviderSummary bool // reasoning_summary provenance

	ActivityID string
	Kind       string // activity: tool | subagent | compaction
	State      string // activity: started | completed | failed
	Name       string // activity, tool_call
	Summary    string // activity, diagnostic

	Code      string // diagnostic
	Outcome   string // run_completed: completed | cancelled | failed
	ErrorCode string // run_completed, optional

	CallID    string // tool_call, tool_result
	Arguments string // tool_call: the raw JSON arguments, stored as a string
	IsError   bool   // tool_result

	Ceiling string // task_scope
	Scope   string // approval: "session" when allowed for the rest of the session, else empty

	// usage (Model: the model that answered, optional)
	InputTokens, OutputTokens, CachedInputTokens, ReasoningTokens int64

	// selection (with Provider, Model, Thinking): the front door's
	// approval mode, optional (ACP's ask, auto, read-only)
	Mode string
}

// field identifies one JSON key.
type field uint8

const (
	fType field = iota
	fSessionID
	fVersion
	fCwd
	fProvider
	fModel
	fThinking
	fCreatedAt
	fRunID
	fMessageID
	fID
	fText
	fPartial
	fProviderSummary
	fActivityID
	fKind
	fState
	fName
	fSummary
	fCode
	fOutcome
	fErrorCode
	fCallID
	fArguments
	fIsError
	fCeiling
	fInputTokens
	fOutputTokens
	fCachedInputTokens
	fReasoningTokens
	fScope
	fMode
	fieldCount
)

var fieldNames = [fieldCount]string{
	"type", "session_id", "version", "cwd", "provider", "model", "thinking", "created_at",
	"run_id", "message_id", "id", "text", "partial", "provider_summary", "activity_id",
	"kind", "state", "name", "summary", "code", "outcome", "error_code", "call_id",
	"arguments", "is_error", "ceiling", "input_tokens", "output_tokens", "cached_input_tokens",
	"reasoning_tokens", "scope", "mode",
}

func fieldFromName(s []byte) (field, bool) {
	for f := fType; f < fieldCount; f++ {
		if fieldNames[f] == string(s) {
			return f, true
		}
	}
	return 0, false
}

type fieldSet uint32

func set(fs ...field) fieldSet {
	var s fieldSet
	for _, f := range fs {
		s |= 1 << f
	}
	return s
}

// allowed and required keys per type. type and session_id are required on
// every record.
var (
	allowedFields = [typeCount]fieldSet{
		TypeHeader:           set(fVersion, fCwd, fProvider, fModel, fThinking, fCreatedAt),
		TypeInput:            set(fRunID, fMessageID, fText, fCwd),
		TypeInternalInput:    set(fRunID, fMessageID, fText),
		TypeAssistantChunk:   set(fRunID, fMessageID, fText),
		TypeAssistant:        set(fRunID, fMessageID, fText, fPartial),
		TypeReasoningSummary: set(fRunID, fID, fText, fProviderSummary),
		TypeActivity:         set(fRunID, fActivityID, fKind, fState, fName, fSummary),
		TypeCompaction:       set(fRunID, fText),
		TypeDiagnostic:       set(fRunID, fCode, fSummary),
		TypeRunCompleted:     set(fRunID, fOutcome, fErrorCode),
		TypeToolCall:         set(fRunID, fCallID, fName, fArguments),
		TypeToolResult:       set(fRunID, fCallID, fText, fIsError),
		TypeTaskScope:        set(fRunID, fCeiling),
		TypeUsage:            set(fRunID, fModel, fInputTokens, fOutputTokens, fCachedInputTokens, fReasoningTokens),
		TypeApproval:         set(fRunID, fSummary, fScope),
		TypeSelection:        set(fProvider, fModel, fThinking, fMode),
		TypeSideUsage:        set(fRunID, fKind, fModel, fInputTokens, fOutputTokens, fCachedInputTokens, fReasoningTokens),
	}
	requiredFields = [typeCount]fieldSet{
		TypeHeader:           set(fVersion),
		TypeInput:            set(fMessageID, fText),
		TypeInternalInput:    set(fText),
		TypeAssistantChunk:   set(fMessageID, fText),
		TypeAssistant:        set(fMessageID),
		TypeReasoningSummary: set(fText),
		TypeActivity:         set(fActivityID, fKind, fState),
		TypeCompaction:       set(fText),
		TypeDiagnostic:       set(fCode),
		TypeRunCompleted:     set(fRunID, fOutcome),
		TypeToolCall:         set(fCallID, fName),
		TypeToolResult:       set(fCallID),
		TypeTaskScope:        set(fCeiling),
		TypeUsage:            set(fRunID, fInputTokens, fOutputTokens),
		TypeApproval:         set(fRunID, fSummary),
		TypeSelection:        set(fProvider),
		TypeSideUsage:        set(fRunID, fKind, fInputTokens, fOutputTokens),
	}
)

// MaxTokenCount bounds a stored token count: 15 decimal digits.
const MaxTokenCount = 999_999_999_999_999

// ErrInvalidRecord reports a record that this package would refuse to read
// back: wrong type, a missing required field, or a value outside its grammar.
var ErrInvalidRecord = errors.New("history: invalid record")

// Validate checks the record's values against the schema (the same checks the
// reader applies), so that nothing is written that could not be read back.
// Presence of required string fields is checked by the reader; Validate
// checks that they are nonempty.
func (r *Record) Validate() error {
	if r.Type == 0 || r.Type >= typeCount || !ValidSessionID(r.SessionID) {
		return ErrInvalidRecord
	}
	ok := true
	switch r.Type {
	case TypeHeader:
		ok = r.Version >= 1 && r.Version <= SchemaVersion
	case TypeInput:
		ok = validMessageID(r.MessageID)
	case TypeInternalInput:
		ok = r.MessageID == "" || validMessageID(r.MessageID)
	case TypeAssistantChunk, TypeAssistant:
		ok = validMessageID(r.MessageID)
	case TypeActivity:
		ok = r.ActivityID != "" && len(r.ActivityID) <= protocol.ActivityInternalIDBytes &&
			oneOf(r.Kind, "tool", "subagent", "compaction") &&
			oneOf(r.State, "started", "completed", "failed") &&
			len(r.Summary) <= protocol.SummaryBytes && len(r.Name) <= protocol.SummaryBytes
	case TypeDiagnostic:
		// docs/protocol.md, session.open: "Stored reads reject diagnostics" that break the diagnostic
		// bounds: a code in the ID grammar and a summary of at most 1024 bytes.
		// Its code must be one of the protocol's (docs/protocol.md, Error codes): clients fail closed on others.
		ok = protocol.Code(r.Code).Known() && len(r.Summary) <= protocol.SummaryBytes
	case TypeRunCompleted:
		ok = r.RunID != "" && oneOf(r.Outcome, "completed", "cancelled", "failed") &&
			(r.ErrorCode == "" || protocol.Code(r.ErrorCode).Known())
	case TypeToolCall, TypeToolResult:
		ok = r.CallID != ""
	case TypeTaskScope:
		ok = r.Ceiling != ""
	case TypeApproval:
		ok = r.RunID != "" && len(r.Summary) <= protocol.SummaryBytes && (r.Scope == "" || r.Scope == "session")
	case TypeSelection:
		ok = r.Provider != "" && len(r.Provider) <= protocol.MaxSelectionNameBytes && len(r.Model) <= protocol.MaxSelectionNameBytes &&
			len(r.Thinking) <= protocol.MaxSelectionNameBytes && (r.Mode == "" || len(r.Mode) <= 32 && ValidID(r.Mode))
	case TypeUsage, TypeSideUsage:
		ok = r.RunID != "" && len(r.Model) <= protocol.MaxSelectionNameBytes &&
			(r.Type == TypeUsage || oneOf(r.Kind, "compaction", "subagent"))
		for _, n := range []int64{r.InputTokens, r.OutputTokens, r.CachedInputTokens, r.ReasoningTokens} {
			ok = ok && n >= 0 && n <= MaxTokenCount
		}
	}
	if r.RunID != "" && !ValidID(r.RunID) {
		ok = false
	}
	if !ok {
		return ErrInvalidRecord
	}
	return nil
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}

// ValidSessionID reports whether id follows the session ID grammar.
func ValidSessionID(id string) bool { return protocol.ValidSessionID(id) }

// ValidID reports whether id follows the protocol ID grammar (revisions,
// cursors, run IDs, codes).
func ValidID(id string) bool { return protocol.ValidID(id) }

// validMessageID: stored message IDs use the session ID grammar (no dot), so
// that the projection's synthesized IDs, which contain a dot, never collide.
func validMessageID(id string) bool { return protocol.ValidSessionID(id) }

// AppendRecord appends r as one JSON line, LF included. Fields appear in a
// fixed order; optional empty strings and false booleans are omitted, except
// that an assistant completion with HasText writes its text even when empty.
func AppendRecord(dst []byte, r *Record) []byte {
	allowed := allowedFields[r.Type]
	req := requiredFields[r.Type]
	dst = append(dst, `{"type":"`...)
	dst = append(dst, typeNames[r.Type]...)
	dst = append(dst, `","session_id":`...)
	dst = jsonenc.AppendString(dst, r.SessionID)
	str := func(f field, v string) {
		if allowed&(1<<f) == 0 || (v == "" && req&(1<<f) == 0) {
			return
		}
		dst = append(dst, ',', '"')
		dst = append(dst, fieldNames[f]...)
		dst = append(dst, '"', ':')
		dst = jsonenc.AppendString(dst, v)
	}
	flag := func(f field, v bool) {
		if allowed&(1<<f) == 0 || !v {
			return
		}
		dst = append(dst, ',', '"')
		dst = append(dst, fieldNames[f]...)
		dst = append(dst, `":true`...)
	}
	if r.Type == TypeHeader {
		dst = append(dst, `,"version":`...)
		dst = strconv.AppendInt(dst, int64(r.Version), 10)
	}
	str(fCwd, r.Cwd)
	str(fProvider, r.Provider)
	str(fModel, r.Model)
	str(fThinking, r.Thinking)
	str(fCreatedAt, r.CreatedAt)
	str(fRunID, r.RunID)
	str(fMessageID, r.MessageID)
	str(fID, r.ID)
	if r.Type == TypeAssistant {
		if r.HasText {
			dst = append(dst, `,"text":`...)
			dst = jsonenc.AppendString(dst, r.Text)
		}
	} else {
		str(fText, r.Text)
	}
	flag(fPartial, r.Partial)
	flag(fProviderSummary, r.ProviderSummary)
	str(fActivityID, r.ActivityID)
	str(fKind, r.Kind)
	str(fState, r.State)
	str(fName, r.Name)
	str(fSummary, r.Summary)
	str(fCode, r.Code)
	str(fOutcome, r.Outcome)
	str(fErrorCode, r.ErrorCode)
	str(fCallID, r.CallID)
	str(fArguments, r.Arguments)
	flag(fIsError, r.IsError)
	str(fCeiling, r.Ceiling)
	str(fScope, r.Scope)
	str(fMode, r.Mode)
	num := func(f field, v int64) {
		if allowed&(1<<f) == 0 || (v == 0 && req&(1<<f) == 0) {
			return
		}
		dst = append(dst, ',', '"')
		dst = append(dst, fieldNames[f]...)
		dst = append(dst, '"', ':')
		dst = strconv.AppendInt(dst, v, 10)
	}
	num(fInputTokens, r.InputTokens)
	num(fOutputTokens, r.OutputTokens)
	num(fCachedInputTokens, r.CachedInputTokens)
	num(fReasoningTokens, r.ReasoningTokens)
	return append(dst, '}', '\n')
}
