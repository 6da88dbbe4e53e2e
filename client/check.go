package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/magi-code/magi-code/protocol"
)

// ErrProtocol wraps every protocol violation the client detects in the
// child's output; test with errors.Is.
var ErrProtocol = errors.New("client: protocol violation")

func violation(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrProtocol, fmt.Sprintf(format, args...))
}

// eventFields lists the exact data fields of each event beyond session_id
// and run_id (docs/protocol.md, Run events).
var eventFields = map[string][]string{
	protocol.EventInputPersisted:    {"message_id", "durable", "revision"},
	protocol.EventMessageDelta:      {"message_id", "part", "text"},
	protocol.EventMessageReconcile:  {"message_id", "part", "text", "last_part", "partial"},
	protocol.EventActivity:          {"activity_id", "kind", "state", "name", "summary"},
	protocol.EventApprovalRequested: {"approval_id", "summary", "expires_in_ms"},
	protocol.EventDiagnostic:        {"code", "summary"},
	protocol.EventRunFinished:       {"outcome", "persistence", "revision", "error_code"},
}

// optionalEvents are the events of the optional capabilities, with the
// capability and the data fields beyond session_id and run_id: only a
// client that required the capability accepts the event (docs/protocol.md,
// Optional capabilities).
var optionalEvents = map[string]struct {
	capability string
	fields     []string
}{
	protocol.EventUsage: {protocol.CapabilityUsage,
		[]string{"input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens", "context_window", "source"}},
	protocol.EventActivityOutput: {protocol.CapabilityActivityOutput,
		[]string{"activity_id", "chunk", "text", "last", "truncated"}},
}

// optionalFields are the data fields an optional capability adds to an
// event of version 1: only a client that required the capability accepts
// them, and it gets them on every such event.
var optionalFields = map[string][]struct {
	capability string
	fields     []string // each a boolean, but "request", a string
}{
	protocol.EventApprovalRequested: {
		{protocol.CapabilityApprovalSession, []string{"session_grant"}},
		{protocol.CapabilityApprovalRequest, []string{"request", "request_truncated"}},
	},
}

// enums holds the allowed values of enumerated event fields.
var enums = map[string]map[string]bool{
	"kind":        {"tool": true, "subagent": true, "compaction": true},
	"state":       {"started": true, "completed": true, "failed": true},
	"outcome":     {"completed": true, "cancelled": true, "failed": true},
	"persistence": {"durable": true, "degraded": true, "not_started": true},
}

// object decodes one JSON object strictly: no duplicate keys, nothing but
// the object in b. Values stay raw.
func object(b []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	fields := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errors.New("bad object key")
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errors.New("bad object value")
		}
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("duplicate field %q", key)
		}
		fields[key] = v
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, errors.New("unterminated object")
	}
	if dec.InputOffset() != int64(len(b)) {
		return nil, errors.New("bytes after the object")
	}
	return fields, nil
}

// exactly reports a field of want missing from have, or a field of have
// not in want.
func exactly(have map[string]json.RawMessage, want ...string) error {
	for _, k := range want {
		if _, ok := have[k]; !ok {
			return fmt.Errorf("missing field %q", k)
		}
	}
	if len(have) == len(want) {
		return nil
	}
	for k := range have {
		if !slices.Contains(want, k) {
			return fmt.Errorf("unexpected field %q", k)
		}
	}
	return nil
}

