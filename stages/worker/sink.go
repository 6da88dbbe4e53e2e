package worker

import (
	"context"
	"slices"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/chunk"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/wire"
)

// liveEscBudget bounds a live text part once JSON-escaped: with the frame
// envelope, IDs and the other fields it keeps every event frame within
// 65,536 bytes. (4,000 raw bytes escape to at most 24,000.)
const liveEscBudget = protocol.MaxOutputFrameBytes - 4*wire.FrameOverhead - 3*protocol.ActivityInternalIDBytes

// turnSink turns the runner's progress into run events and session
// records. It runs on the turn worker's goroutine, but for its idle timer
// (sink_idle.go), which shares the open segment's delta state under mu.
type turnSink struct {
	p   *Pool
	r   *activeRun
	att *history.Attachment

	// mu guards what the idle timer (sink_idle.go) shares with the turn
	// worker's goroutine: the stream, the carry and the delta state of
	// the open segment, and the timer's own fields.
	mu      sync.Mutex
	idle    idleTimer
	segment string // the open segment's message ID; "" between segments

	stream    redact.Stream
	carry     textCarry // safe text not yet offered as a delta (at most maxCarry between deltas)
	pacing    backpressure.Pacing
	waiter    backpressure.Waiter // the timer of the pacing's waits, reused
	deltaPart int                 // next delta part of the open segment

	// log stores the run's records (the persistence every front door
	// shares); its ended segment is reconciled when the next segment or
	// tool starts (complete) or when the run ends (partial unless the run
	// completed).
	log *history.RunLog

	// liveMu guards live, the activity.output parts a command's output
	// filled while it ran (ToolOutput, from the tool's goroutine).
	liveMu sync.Mutex
	live   map[string]*liveParts

	// model is the turn's model and window its context window (0: not
	// known), for the usage records and events.
	model  string
	window int64
}

func newTurnSink(p *Pool, r *activeRun, att *history.Attachment) *turnSink {
	s := &turnSink{p: p, r: r, att: att, pacing: deltaPacing()}
	s.log = history.NewRunLog(att, r.id, s.degradedEvent)
	s.carry.taken = &r.taken
	return s
}

func (s *turnSink) event(name string) wire.Event {
	return wire.Event{Name: name, SessionID: s.r.sessionID, RunID: s.r.id}
}

// persist appends a record through the run's log; the first failure
// degrades the run's persistence and is reported as a diagnostic
// (degradedEvent).
func (s *turnSink) persist(rec history.Record) error { return s.log.Append(rec) }

// degradedEvent reports, once, that the run's history is incomplete.
func (s *turnSink) degradedEvent() error {
	d := s.event(protocol.EventDiagnostic)
	d.Code, d.Summary = string(protocol.CodePersistenceFailed), "history could not be saved; this turn's history is incomplete"
	return s.p.offer(d)
}

// settle waits for the log's chunk append in flight; the turn worker calls
// it before the run's last record.
func (s *turnSink) settle() error { return s.log.Settle() }

func (s *turnSink) SegmentStart(messageID string) {
	if err := s.flushPending(false); err != nil {
		// SegmentStart cannot fail the run itself: a reconcile that found
		// no room cancels it with output_unavailable.
		s.r.cancel(err)
	}
	s.mu.Lock()
	s.stream = redact.Stream{}
	s.carry.Reset()
	s.deltaPart = 0
	s.segment = messageID
	s.mu.Unlock()
	s.log.SegmentStart(messageID)
}

func (s *turnSink) TextDelta(messageID, text string) error {
	s.mu.Lock()
	// The stream releases at most the delta plus what it held back.
	s.carry.Append(len(text)+s.stream.Held(), func(dst []byte) []byte { return s.stream.PushTo(dst, text) })
	s.deltas(messageID, false)
	s.armIdleLocked()
	s.mu.Unlock()
	return s.log.Text(messageID, text)
}

