package history

import (
	"unicode/utf8"
	"unsafe"

	"github.com/sourcegraph/conc"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
)

// ChunkBytes is how much accepted text of a segment a RunLog stores as an
// assistant_chunk record while the segment streams: a process that dies
// mid-reply leaves at most twice this much of it unstored, the chunk being
// written and the one filling (the history then shows the stored part as
// a partial reply of the interrupted turn). A segment that ends shorter
// than this is stored whole in its completion record; a longer one is
// stored once, in its chunks: its completion record has no text, and
// readers join the chunks.
const ChunkBytes = 16 << 10

// RunLog appends one run's records to its session, in the order the run
// produced them: the persistence accounting that every front door shares
// (serve's turn worker and the ACP agent), so that a session holds the
// same records whichever door ran it. It is used from the run's goroutine
// only.
//
// A reply is stored while it streams: its accepted text in ChunkBytes
// chunks, each appended off the text path (the next fills meanwhile),
// then its completion record once the segment is known complete (Complete:
// when the next thing happens, or partial at the run's end). The first
// failed append degrades the run (Degraded: its history is incomplete) and
// calls onDegraded once; nothing more is appended after it.
type RunLog struct {
	att        *Attachment
	runID      string
	onDegraded func() error

	open     string // the open segment's message ID; "" between segments
	unsaved  []byte // accepted text of the open segment not yet stored as a chunk (< ChunkBytes)
	accepted bool   // the open segment has text
	chunked  bool   // the open segment has stored chunks
	marked   bool   // the open segment has its empty marker chunk (Mark)

	// The assistant_chunk append in flight: it reads storing (the other
	// half of unsaved's double buffer) and leaves its error in storeErr.
	// Settle waits for it; every other append comes after Settle.
	store    conc.WaitGroup
	storing  []byte
	storeErr error
	inFlight bool
	// storeGate, when set (tests only), runs in the chunk append's
	// goroutine before the append.
	storeGate func()

	// pending is the last ended segment, whose completion record waits
	// until its completeness is known.
	pending  *pendingSegment
	degraded bool
	calls    map[string]string // activity ID -> the model's tool call ID
}

type pendingSegment struct {
	messageID, text string
	accepted        bool
	chunked         bool // stored as chunks only: its record carries no text
	marked          bool // an empty chunk marks where it began
}

// NewRunLog returns the log of run runID on att. onDegraded (nil: none)
// is called at the first failed append; its error is returned by the call
// that appended.
func NewRunLog(att *Attachment, runID string, onDegraded func() error) *RunLog {
	return &RunLog{att: att, runID: runID, onDegraded: onDegraded, calls: map[string]string{}}
}

// Degraded reports whether an append failed: the run's history is
// incomplete and must not be claimed durable.
func (l *RunLog) Degraded() bool { return l.degraded }

// Append appends rec (of this run) after the chunk append in flight.
func (l *RunLog) Append(rec Record) error {
	if err := l.Settle(); err != nil {
		return err
	}
	rec.RunID = l.runID
	if l.degraded {
		return nil
	}
	_, err := l.att.Append(rec, false)
	return l.appended(err)
}

// appended accounts the result of an append.
func (l *RunLog) appended(err error) error {
	if err == nil || l.degraded {
		return nil
	}
	l.degraded = true
	if l.onDegraded != nil {
		return l.onDegraded()
	}
	return nil
}

// Settle waits for the chunk append in flight and accounts its result. It
// is idempotent; call it before the run's last record.
func (l *RunLog) Settle() error {
	if !l.inFlight {
		return nil
	}
	l.store.Wait()
	l.inFlight = false
	err := l.storeErr
	l.storeErr = nil
	return l.appended(err)
}

// SegmentStart opens a segment. Complete the ended one first.
func (l *RunLog) SegmentStart(messageID string) {
	l.open = messageID
	l.unsaved = l.unsaved[:0]
	l.accepted, l.chunked, l.marked = false, false, false
}

// Text takes accepted text of the open segment, as the provider sent it
// (unredacted, as every record), and stores a chunk past ChunkBytes.
func (l *RunLog) Text(messageID, text string) error {
	if text == "" {
		return nil
	}
	l.accepted = true
	l.unsaved = append(l.unsaved, text...)
	if len(l.unsaved) >= ChunkBytes {
		return l.saveChunk(messageID)
	}
	return nil
}

// saveChunk stores the accepted text not yet stored, up to its last whole
// rune (records hold valid UTF-8; the rest waits for the next text).
func (l *RunLog) saveChunk(messageID string) error {
	cut := len(l.unsaved)
	for i := 1; i <= utf8.UTFMax && i <= len(l.unsaved); i++ {
		if utf8.RuneStart(l.unsaved[len(l.unsaved)-i]) {
			if !utf8.FullRune(l.unsaved[len(l.unsaved)-i:]) {
				cut = len(l.unsaved) - i
			}
			break
		}
	}
	if cut == 0 {
		return nil
	}
	if err := l.Settle(); err != nil {
		return err
	}
	l.chunked = true
	if l.degraded {
		l.unsaved = l.unsaved[:copy(l.unsaved, l.unsaved[cut:])]
		return nil
	}
	// The chunk is stored off the text path, while the next one fills the
	// other buffer: the record's text is a view of storing, which nothing
	// writes until Settle (Append keeps none of it).
	l.storing, l.unsaved = l.unsaved, append(l.storing[:0], l.unsaved[cut:]...)
	rec := Record{Type: TypeAssistantChunk, RunID: l.runID, MessageID: messageID,
		Text: unsafe.String(unsafe.SliceData(l.storing), cut)}
	l.inFlight = true
	gate, att := l.storeGate, l.att
	l.store.Go(func() {
		if gate != nil {
			gate()
		}
		_, l.storeErr = att.Append(rec, false)
	})
	return nil
}