func str(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// checker holds the state that spans frames: the child's instance ID and
// the last seq.
type checker struct {
	instanceID string
	lastSeq    uint64
	// required reports whether this client required an optional
	// capability; nil: none.
	required func(capability string) bool
}

// frame checks one output line (LF included) and returns its parsed form:
// exactly one of resp or ev is set.
func (c *checker) frame(line []byte) (resp *Response, ev *Event, err error) {
	if len(line) > protocol.MaxOutputFrameBytes {
		return nil, nil, violation("frame of %d bytes exceeds %d", len(line), protocol.MaxOutputFrameBytes)
	}
	body := line[:len(line)-1]
	if !utf8.Valid(body) {
		return nil, nil, violation("frame is not valid UTF-8")
	}
	if len(body) == 0 || body[0] != '{' {
		return nil, nil, violation("frame does not start with an object: %.80q", body)
	}
	f, err := object(body)
	if err != nil {
		return nil, nil, violation("%v: %.200q", err, body)
	}
	if p, ok := str(f["protocol"]); !ok || p != protocol.ProtocolName {
		return nil, nil, violation("protocol %s", f["protocol"])
	}
	if string(f["version"]) != "1" {
		return nil, nil, violation("version %s", f["version"])
	}
	id, ok := str(f["instance_id"])
	if u, err := uuid.Parse(id); !ok || err != nil || u.String() != id {
		return nil, nil, violation("instance_id %s is not a canonical UUID", f["instance_id"])
	}
	if c.instanceID == "" {
		c.instanceID = id
	} else if id != c.instanceID {
		return nil, nil, violation("instance_id changed from %s to %s", c.instanceID, id)
	}
	var seq uint64
	if err := json.Unmarshal(f["seq"], &seq); err != nil || bytes.ContainsAny(f["seq"], ".eE-+") {
		return nil, nil, violation("seq %s is not an unsigned integer", f["seq"])
	}
	// docs/protocol.md, Events: "Sequence numbers start at 1, strictly increase across all
	// output frames".
	if (c.lastSeq == 0 && seq != 1) || seq <= c.lastSeq {
		return nil, nil, violation("seq %d after %d", seq, c.lastSeq)
	}
	c.lastSeq = seq
	raw := bytes.Clone(line)
	typ, _ := str(f["type"])
	switch typ {
	case "response":
		r, err := response(f, seq, raw)
		return r, nil, err
	case "event":
		e, err := event(f, seq, raw, c.required)
		return nil, e, err
	}
	return nil, nil, violation("frame type %s", f["type"])
}

func response(f map[string]json.RawMessage, seq uint64, raw []byte) (*Response, error) {
	r := &Response{Seq: seq, Raw: raw}
	body := "result"
	if _, isErr := f["error"]; isErr {
		body = "error"
	}
	if err := exactly(f, "protocol", "version", "type", "instance_id", "seq", "id", body); err != nil {
		return nil, violation("response: %v", err)
	}
	if string(f["id"]) != "null" {
		id, ok := str(f["id"])
		if !ok {
			return nil, violation("response id %s", f["id"])
		}
		r.ID = &id
	}
	if body == "result" {
		r.Result = f["result"]
		return r, nil
	}
	e, err := object(f["error"])
	if err != nil {
		return nil, violation("error: %v", err)
	}
	if err := exactly(e, "code"); err != nil {
		return nil, violation("error: %v", err)
	}
	code, ok := str(e["code"])
	if !ok || !protocol.Code(code).Known() {
		return nil, violation("unknown error code %s", e["code"])
	}
	r.Error = &Error{Code: code}
	return r, nil
}

func event(f map[string]json.RawMessage, seq uint64, raw []byte, required func(string) bool) (*Event, error) {
	if err := exactly(f, "protocol", "version", "type", "instance_id", "seq", "event", "data"); err != nil {
		return nil, violation("event: %v", err)
	}
	name, _ := str(f["event"])
	more, known := eventFields[name]
	if o, ok := optionalEvents[name]; ok && required != nil && required(o.capability) {
		more, known = o.fields, true
	}
	if !known {
		return nil, violation("unknown event %s", f["event"])
	}
	d, err := object(f["data"])
	if err != nil {
		return nil, violation("%s data: %v", name, err)
	}
	for _, o := range optionalFields[name] {
		if required == nil || !required(o.capability) {
			continue
		}
		more = append(slices.Clip(more), o.fields...)
		for _, k := range o.fields {
			v, present := d[k]
			switch {
			case !present:
			case k == "request":
				if s, ok := str(v); !ok || len(s) > protocol.ApprovalRequestBytes {
					return nil, violation("%s: request is not a string of at most %d bytes", name, protocol.ApprovalRequestBytes)
				}
			case string(v) != "true" && string(v) != "false":
				return nil, violation("%s: %s %s is not a boolean", name, k, v)
			}
		}
	}
	if err := exactly(d, append([]string{"session_id", "run_id"}, more...)...); err != nil {
		return nil, violation("%s data: %v", name, err)
	}
	e := &Event{Seq: seq, Name: name, Data: f["data"], Raw: raw}
	var ok1, ok2 bool
	e.SessionID, ok1 = str(d["session_id"])
	e.RunID, ok2 = str(d["run_id"])
	if !ok1 || !ok2 {
		return nil, violation("%s: session_id and run_id must be strings", name)
	}
	for field, allowed := range enums {
		if v, present := d[field]; present {
			if s, ok := str(v); !ok || !allowed[s] {
				return nil, violation("%s: %s %s", name, field, v)
			}
		}
	}
	// Codes in events are the protocol's too: clients fail closed on unknown
	// ones (run.finished's error_code may be null).
	if v, present := d["code"]; present {
		if c, ok := str(v); !ok || !protocol.Code(c).Known() {
			return nil, violation("%s: unknown code %s", name, v)
		}
	}
	if v, present := d["error_code"]; present && string(v) != "null" {
		if c, ok := str(v); !ok || !protocol.Code(c).Known() {
			return nil, violation("%s: unknown error_code %s", name, v)
		}
	}
	// docs/protocol.md, Bounds: live chunks are at most 4,000 UTF-8 bytes; summaries at most
	// 1024 after redaction.
	if t, ok := str(d["text"]); ok && len(t) > protocol.LiveChunkBytes {
		return nil, violation("%s: text of %d bytes", name, len(t))
	}
	if s, ok := str(d["summary"]); ok && len(s) > protocol.SummaryBytes {
		return nil, violation("%s: summary of %d bytes", name, len(s))
	}
	return e, nil
}