// deltaPacing is the pacing policy of a segment's deltas on the run-event
// edge (see backpressure.Pacing): a delta that finds the edge full waits
// deltaGrace for room; if none comes, the reader is behind and text
// coalesces, up to maxCarry, until the edge drains to half; past that the
// older half of the carry is dropped.
func deltaPacing() backpressure.Pacing {
	return backpressure.Pacing{Grace: deltaGrace, MaxCarry: maxCarry}
}

// maxCarry bounds the text coalesced while the reader is behind.
const maxCarry = 256 << 10

// deltaGrace is how long a delta waits for room in a full event edge before
// the reader counts as behind. A reader that keeps reading frees room
// within it, even on a busy machine where the reader or the writer waits
// several milliseconds for a core: the provider is then paced by the
// reader, one frame per delta, as a flood's reader expects. A reader that
// stops costs the provider this once per stall; from then on text
// coalesces.
const deltaGrace = 20 * time.Millisecond

// deltas offers the carried safe text as best-effort delta parts of at most
// 4,000 bytes, as s.pacing decides; mu is held. docs/protocol.md, Ordering and delivery: "Deltas may coalesce/drop under
// pressure". A dropped part keeps its part number, so the client sees the
// gap. With final (the segment ended), everything carried is offered.
func (s *turnSink) deltas(messageID string, final bool) {
	events := s.p.opts.Events
	for s.carry.Len() > 0 {
		switch s.pacing.Next(events.Len(), events.Cap(), s.carry.Len(), final) {
		case backpressure.Hold:
			return // coalesce with the next delta
		case backpressure.DropOldest:
			// Drop the older half as one part, without building it. The
			// part number is spent, so the client sees the gap.
			c := s.carry.Bytes()
			s.carry.Drop(runeStart(c, len(c)-maxCarry/2))
			s.deltaPart++
			continue
		case backpressure.SendWaiting:
			e := s.nextPart(messageID)
			if events.OfferWaiting(context.Background(), e, s.pacing.WaitPolicy(), &s.waiter) != nil {
				// No room within the grace: the reader is behind. The part
				// stays carried (its number unspent).
				s.pacing.Missed()
				continue
			}
			s.spend(len(e.Text))
			s.carry.Enqueued()
		case backpressure.SendNow:
			e := s.nextPart(messageID)
			// Drop if the edge filled meanwhile.
			queued := events.Offer(s.p.opts.Output, e) == nil
			s.spend(len(e.Text))
			if queued {
				s.carry.Enqueued()
			}
		}
	}
}

// spend consumes n bytes of the carry as the current part.
func (s *turnSink) spend(n int) {
	s.deltaPart++
	s.carry.Consume(n)
}

// nextPart builds the delta event of the next part of the carry: at most
// 4,000 bytes, ending on a rune boundary.
func (s *turnSink) nextPart(messageID string) wire.Event {
	// Look a few bytes past the budget so that chunk.Next sees whole runes,
	// and let it choose the cut. The view is read only during the call.
	c := s.carry.Bytes()
	c = c[:min(len(c), protocol.LiveChunkBytes+utf8.UTFMax)]
	n := chunk.Next(unsafe.String(unsafe.SliceData(c), len(c)), protocol.LiveChunkBytes, liveEscBudget)
	e := s.event(protocol.EventMessageDelta)
	e.MessageID, e.Part, e.Text = messageID, s.deltaPart, s.carry.Text(n)
	return e
}

// runeStart returns the first index at or after i that starts a rune.
func runeStart(b []byte, i int) int {
	for i < len(b) && !utf8.RuneStart(b[i]) {
		i++
	}
	return i
}

func (s *turnSink) SegmentEnd(messageID, fullText string) error {
	s.mu.Lock()
	s.stopIdleLocked()
	s.carry.Push(s.stream.Flush())
	s.deltas(messageID, true)
	s.segment = ""
	s.mu.Unlock()
	return s.log.SegmentEnd(messageID, fullText)
}

