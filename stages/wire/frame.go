package wire

import (
	"cmp"
	"strconv"

	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/protocol"
)

// Request is a validated request envelope. Params holds the raw bytes of the
// params value (already checked for UTF-8 and depth); dispatch decodes it
// strictly per method.
type Request struct {
	ID     string
	Method string
	Params []byte
}

// Response is one response frame before the writer assigns its seq.
// Exactly one of Result (raw JSON) or Error is set. NullID answers with
// "id":null: the request identity itself could not be read or was invalid.
type Response struct {
	ID     string
	NullID bool
	Result []byte
	Error  protocol.Code
}

// Event is one run event before the writer assigns its seq. Name selects
// which of the fields below are encoded into data; every event carries
// SessionID and RunID. Text fields must already be redacted and chunked.
type Event struct {
	Name      string
	SessionID string
	RunID     string

	// input.persisted, message.delta, message.reconcile
	MessageID string
	Part      int
	Text      string
	LastPart  bool // reconcile; activity.output: "last"
	Partial   bool // reconcile; activity.output: "truncated"
	Revision  string
	// run.finished: Revision may be null.
	HasRevision bool

	// activity
	ActivityID string
	Kind       string // tool | subagent | compaction
	State      string // started | completed | failed
	ToolName   string // "name"
	Summary    string // activity, approval.requested, diagnostic

	// approval.requested
	ApprovalID  string
	ExpiresInMs int64
	// Scoped: the client required the approval.session capability, so
	// "session_grant" is encoded, with SessionGrant's value.
	Scoped, SessionGrant bool
	// Whole: the client required the approval.request capability, so
	// "request" and "request_truncated" are encoded.
	Whole            bool
	Request          string
	RequestTruncated bool

	// diagnostic
	Code string

	// run.finished
	Outcome     string        // completed | cancelled | failed
	Persistence string        // durable | degraded | not_started
	ErrorCode   protocol.Code // empty encodes null

	// usage (the optional usage capability): one model response's token
	// counts; ContextWindow 0 encodes null (not known); UsageSource is
	// where the response came from (turn, compaction, subagent; empty
	// encodes turn).
	InputTokens, OutputTokens, CachedInputTokens, ReasoningTokens int64
	ContextWindow                                                 int64
	UsageSource                                                   string

	// Raw, when not nil, is a complete frame of another protocol (the ACP
	// front door's notifications, requests and ordered responses), LF
	// included, that the writer enqueues as it is, in the event edge's
	// order; every other field is then ignored.
	Raw []byte
}

// Critical reports whether the event must never be silently dropped.
// docs/protocol.md, Ordering and delivery: "Deltas may coalesce/drop under pressure, authoritative
// reconciliation/terminal never silently drop."
func (e *Event) Critical() bool { return e.Name != protocol.EventMessageDelta }

// prefixHead is every frame's envelope up to the value of type.
const prefixHead = `{"protocol":"` + protocol.ProtocolName + `","version":1,"type":"`

// appendHead appends a frame's envelope up to the value of seq: protocol,
// version, type and instance_id, in that order.
func appendHead(dst []byte, typ, instanceID string) []byte {
	dst = append(dst, prefixHead...)
	dst = append(dst, typ...)
	dst = append(dst, `","instance_id":"`...)
	dst = append(dst, instanceID...)
	return append(dst, `","seq":`...)
}

// AppendResponse appends the complete response frame, including the trailing
// LF, to dst. Field order: protocol, version, type, instance_id, seq, id,
// result|error.
func AppendResponse(dst []byte, instanceID string, seq uint64, r *Response) []byte {
	dst = appendHead(dst, "response", instanceID)
	dst = strconv.AppendUint(dst, seq, 10)
	dst = append(dst, `,"id":`...)
	if r.NullID {
		dst = append(dst, "null"...)
	} else {
		dst = jsonenc.AppendString(dst, r.ID)
	}
	if r.Error != "" {
		dst = append(dst, `,"error":{"code":`...)
		dst = jsonenc.AppendString(dst, string(r.Error))
		dst = append(dst, "}}\n"...)
		return dst
	}
	dst = append(dst, `,"result":`...)
	dst = append(dst, r.Result...)
	dst = append(dst, "}\n"...)
	return dst
}

// AppendEvent appends the complete event frame, including the trailing LF.
// It does not allocate when dst has room.
func AppendEvent(dst []byte, instanceID string, seq uint64, e *Event) []byte {
	dst = appendHead(dst, "event", instanceID)
	dst = strconv.AppendUint(dst, seq, 10)
	dst = append(dst, `,"event":`...)
	dst = jsonenc.AppendString(dst, e.Name)
	dst = append(dst, `,"data":`...)
	dst = AppendEventData(dst, e)
	dst = append(dst, "}\n"...)
	return dst
}

