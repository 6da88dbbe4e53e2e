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
	kindCount
)

var kindNames = [kindCount]string{"user", "assistant", "reasoning_summary", "activity", "compaction", "diagnostic"}

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
	// interrupted counts partial diagnostics added for turns without
	// durable completion; any makes the projection incomplete.
	interrupted int
}

// pair is a two-part map key (no concatenation, no allocation).
type pair struct{ a, b string }

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{
		assistant: map[pair]int{},
		activity:  map[pair]int{},
		summary:   map[pair]int{},
		used:      map[string]struct{}{},
	}
}

// Add folds one record. It returns false when the projection already exceeds
// the snapshot budget (history_limit); the builder is then unusable.
func (b *Builder) Add(r *Record) bool {
	switch r.Type {
	case TypeInput:
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
		if i, ok := b.activity[key]; ok {
			m := &b.msgs[i]
			if r.State == "started" && !m.partial {
				break // a late "started" never undoes a recorded end
			}
			b.textBytes += len(text) - len(m.text)
			m.text = text
			m.partial = r.State == "started"
			break
		}
		b.activity[key] = b.add(KindActivity, "", text, r.State == "started")
	case TypeCompaction:
		b.add(KindCompaction, "", r.Text, false)
	case TypeDiagnostic:
		text := r.Code
		if r.Summary != "" {
			text += ": " + r.Summary
		}
		b.add(KindDiagnostic, "", text, false)
	case TypeRunCompleted:
		// Only the open turn's own completion closes it.
		if b.turnRun == "" || r.RunID == b.turnRun {
			b.turnOpen = false
		}
	}
	return b.textBytes <= protocol.HistorySnapshotBytes && len(b.msgs) <= protocol.HistorySnapshotParts
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
		b.ordinal++
		id = kindNames[kind] + "." + strconv.Itoa(b.ordinal)
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
		// docs/protocol.md, Run events: "Reconcile before redacting and chunking; sanitize all projections."
		text := redact.String(m.text)
		m.text = ""
		p.msgs = append(p.msgs, pmsg{id: m.id, kind: m.kind, partial: m.partial})
		parts := chunk.Split(text, protocol.HistoryChunkBytes, entryTextBudget)
		for j, s := range parts {
			pt := part{text: s, msg: int32(len(p.msgs) - 1), index: int32(j), last: j == len(parts)-1}
			pt.size = int32(entryLen(&p.msgs[len(p.msgs)-1], &pt))
			total += int(pt.size)
			p.parts = append(p.parts, pt)
			// docs/protocol.md, history.page: "Snapshot budget: 8 MiB serialized entry projection, at
			// most 10,000 parts; exceeding it → history_limit".
			if total > protocol.HistorySnapshotBytes || len(p.parts) > protocol.HistorySnapshotParts {
				return nil, protocol.CodeHistoryLimit
			}
		}
	}
	b.msgs = nil
	p.layout()
	return p, ""
}