// flushPending persists and reconciles the last ended segment. docs/protocol.md, Ordering and delivery:
// "authoritative replacement chunks, part starts at 0, final part completes
// reconciliation"; redaction happens before chunking.
func (s *turnSink) flushPending(partial bool) error {
	messageID, text, ok, err := s.log.Complete(partial)
	if !ok || err != nil {
		return err
	}
	safe := redact.String(text)
	part := 0
	for {
		n := chunk.Next(safe, protocol.LiveChunkBytes, liveEscBudget)
		e := s.event(protocol.EventMessageReconcile)
		e.MessageID, e.Part, e.Text = messageID, part, safe[:n]
		e.LastPart, e.Partial = n == len(safe), partial
		if err := s.p.offer(e); err != nil {
			return err
		}
		safe = safe[n:]
		part++
		if len(safe) == 0 {
			return nil
		}
	}
}

func (s *turnSink) ReasoningSummary(id, text string) error {
	return s.persist(history.Record{Type: history.TypeReasoningSummary, ID: id, Text: text, ProviderSummary: true})
}

func (s *turnSink) activity(activityID, name, state, summary string) error {
	return s.activityOf(runner.KindTool, activityID, name, state, summary)
}

// activityOf persists and emits one activity state of any kind (tool,
// subagent, compaction).
func (s *turnSink) activityOf(kind, activityID, name, state, summary string) error {
	summary = redact.Summary(summary, protocol.SummaryBytes)
	name = activityName(name)
	if err := s.persist(history.Record{Type: history.TypeActivity, ActivityID: activityID, Kind: kind,
		State: state, Name: name, Summary: summary}); err != nil {
		return err
	}
	e := s.event(protocol.EventActivity)
	e.ActivityID, e.Kind, e.State, e.ToolName, e.Summary = activityID, kind, state, name, summary
	return s.p.offer(e)
}

// activityName is the name an activity shows: tool and profile names in the
// ID grammar (built-in, mcp__SERVER__TOOL, run_code, profiles) pass; a name
// the model made up for an unknown tool is untrusted and unbounded, and
// shows as "unknown".
func activityName(name string) string {
	if history.ValidID(name) && !redact.Contains(name) {
		return name
	}
	return runner.UnknownToolName
}

func (s *turnSink) ToolStarted(activityID, name, summary string, call runner.ToolCall) error {
	if err := s.flushPending(false); err != nil {
		return err
	}
	if err := s.log.ToolCall(activityID, call.ID, call.Name, string(call.Arguments)); err != nil {
		return err
	}
	return s.activity(activityID, name, runner.StateStarted, summary)
}

func (s *turnSink) ToolFinished(activityID, name, summary, result string, isError, failed bool) error {
	if err := s.log.ToolResult(activityID, name, result, isError); err != nil {
		return err
	}
	if err := s.output(activityID, result); err != nil {
		return err
	}
	state := runner.StateCompleted
	if failed {
		state = runner.StateFailed
		// The summary says who stopped a call (the person, expiry,
		// cancellation, a protection with its reason): fixed text, never
		// the arguments, redacted by the log like everything else.
		s.p.opts.Log.Info("tool failed", "run_id", s.r.id, "tool", name, "summary", summary)
	}
	return s.activity(activityID, name, state, summary)
}

// liveParts are the activity.output parts of a running command sent
// before it ended: its output as the runner streams it (runner.OutputSink,
// redacted by one stream for the whole command), cut as
// history.ToolOutput cuts the result, each sent once the text after it
// decides where it ends; never the last of the four.
type liveParts struct {
	sent    []string // the parts sent, in order
	pending []byte   // safe text after them
}