// SegmentEnd ends the open segment, whose whole text is fullText: a
// chunked one stores its last chunk now; its completion record waits for
// Complete.
func (l *RunLog) SegmentEnd(messageID, fullText string) error {
	l.open = ""
	seg := &pendingSegment{messageID: messageID, text: fullText, accepted: l.accepted, chunked: l.chunked, marked: l.marked}
	l.pending = seg
	if !seg.chunked {
		l.unsaved = l.unsaved[:0] // the completion record stores all of it
		return nil
	}
	// The rest of a chunked segment is its last chunk, whole (the text has
	// ended: an unfinished rune stays as it is, as it would in a record).
	var err error
	if len(l.unsaved) > 0 {
		err = l.Append(Record{Type: TypeAssistantChunk, MessageID: messageID, Text: unsafe.String(unsafe.SliceData(l.unsaved), len(l.unsaved))})
	}
	l.unsaved = l.unsaved[:0]
	return err
}

// Complete stores the ended segment's completion record, partial or not,
// once: ok reports a segment with text (its messageID and whole text, for
// the caller's reconcile); a segment without text stores nothing.
func (l *RunLog) Complete(partial bool) (messageID, text string, ok bool, err error) {
	seg := l.pending
	if seg == nil {
		return "", "", false, nil
	}
	l.pending = nil
	if seg.text == "" && !seg.accepted {
		return "", "", false, nil
	}
	rec := Record{Type: TypeAssistant, MessageID: seg.messageID, Text: seg.text, HasText: true, Partial: partial}
	if seg.chunked {
		rec.Text, rec.HasText = "", false // one copy on disk: the chunks
	}
	return seg.messageID, seg.text, true, l.Append(rec)
}

// Mark stores an empty assistant_chunk for the segment that has text and
// no record yet: the open one, or the ended one whose completion waits for
// the run's end (a provider's failure ends the segment, reports its
// diagnostic, and only then is the partial completion written). The
// projection and replay place a segment at its first record, so the
// history shows the partial reply before the diagnostic that followed it,
// as the live run did.
func (l *RunLog) Mark() error {
	switch p := l.pending; {
	case l.open != "" && !l.chunked && !l.marked && len(l.unsaved) > 0:
		l.marked = true
		return l.Append(Record{Type: TypeAssistantChunk, MessageID: l.open})
	case l.open == "" && p != nil && !p.chunked && !p.marked && (p.text != "" || p.accepted):
		p.marked = true
		return l.Append(Record{Type: TypeAssistantChunk, MessageID: p.messageID})
	}
	return nil
}

// Usage stores the token counts of one model response of the run's model
// (named in the record when the name fits a selection), each clamped to
// 0..MaxTokenCount (only a broken provider reports others), and returns
// the record as stored. source is where the response came from
// (runner.UsageTurn, UsageCompaction, UsageSubagent): the run's own
// responses are usage records, the others side_usage records of that
// kind.
func (l *RunLog) Usage(source, model string, input, output, cached, reasoning int64) (Record, error) {
	clamp := func(n int64) int64 { return min(max(n, 0), MaxTokenCount) }
	rec := Record{Type: TypeUsage, InputTokens: clamp(input), OutputTokens: clamp(output),
		CachedInputTokens: clamp(cached), ReasoningTokens: clamp(reasoning)}
	if source == "compaction" || source == "subagent" {
		rec.Type, rec.Kind = TypeSideUsage, source
	}
	if len(model) <= protocol.MaxSelectionNameBytes {
		rec.Model = model
	}
	return rec, l.Append(rec)
}

// Allowed stores a request the person allowed, whichever front door asked
// (serve's approval.requested, ACP's session/request_permission): summary
// redacted and bounded as every approval summary (protocol.SummaryBytes),
// for the rest of the session when forSession. history.page shows it to a
// client that required activity.output as an approval entry right before
// the call's activity entry. Denials are not stored: the call's failed
// activity says them.
func (l *RunLog) Allowed(summary string, forSession bool) error {
	rec := Record{Type: TypeApproval, Summary: redact.Summary(summary, protocol.SummaryBytes)}
	if forSession {
		rec.Scope = "session"
	}
	return l.Append(rec)
}

// ToolCall stores a primary tool call (the model's request) as activityID
// starts.
func (l *RunLog) ToolCall(activityID, callID, name, arguments string) error {
	l.calls[activityID] = callID
	return l.Append(Record{Type: TypeToolCall, CallID: callID, Name: name, Arguments: arguments})
}

// ToolResult stores the result the model is given for activityID's call.
func (l *RunLog) ToolResult(activityID, name, text string, isError bool) error {
	callID := l.calls[activityID]
	delete(l.calls, activityID)
	return l.Append(Record{Type: TypeToolResult, CallID: callID, Name: name, Text: text, IsError: isError})
}
