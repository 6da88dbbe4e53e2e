package history

import (
	"strconv"
	"strings"

	"github.com/magi-code/magi-code/chunk"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
)

// Kind is a history entry's kind.
type Kind uint8

// Entry kinds, spelled as docs/protocol.md spells them (history.page).
const (
	KindUser Kind = iota
	KindAssistant
	KindReasoningSummary
	KindActivity
	KindCompaction
	KindDiagnostic
	// The kinds of Detail (docs/protocol.md, Optional capabilities).
	KindApproval
	KindActivityOutput
	KindUsage
	kindCount
)

var kindNames = [kindCount]string{"user", "assistant", "reasoning_summary", "activity", "compaction", "diagnostic",
	"approval", "activity_output", "usage"}

func (k Kind) String() string { return kindNames[k] }

// InterruptedText is the text of the partial diagnostic entry that marks a
// turn without durable completion (or a torn last line).
const InterruptedText = "interrupted: this turn has no durable completion record"

// entryTextBudget is the JSON-escaped budget of one entry's text part: a page
// holding that single entry, with the longest session ID, revision, message
// ID, kind, part number and cursor, still fits HistoryPageBytes.
// maxEntryOverhead+maxPageOverhead is about 470 bytes; 1024 leaves margin and
// TestOneEntryPageFits holds it.
const entryTextBudget = protocol.HistoryPageBytes - 1024

// message is one projected message while building: its text is reconciled
// but neither redacted nor chunked yet.
type message struct {
	id      string
	text    string
	pending []byte // assistant chunks not yet replaced by a completion
	kind    Kind
	partial bool
	done    bool // assistant completion seen

	// Detail of an activity message: the approvals the person gave it
	// (shown before it) and its output (shown after it; outCut: cut at
	// its bound). usage is a usage message's counts.
	approvals []approval
	output    string
	outCut    bool
	hasOutput bool
	usage     *Usage
	session   bool // an approval message: allowed for the session
}

// approval is an approval entry's summary and whether it was for the
// session.
type approval struct {
	summary string
	session bool
}

// Usage is a turn's token counts in a usage entry: the sums over the
// turn's model responses (compactions' and subagents' included), the
// context the last of the turn's own responses used (its input and output
// tokens; HasContext false when it had none) and that response's model.
type Usage struct {
	InputTokens, OutputTokens, CachedInputTokens, ReasoningTokens int64
	ContextTokens                                                 int64
	HasContext                                                    bool
	Model                                                         string
	Window                                                        int64 // 0: unknown
}

// Detail is what a projection shows beyond version 1's entries, for a
// client that required the optional capabilities (docs/protocol.md,
// Optional capabilities): Output (activity.output) adds each approval the
// person gave, as an approval entry before its call's activity entry, and
// each primary tool call's output, as an activity_output entry after it;
// Usage (usage) adds a usage entry for each turn that reported token
// counts. Window is a model's context window (0: not known); nil knows
// none. The zero Detail is version 1.
type Detail struct {
	Output, Usage bool
	Window        func(model string) int64
}

// Bounds of the outputs one projection keeps: the newest
// maxProjectedOutputs outputs, at most maxProjectedOutputBytes in all;
// older calls show without their output, so outputs never make a session
// too big to open.
const (
	maxProjectedOutputs     = 1000
	maxProjectedOutputBytes = 2 << 20
)

// ToolOutput is a tool call's output as the activity.output capability
// shows it, live and in history: the result redacted whole (a cut can
// never leave a secret in a shape the rules no longer recognise), then at
// most protocol.ActivityOutputBytes in parts of at most
// protocol.ActivityOutputChunkBytes cut at UTF-8 boundaries; truncated
// when the output went on past them. An empty result has no parts.
func ToolOutput(result string) (parts []string, truncated bool) {
	return chunk.Bounded(redact.String(result), protocol.ActivityOutputChunkBytes,
		protocol.ActivityOutputBytes/protocol.ActivityOutputChunkBytes)
}

