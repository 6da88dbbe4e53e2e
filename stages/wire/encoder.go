package wire

import (
	"strconv"

	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/protocol"
)

// EventEncoder appends the event frames of one instance, as AppendEvent does
// byte for byte, with less work per frame for a stream of events of one
// run: the envelope up to seq is built once, and the part of the frame from
// the event name to the message ID is kept from the previous frame and
// reused while the name and the IDs are the same strings (a delta flood's
// frames differ only in seq, part and text). The zero value is not usable;
// build one with NewEventEncoder. It is not safe for concurrent use.
type EventEncoder struct {
	head []byte // the envelope up to seq's value (appendHead)
	// mid is `,"event":NAME,"data":{"session_id":S,"run_id":R` and, for
	// events that carry one first, `,"message_id":M`, encoded for key.
	mid []byte
	key struct{ name, sessionID, runID, messageID string }
	ok  bool // mid holds key's encoding
}

// NewEventEncoder returns the encoder of instanceID's event frames.
func NewEventEncoder(instanceID string) *EventEncoder {
	return &EventEncoder{head: appendHead(nil, "event", instanceID), mid: make([]byte, 0, 256)}
}

// midCached reports whether the event's name, IDs and (where it comes
// first) message ID are those of the cached mid.
func (enc *EventEncoder) midCached(e *Event) bool {
	// Equal strings that share their bytes (the same ID handed on frame
	// after frame) compare by pointer, without reading them.
	return enc.ok && e.Name == enc.key.name && e.SessionID == enc.key.sessionID &&
		e.RunID == enc.key.runID && (!leadsWithMessageID(e.Name) || e.MessageID == enc.key.messageID)
}

// leadsWithMessageID reports whether an event's data continues with its
// message_id right after run_id.
func leadsWithMessageID(name string) bool {
	switch name {
	case protocol.EventInputPersisted, protocol.EventMessageDelta, protocol.EventMessageReconcile:
		return true
	}
	return false
}

// Append appends e's complete frame with seq, including the trailing LF:
// the same bytes as AppendEvent. It does not allocate when dst has room and
// the event's name and IDs are those of the previous frame.
func (enc *EventEncoder) Append(dst []byte, seq uint64, e *Event) []byte {
	if !enc.midCached(e) {
		enc.key.name, enc.key.sessionID, enc.key.runID, enc.key.messageID = e.Name, e.SessionID, e.RunID, ""
		m := append(enc.mid[:0], `,"event":`...)
		m = jsonenc.AppendString(m, e.Name)
		m = append(m, `,"data":{"session_id":`...)
		m = jsonenc.AppendString(m, e.SessionID)
		m = append(m, `,"run_id":`...)
		m = jsonenc.AppendString(m, e.RunID)
		if leadsWithMessageID(e.Name) {
			enc.key.messageID = e.MessageID
			m = appendField(m, "message_id", e.MessageID)
		}
		enc.mid, enc.ok = m, true
	}
	dst = append(dst, enc.head...)
	dst = strconv.AppendUint(dst, seq, 10)
	dst = append(dst, enc.mid...)
	dst = appendDataRest(dst, e)
	return append(dst, "}\n"...)
}