// ToolOutput implements runner.OutputSink: with the activity.output
// capability, a command's output is sent while it runs, one part as soon
// as it is whole (it cannot change: the result's parts begin the same
// way), at most all parts but the last; output then sends the rest.
func (s *turnSink) ToolOutput(activityID, text string) error {
	if !s.p.output.Load() {
		return nil
	}
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	if s.live == nil {
		s.live = map[string]*liveParts{}
	}
	lp := s.live[activityID]
	if lp == nil {
		lp = &liveParts{}
		s.live[activityID] = lp
	}
	lp.pending = append(lp.pending, text...)
	const most = protocol.ActivityOutputBytes/protocol.ActivityOutputChunkBytes - 1
	// A part is decided once more than its bound (and a whole rune) follows.
	for len(lp.sent) < most && len(lp.pending) > protocol.ActivityOutputChunkBytes+utf8.UTFMax {
		parts, _ := chunk.Bounded(string(lp.pending), protocol.ActivityOutputChunkBytes, 1)
		e := s.event(protocol.EventActivityOutput)
		e.ActivityID, e.Part, e.Text = activityID, len(lp.sent), parts[0]
		if err := s.p.offer(e); err != nil {
			return err
		}
		lp.sent = append(lp.sent, parts[0])
		lp.pending = lp.pending[:copy(lp.pending, lp.pending[len(parts[0]):])]
	}
	return nil
}

// ToolExited implements runner.OutputSink: the end shows in the result.
func (s *turnSink) ToolExited(string, int, string) {}

// The turn sink takes live output.
var _ runner.OutputSink = (*turnSink)(nil)

// output offers a primary tool call's output to a client that required the
// activity.output capability: history.ToolOutput's parts (redacted whole
// first, then at most protocol.ActivityOutputBytes in parts of at most
// protocol.ActivityOutputChunkBytes, cut at UTF-8 boundaries), one event
// each, the last saying truncated when the output went on, before the
// call's last activity state; the parts a running command's output
// already sent (ToolOutput) are not sent again. An empty output sends
// nothing. Should the result not begin with the parts sent (a redaction
// of the whole that the stream could not foresee), the last part is empty
// and says truncated: nothing sent is taken back.
func (s *turnSink) output(activityID, result string) error {
	s.liveMu.Lock()
	lp := s.live[activityID]
	delete(s.live, activityID)
	s.liveMu.Unlock()
	if !s.p.output.Load() || (result == "" && lp == nil) {
		return nil
	}
	parts, truncated := history.ToolOutput(result)
	first := 0
	if lp != nil && len(lp.sent) > 0 {
		first = len(lp.sent)
		if len(parts) <= first || !slices.Equal(parts[:first], lp.sent) {
			e := s.event(protocol.EventActivityOutput)
			e.ActivityID, e.Part, e.LastPart, e.Partial = activityID, first, true, true
			return s.p.offer(e)
		}
	}
	for i := first; i < len(parts); i++ {
		text := parts[i]
		e := s.event(protocol.EventActivityOutput)
		e.ActivityID, e.Part, e.Text = activityID, i, text
		e.LastPart = i == len(parts)-1
		e.Partial = e.LastPart && truncated
		if err := s.p.offer(e); err != nil {
			return err
		}
	}
	return nil
}

// Usage records the token counts of one model response in the session (a
// usage record, or side_usage for a compaction's or a subagent's) and,
// when the client required the usage capability, offers the usage event
// with its source. Counts outside 0..history.MaxTokenCount, which only a
// broken provider reports, are clamped.
func (s *turnSink) Usage(u runner.Usage, source string) error {
	rec, err := s.log.Usage(source, s.model, u.InputTokens, u.OutputTokens, u.CachedInputTokens, u.ReasoningTokens)
	if err != nil {
		return err
	}
	if !s.p.usage.Load() {
		return nil
	}
	e := s.event(protocol.EventUsage)
	e.InputTokens, e.OutputTokens, e.CachedInputTokens, e.ReasoningTokens = rec.InputTokens, rec.OutputTokens, rec.CachedInputTokens, rec.ReasoningTokens
	e.ContextWindow, e.UsageSource = s.window, source
	return s.p.offer(e)
}

// The turn sink takes usage.
var _ runner.UsageSink = (*turnSink)(nil)