// Builder folds stored records, in file order, into a projection. It is pure
// (no I/O) and bounds its memory by the snapshot budget: Add reports false as
// soon as retained text or message count can no longer fit.
type Builder struct {
	msgs      []message
	assistant map[pair]int // run_id, message_id -> msgs index
	activity  map[pair]int // run_id, activity_id -> msgs index
	summary   map[pair]int // turn, id -> msgs index
	used      map[string]struct{}
	ordinal   int
	turn      int
	turnOpen  bool
	turnRun   string // the run of the open turn's input ("" for older records without one)
	textBytes int
	detail    Detail
	// running holds the indices of the activities started and not ended
	// yet, oldest first: an approval belongs to the last of them, as the
	// live client places it.
	running []int
	// result is the output of the tool_result just read, for the activity
	// record that ends its call right after it (the turn sink writes the
	// two together); resultRun is its run.
	result, resultRun string
	hasResult         bool
	// outputs are the activity messages holding an output, oldest first
	// from outputsFrom; outputBytes their outputs' size.
	outputs     []int
	outputsFrom int
	outputBytes int
	// usage is the open turn's token counts so far, shown as one usage
	// message at the turn's end (its run_completed, the next input, or
	// the end of the projection); usageRun is its run.
	usage    *Usage
	usageRun string
	// interrupted counts partial diagnostics added for turns without
	// durable completion; any makes the projection incomplete.
	interrupted int
}

// pair is a two-part map key (no concatenation, no allocation).
type pair struct{ a, b string }

// NewBuilder returns an empty builder of the projection with detail d.
func NewBuilder(d Detail) *Builder {
	return &Builder{
		assistant: map[pair]int{},
		activity:  map[pair]int{},
		summary:   map[pair]int{},
		used:      map[string]struct{}{},
		detail:    d,
	}
}

// Add folds one record. It returns false when the projection already exceeds
// the snapshot budget (history_limit); the builder is then unusable.
func (b *Builder) Add(r *Record) bool {
	result, resultRun, hasResult := b.result, b.resultRun, b.hasResult
	b.result, b.resultRun, b.hasResult = "", "", false
	switch r.Type {
	case TypeInput:
		b.flushUsage()
		if b.turnOpen {
			b.addInterrupted()
		}
		b.turn++
		b.turnOpen, b.turnRun = true, r.RunID
		b.add(KindUser, r.MessageID, r.Text, false)
	case TypeAssistantChunk:
		if m := &b.msgs[b.assistantMsg(r)]; !m.done {
			m.pending = append(m.pending, r.Text...)
			b.textBytes += len(r.Text)
		}
	case TypeAssistant:
		m := &b.msgs[b.assistantMsg(r)]
		b.textBytes -= len(m.text) + len(m.pending)
		if r.HasText {
			m.text = r.Text
		} else {
			// docs/protocol.md, history.page: "legacy assistant output without text uses its stored chunks".
			m.text = string(m.pending)
		}
		m.pending = nil
		m.done = true
		m.partial = r.Partial
		b.textBytes += len(m.text)
	case TypeReasoningSummary:
		// docs/protocol.md, history.page: "Reasoning summaries require explicit stored
		// provider_summary=true provenance; missing/false provenance is omitted."
		if !r.ProviderSummary {
			break
		}
		if r.ID == "" {
			b.add(KindReasoningSummary, "", r.Text, false)
			break
		}
		// docs/protocol.md, history.page: "repeated identified summaries replace the earlier entry".
		key := pair{strconv.Itoa(b.turn), r.ID}
		if i, ok := b.summary[key]; ok {
			b.textBytes += len(r.Text) - len(b.msgs[i].text)
			b.msgs[i].text = r.Text
			break
		}
		b.summary[key] = b.add(KindReasoningSummary, "", r.Text, false)
	case TypeActivity:
		text := activityText(r)
		key := pair{r.RunID, r.ActivityID}
		i, ok := b.activity[key]
		if ok {
			m := &b.msgs[i]
			if r.State == "started" && !m.partial {
				break // a late "started" never undoes a recorded end
			}
			b.textBytes += len(text) - len(m.text)
			m.text = text
			m.partial = r.State == "started"
		} else {
			i = b.add(KindActivity, "", text, r.State == "started")
			b.activity[key] = i
		}
		if r.State == "started" {
			b.running = append(b.running, i)
			break
		}
		b.ended(i)
		if hasResult && resultRun == r.RunID && b.detail.Output {
			b.addOutput(i, result)
		}
	case TypeToolResult:
		if b.detail.Output {
			b.result, b.resultRun, b.hasResult = r.Text, r.RunID, true
		}
	case TypeApproval:
		if !b.detail.Output {
			break
		}
		if n := len(b.running); n > 0 {
			m := &b.msgs[b.running[n-1]]
			m.approvals = append(m.approvals, approval{r.Summary, r.Scope == "session"})
			b.textBytes += len(r.Summary)
			break
		}
		i := b.add(KindApproval, "", r.Summary, false)
		b.msgs[i].session = r.Scope == "session"
	case TypeUsage, TypeSideUsage:
		if !b.detail.Usage {
			break
		}
		if b.usage != nil && b.usageRun != r.RunID {
			b.flushUsage()
		}
		if b.usage == nil {
			b.usage, b.usageRun = &Usage{}, r.RunID
		}
		u := b.usage
		u.InputTokens += r.InputTokens
		u.OutputTokens += r.OutputTokens
		u.CachedInputTokens += r.CachedInputTokens
		u.ReasoningTokens += r.ReasoningTokens
		if r.Type == TypeUsage {
			u.ContextTokens, u.HasContext, u.Model = r.InputTokens+r.OutputTokens, true, r.Model
		}
	case TypeCompaction:
		b.add(KindCompaction, "", r.Text, false)
	case TypeDiagnostic:
		text := r.Code
		if r.Summary != "" {
			text += ": " + r.Summary
		}
		b.add(KindDiagnostic, "", text, false)
	case TypeRunCompleted:
		if r.RunID == b.usageRun {
			b.flushUsage()
		}
		// Only the open turn's own completion closes it.
		if b.turnRun == "" || r.RunID == b.turnRun {
			b.turnOpen = false
		}
	}
	return b.textBytes <= protocol.HistorySnapshotBytes && len(b.msgs) <= protocol.HistorySnapshotParts
}

