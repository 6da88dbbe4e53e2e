package conformance

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/protocol/schemacheck"
)

// The checks every frame is held to, whatever the transcript; the kit
// reports one line for each.
const (
	CheckFraming  = "framing"
	CheckSchema   = "schema"
	CheckEnvelope = "envelope"
	CheckErrors   = "errors"
	CheckGrammar  = "event grammar"
)

// Checks lists them in report order, with what each holds.
var Checks = [...]struct{ Name, What string }{
	{CheckFraming, "LF-terminated lines of at most 65,536 bytes of UTF-8, one JSON object each"},
	{CheckSchema, "every frame matches protocol/schema.json"},
	{CheckEnvelope, "one instance_id; seq from 1, strictly increasing; responses only to IDs sent"},
	{CheckErrors, "error frames carry a code and nothing else (no submitted text)"},
	{CheckGrammar, "turn.start answered before its run's events; input.persisted first, or else run.finished with persistence not_started (failed or cancelled, with an error_code); delta parts increase; reconcile parts contiguous from 0 up to last_part; run.finished once, last"},
}

// Violation is a failed stream check.
type Violation struct {
	Check string
	Msg   string
}

func (v *Violation) Error() string { return v.Check + ": " + v.Msg }

func violation(check, format string, args ...any) *Violation {
	return &Violation{Check: check, Msg: fmt.Sprintf(format, args...)}
}

// stream holds the state of the per-frame checks of one server.
type stream struct {
	instanceID string
	lastSeq    int64
	sent       map[string]string // request ID -> method
	runs       map[string]*runState
	frames     int
}

type runState struct {
	persisted, finished, events bool
	deltaPart                   map[string]int64 // last delta part per message
	reconcile                   map[string]int64 // next reconcile part per message; -1 once complete
}

func newStream() *stream {
	return &stream{sent: map[string]string{}, runs: map[string]*runState{}}
}

// request records a line sent to the server (best effort: raw bytes that
// are not a request are ignored).
func (s *stream) request(line []byte) {
	var r struct {
		ID     string `json:"id"`
		Method string `json:"method"`
	}
	if json.Unmarshal(line, &r) == nil && r.ID != "" {
		s.sent[r.ID] = r.Method
	}
}

// frame checks one output line (LF included) and returns its decoded
// form.
func (s *stream) frame(line []byte) (map[string]any, *Violation) {
	s.frames++
	if len(line) > protocol.MaxOutputFrameBytes {
		return nil, violation(CheckFraming, "frame %d has %d bytes (at most %d with its LF)", s.frames, len(line), protocol.MaxOutputFrameBytes)
	}
	body := line[:len(line)-1]
	if !utf8.Valid(body) {
		return nil, violation(CheckFraming, "frame %d is not valid UTF-8", s.frames)
	}
	v, err := decode(body)
	f, isObj := v.(map[string]any)
	if err != nil || !isObj {
		return nil, violation(CheckFraming, "frame %d is not one JSON object: %.120q", s.frames, body)
	}
	if err := schemacheck.Validate(body); err != nil {
		if e, ok := f["error"].(map[string]any); ok && len(e) != 1 {
			return nil, violation(CheckErrors, "frame %d: the error object carries more than its code: %.200s", s.frames, body)
		}
		return nil, violation(CheckSchema, "frame %d does not match protocol/schema.json: %s: %.200s", s.frames, firstLine(err.Error(), 3), body)
	}
	id, _ := f["instance_id"].(string)
	if s.instanceID == "" {
		s.instanceID = id
	} else if id != s.instanceID {
		return nil, violation(CheckEnvelope, "frame %d: instance_id changed from %s to %s", s.frames, s.instanceID, id)
	}
	seq, _ := f["seq"].(json.Number).Int64()
	if s.lastSeq == 0 && seq != 1 {
		return nil, violation(CheckEnvelope, "frame %d: the first seq is %d, not 1", s.frames, seq)
	}
	if seq <= s.lastSeq {
		return nil, violation(CheckEnvelope, "frame %d: seq %d after seq %d (must strictly increase)", s.frames, seq, s.lastSeq)
	}
	s.lastSeq = seq
	if f["type"] == "response" {
		return f, s.response(f)
	}
	return f, s.event(f)
}