// AppendEventData appends the event's data object.
func AppendEventData(dst []byte, e *Event) []byte {
	dst = append(dst, `{"session_id":`...)
	dst = jsonenc.AppendString(dst, e.SessionID)
	dst = append(dst, `,"run_id":`...)
	dst = jsonenc.AppendString(dst, e.RunID)
	if leadsWithMessageID(e.Name) {
		dst = appendField(dst, "message_id", e.MessageID)
	}
	return appendDataRest(dst, e)
}

// appendDataRest appends the data fields that follow run_id (and
// message_id, see leadsWithMessageID), and the data object's closing brace.
func appendDataRest(dst []byte, e *Event) []byte {
	switch e.Name {
	case protocol.EventInputPersisted:
		dst = append(dst, `,"durable":true`...)
		dst = appendField(dst, "revision", e.Revision)
	case protocol.EventMessageDelta:
		dst = append(dst, `,"part":`...)
		dst = strconv.AppendInt(dst, int64(e.Part), 10)
		dst = appendField(dst, "text", e.Text)
	case protocol.EventMessageReconcile:
		dst = append(dst, `,"part":`...)
		dst = strconv.AppendInt(dst, int64(e.Part), 10)
		dst = appendField(dst, "text", e.Text)
		dst = append(dst, `,"last_part":`...)
		dst = strconv.AppendBool(dst, e.LastPart)
		dst = append(dst, `,"partial":`...)
		dst = strconv.AppendBool(dst, e.Partial)
	case protocol.EventActivity:
		dst = appendField(dst, "activity_id", e.ActivityID)
		dst = appendField(dst, "kind", e.Kind)
		dst = appendField(dst, "state", e.State)
		dst = appendField(dst, "name", e.ToolName)
		dst = appendField(dst, "summary", e.Summary)
	case protocol.EventApprovalRequested:
		dst = appendField(dst, "approval_id", e.ApprovalID)
		dst = appendField(dst, "summary", e.Summary)
		dst = append(dst, `,"expires_in_ms":`...)
		dst = strconv.AppendInt(dst, e.ExpiresInMs, 10)
		if e.Scoped {
			dst = append(dst, `,"session_grant":`...)
			dst = strconv.AppendBool(dst, e.SessionGrant)
		}
		if e.Whole {
			dst = appendField(dst, "request", e.Request)
			dst = append(dst, `,"request_truncated":`...)
			dst = strconv.AppendBool(dst, e.RequestTruncated)
		}
	case protocol.EventDiagnostic:
		dst = appendField(dst, "code", e.Code)
		dst = appendField(dst, "summary", e.Summary)
	case protocol.EventUsage:
		for _, f := range [...]struct {
			name string
			v    int64
		}{{"input_tokens", e.InputTokens}, {"output_tokens", e.OutputTokens},
			{"cached_input_tokens", e.CachedInputTokens}, {"reasoning_tokens", e.ReasoningTokens}} {
			dst = append(dst, ',', '"')
			dst = append(dst, f.name...)
			dst = append(dst, '"', ':')
			dst = strconv.AppendInt(dst, f.v, 10)
		}
		dst = append(dst, `,"context_window":`...)
		if e.ContextWindow > 0 {
			dst = strconv.AppendInt(dst, e.ContextWindow, 10)
		} else {
			dst = append(dst, "null"...)
		}
		dst = appendField(dst, "source", cmp.Or(e.UsageSource, "turn"))
	case protocol.EventActivityOutput:
		dst = appendField(dst, "activity_id", e.ActivityID)
		dst = append(dst, `,"chunk":`...)
		dst = strconv.AppendInt(dst, int64(e.Part), 10)
		dst = appendField(dst, "text", e.Text)
		dst = append(dst, `,"last":`...)
		dst = strconv.AppendBool(dst, e.LastPart)
		dst = append(dst, `,"truncated":`...)
		dst = strconv.AppendBool(dst, e.Partial)
	case protocol.EventRunFinished:
		dst = appendField(dst, "outcome", e.Outcome)
		dst = appendField(dst, "persistence", e.Persistence)
		dst = append(dst, `,"revision":`...)
		if e.HasRevision {
			dst = jsonenc.AppendString(dst, e.Revision)
		} else {
			dst = append(dst, "null"...)
		}
		dst = append(dst, `,"error_code":`...)
		if e.ErrorCode != "" {
			dst = jsonenc.AppendString(dst, string(e.ErrorCode))
		} else {
			dst = append(dst, "null"...)
		}
	}
	return append(dst, '}')
}

func appendField(dst []byte, name, value string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return jsonenc.AppendString(dst, value)
}

// FrameOverhead is an upper bound on the bytes a frame adds around its
// payload (envelope fields, a 20-digit seq, a 36-byte instance ID, LF).
// Producers keep payloads within protocol.MaxOutputFrameBytes-FrameOverhead.
const FrameOverhead = 192