// flushUsage adds the usage message of the counts gathered, if any.
func (b *Builder) flushUsage() {
	if b.usage == nil {
		return
	}
	i := b.add(KindUsage, "", "", false)
	b.msgs[i].usage = b.usage
	b.usage, b.usageRun = nil, ""
}

// ended takes activity message i off the running calls.
func (b *Builder) ended(i int) {
	for k := len(b.running) - 1; k >= 0; k-- {
		if b.running[k] == i {
			b.running = append(b.running[:k], b.running[k+1:]...)
			return
		}
	}
}

// addOutput gives activity message i its output (ToolOutput of result),
// then drops the oldest outputs past the projection's bounds.
func (b *Builder) addOutput(i int, result string) {
	parts, cut := ToolOutput(result)
	if len(parts) == 0 {
		return
	}
	m := &b.msgs[i]
	if m.hasOutput {
		b.dropOutput(i)
	}
	m.output, m.outCut, m.hasOutput = strings.Join(parts, ""), cut, true
	b.outputBytes += len(m.output)
	b.textBytes += len(m.output)
	b.outputs = append(b.outputs, i)
	for len(b.outputs)-b.outputsFrom > maxProjectedOutputs || b.outputBytes > maxProjectedOutputBytes {
		b.dropOutput(b.outputs[b.outputsFrom])
		b.outputsFrom++
	}
}

// dropOutput removes activity message i's output.
func (b *Builder) dropOutput(i int) {
	m := &b.msgs[i]
	if !m.hasOutput {
		return
	}
	b.outputBytes -= len(m.output)
	b.textBytes -= len(m.output)
	m.output, m.outCut, m.hasOutput = "", false, false
}

// activityText is the history entry of an activity: "NAME STATE: SUMMARY".
func activityText(r *Record) string {
	name := r.Name
	if name == "" {
		name = r.Kind
	}
	text := name + " " + r.State
	// A tool's summary names the tool itself ("shell: exit 0"); the entry
	// says it once ("shell completed: exit 0").
	if summary := strings.TrimPrefix(r.Summary, name+": "); summary != "" {
		text += ": " + summary
	}
	return text
}

func (b *Builder) addInterrupted() {
	b.interrupted++
	b.add(KindDiagnostic, "", InterruptedText, true)
}