func (s *stream) response(f map[string]any) *Violation {
	id, ok := f["id"].(string)
	if !ok {
		return nil // id null
	}
	method, sent := s.sent[id]
	if !sent {
		return violation(CheckEnvelope, "seq %v: a response to ID %q, which was never sent", f["seq"], id)
	}
	if res, ok := f["result"].(map[string]any); ok && method == "turn.start" {
		if run, ok := res["run_id"].(string); ok {
			if s.runs[run] != nil {
				return violation(CheckGrammar, "turn.start admitted run %s twice", run)
			}
			s.runs[run] = &runState{deltaPart: map[string]int64{}, reconcile: map[string]int64{}}
		}
	}
	return nil
}

func (s *stream) event(f map[string]any) *Violation {
	name := f["event"].(string)
	data := f["data"].(map[string]any)
	runID := data["run_id"].(string)
	r := s.runs[runID]
	bad := func(format string, args ...any) *Violation {
		return violation(CheckGrammar, "seq %v, %s of run %s: %s", f["seq"], name, runID, fmt.Sprintf(format, args...))
	}
	switch {
	case r == nil:
		return bad("before any turn.start response admitted that run")
	case r.finished:
		return bad("after its run.finished")
	case name == protocol.EventInputPersisted && r.events:
		return bad("input.persisted is not the run's first event")
	case !r.events && name != protocol.EventInputPersisted && (name != protocol.EventRunFinished || data["persistence"] != "not_started"):
		// docs/protocol.md, Run events: the prompt is persisted before the
		// provider runs; a run that persisted nothing says so at once.
		return bad("the run's first event must be input.persisted, or a run.finished with persistence not_started")
	}
	r.events = true
	msg, _ := data["message_id"].(string)
	part := func() int64 { n, _ := data["part"].(json.Number).Int64(); return n }
	switch name {
	case protocol.EventInputPersisted:
		r.persisted = true
	case protocol.EventMessageDelta:
		if last, seen := r.deltaPart[msg]; seen && part() <= last {
			return bad("delta part %d after part %d of message %s", part(), last, msg)
		}
		r.deltaPart[msg] = part()
	case protocol.EventMessageReconcile:
		next := r.reconcile[msg]
		if next < 0 {
			return bad("reconcile of message %s after its last_part", msg)
		}
		if part() != next {
			return bad("reconcile part %d of message %s; want part %d", part(), msg, next)
		}
		r.reconcile[msg] = next + 1
		if data["last_part"] == true {
			r.reconcile[msg] = -1
		}
	case protocol.EventRunFinished:
		for m, next := range r.reconcile {
			if next >= 0 {
				return bad("run.finished while message %s is reconciled only up to part %d", m, next-1)
			}
		}
		if data["persistence"] == "not_started" {
			switch {
			case r.persisted:
				return bad("persistence not_started after the run's input.persisted")
			case data["outcome"] == "completed":
				return bad("persistence not_started with outcome completed (a run that persisted nothing failed or was cancelled)")
			case data["error_code"] == nil:
				return bad("persistence not_started without an error_code saying why nothing was persisted")
			}
		}
		r.finished = true
	}
	return nil
}

// firstLine keeps the first n lines of a multi-line error, joined.
func firstLine(s string, n int) string {
	out := []byte{}
	for i := 0; i < len(s) && n > 0; i++ {
		if s[i] == '\n' {
			n--
			if n == 0 {
				break
			}
			out = append(out, ' ', '|', ' ')
			continue
		}
		out = append(out, s[i])
	}
	return string(out)
}