// assistantMsg returns the index of r's assistant message (by run and
// message ID), adding an empty partial one when r is its first record.
func (b *Builder) assistantMsg(r *Record) int {
	key := pair{r.RunID, r.MessageID}
	i, ok := b.assistant[key]
	if !ok {
		i = b.add(KindAssistant, r.MessageID, "", true)
		b.assistant[key] = i
	}
	return i
}

// add appends a message and returns its index. A stored ID is kept when it is
// first used in this projection; otherwise the ID is synthesized as
// "<kind>.<ordinal>". Stored message IDs have no dot, so the two never collide.
func (b *Builder) add(kind Kind, storedID, text string, partial bool) int {
	id := storedID
	if _, dup := b.used[id]; id == "" || dup {
		id = b.synthID(kind)
	}
	b.used[id] = struct{}{}
	b.msgs = append(b.msgs, message{id: id, text: text, kind: kind, partial: partial})
	b.textBytes += len(text)
	return len(b.msgs) - 1
}

// Finish ends the projection: it closes interrupted turns (torn reports a
// torn last line), then reconciles, redacts and chunks every message, and
// lays out the pages. gen and revision name the projection; sessionID is
// echoed in every page.
func (b *Builder) Finish(sessionID, revision string, gen uint64, torn bool) (*Projection, protocol.Code) {
	// docs/protocol.md, history.page: "Interrupted turns without durable completion include a partial
	// diagnostic and keep completeness false". docs/protocol.md, Choices: a torn last line is
	// ignored, adds a partial diagnostic and reports complete=false.
	b.flushUsage()
	if b.turnOpen || torn {
		b.turnOpen = false
		b.addInterrupted()
	}
	p := &Projection{
		sessionID: sessionID,
		revision:  revision,
		gen:       gen,
		complete:  b.interrupted == 0,
		msgs:      make([]pmsg, 0, len(b.msgs)),
	}
	total := 0
	for i := range b.msgs {
		m := &b.msgs[i]
		if m.kind == KindAssistant && !m.done {
			m.text, m.pending, m.partial = string(m.pending), nil, true
		}
		for _, a := range m.approvals {
			if !p.addMessage(pmsg{id: b.synthID(KindApproval), kind: KindApproval, session: a.session}, a.summary, &total) {
				return nil, protocol.CodeHistoryLimit
			}
		}
		if m.usage != nil && b.detail.Window != nil && m.usage.Model != "" {
			m.usage.Window = b.detail.Window(m.usage.Model)
		}
		if !p.addMessage(pmsg{id: m.id, kind: m.kind, partial: m.partial, usage: m.usage, session: m.session}, m.text, &total) {
			return nil, protocol.CodeHistoryLimit
		}
		m.text = ""
		if m.hasOutput && !p.addMessage(pmsg{id: b.synthID(KindActivityOutput), kind: KindActivityOutput, partial: m.outCut}, m.output, &total) {
			return nil, protocol.CodeHistoryLimit
		}
		m.output = ""
	}
	b.msgs = nil
	p.layout()
	return p, ""
}

// addMessage redacts and chunks one message into p's entries, counting
// their serialized size in total. It reports false past the snapshot
// budget.
func (p *Projection) addMessage(m pmsg, text string, total *int) bool {
	// docs/protocol.md, Run events: "Reconcile before redacting and chunking; sanitize all projections."
	text = redact.String(text)
	p.msgs = append(p.msgs, m)
	parts := chunk.Split(text, protocol.HistoryChunkBytes, entryTextBudget)
	for j, s := range parts {
		pt := part{text: s, msg: int32(len(p.msgs) - 1), index: int32(j), last: j == len(parts)-1}
		pt.size = int32(entryLen(&p.msgs[len(p.msgs)-1], &pt))
		*total += int(pt.size)
		p.parts = append(p.parts, pt)
		// docs/protocol.md, history.page: "Snapshot budget: 8 MiB serialized entry projection, at
		// most 10,000 parts; exceeding it → history_limit".
		if *total > protocol.HistorySnapshotBytes || len(p.parts) > protocol.HistorySnapshotParts {
			return false
		}
	}
	return true
}

// synthID is a new synthesized message ID of kind (see add).
func (b *Builder) synthID(kind Kind) string {
	b.ordinal++
	return kindNames[kind] + "." + strconv.Itoa(b.ordinal)
}
