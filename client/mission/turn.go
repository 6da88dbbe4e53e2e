package mission

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/human"
	"github.com/magi-code/magi-code/protocol"
)

// A running turn is a list of items in the order they began: assistant
// messages, activity lines and notes (an approval's outcome, a
// diagnostic). An item is settled once it cannot change any more: a
// message once reconciled, an activity once completed or failed, a note at
// once. Settled items at the head of the list go to the scrollback at once,
// whole and in order, and leave the live region; the rest stays live until
// it settles or the turn ends. So the scrollback holds each part of a reply
// exactly once, and the live region holds only what may still change.

// item is one part of the running turn.
type item struct {
	msg  *liveMessage
	act  *activity
	note string // rendered
}

func (it *item) settled() bool {
	switch {
	case it.msg != nil:
		return it.msg.done
	case it.act != nil:
		return it.act.state == "completed" || it.act.state == "failed"
	}
	return true
}

// render is the item as shown, width columns wide at most once wrapped.
func (it *item) render(width int, links bool) string {
	switch {
	case it.msg != nil:
		lm := it.msg
		t := lm.text()
		if t == "" {
			return ""
		}
		b := renderMarkdown(human.Printable(t), width, links)
		switch {
		case lm.done && lm.partial:
			b += "\n" + styleDim().Render("(partial reply)")
		case !lm.done && lm.missing:
			b += "\n" + styleDim().Render("(incomplete: parts were dropped)")
		}
		return b
	case it.act != nil:
		return renderActivity(it.act) + renderPreview(it.act, width)
	}
	return it.note
}

// begin resets the turn's state and sends turn.start of prompt, which is
// on the screen already.
func (m *Model) begin(prompt string) tea.Cmd {
	m.running, m.cancelling, m.cancelQueued, m.reason = true, false, false, ""
	m.items, m.byID, m.actByID = nil, map[string]*liveMessage{}, map[string]*activity{}
	m.turnStart = m.now()
	return tea.Batch(m.call("turn.start", map[string]string{"session_id": m.sessionID, "prompt": prompt}), m.startTicking())
}

// event applies one run event.
func (m *Model) event(ev client.Event) tea.Cmd {
	if !m.running || (m.runID != "" && ev.RunID != m.runID) {
		return nil
	}
	m.runID = ev.RunID
	d, err := ev.Fields()
	if err != nil {
		return nil
	}
	switch ev.Name {
	case "message.delta":
		lm := m.message(d.MessageID)
		if lm.done {
			return nil
		}
		if d.Part != lm.nextPart {
			lm.missing = true // docs/protocol.md, Run events: missing parts mark the display incomplete
		}
		lm.nextPart = d.Part + 1
		lm.streamed.WriteString(d.Text)
	case "message.reconcile":
		lm := m.message(d.MessageID)
		lm.parts = append(lm.parts, d.Text)
		if d.LastPart {
			// docs/protocol.md, Run events: reconciliation replaces accumulated deltas, once all
			// parts arrived.
			lm.final, lm.done, lm.partial, lm.parts = strings.Join(lm.parts, ""), true, d.Partial, nil
			return m.settle()
		}
	case "activity":
		a, ok := m.actByID[d.ActivityID]
		if !ok {
			a = &activity{id: d.ActivityID}
			m.actByID[d.ActivityID] = a
			m.items = append(m.items, &item{act: a})
		}
		a.kind, a.name, a.state, a.summary = d.Kind, d.Name, d.State, d.Summary
		return m.settle()
	case "activity.output":
		if a, ok := m.actByID[d.ActivityID]; ok {
			a.addOutput(d.Chunk, d.Text, d.Last, d.Truncated)
		}
	case "approval.requested":
		m.approval = newApproval(d.ApprovalID, d.Summary, d.SessionGrant, m.now(), time.Duration(d.ExpiresInMs)*time.Millisecond)
		if d.Request != "" {
			m.approval.whole(d.Request, d.RequestTruncated)
		}
		return tea.Batch(m.settle(), m.showApproval(), m.startTicking(), m.notify("magi-code: an approval waits"))
	case "diagnostic":
		m.reason = human.Diagnostic(d.Code, d.Summary)
		m.note(styleWarn().Render(m.reason))
		return m.settle()
	case "input.persisted":
		m.durable = true
	case "usage":
		m.usage.add(ev.Data)
	case "run.finished":
		return m.finished(d.Outcome, d.Persistence, d.ErrorCode)
	}
	return nil
}

func (m *Model) message(id string) *liveMessage {
	lm, ok := m.byID[id]
	if !ok {
		lm = &liveMessage{id: id}
		m.byID[id] = lm
		m.items = append(m.items, &item{msg: lm})
	}
	return lm
}

// note adds a settled line to the turn.
func (m *Model) note(s string) { m.items = append(m.items, &item{note: s}) }

// settle prints the settled items at the head of the turn.
func (m *Model) settle() tea.Cmd {
	n := 0
	for n < len(m.items) && m.items[n].settled() {
		n++
	}
	return m.printItems(n)
}

// printItems sends the first n items of the turn to the scrollback.
func (m *Model) printItems(n int) tea.Cmd {
	cmd := m.printAll(m.items[:n])
	m.items = m.items[n:]
	return cmd
}

// printAll sends items to the scrollback: a turn's settled items, or a
// resumed session's history (replay).
func (m *Model) printAll(items []*item) tea.Cmd {
	var blocks []string
	for _, it := range items {
		blocks = append(blocks, it.render(m.textWidth(), m.opts.Hyperlinks))
		if it.act != nil {
			m.keepOutput(it.act)
		}
	}
	return m.print(blocks...)
}

// finished moves the rest of the turn to the scrollback and ends it with
// one line in words: how it ended and, for a turn that did not complete,
// why (the first clause of the turn's last diagnostic, which is printed
// whole above it, or else the sentence of its error code). The codes are
// for programs: none reaches the screen.
func (m *Model) finished(outcome, persistence string, code *string) tea.Cmd {
	cmd := m.printItems(len(m.items))
	cmd = tea.Batch(cmd, m.print(m.endLine(outcome, persistence, code)))
	if m.now().Sub(m.turnStart) >= bellAfter && m.opts.Prompt == "" {
		cmd = tea.Batch(cmd, m.notify(finishedText(outcome))) // a long turn ended: the person may be elsewhere
	}
	m.running, m.runID, m.approval, m.cancelling = false, "", nil, false
	if m.opts.Prompt != "" {
		code := 1
		if outcome == "completed" {
			code = 0
		}
		return tea.Batch(cmd, m.quit(code))
	}
	if m.restartPending {
		return tea.Batch(cmd, m.restart())
	}
	return cmd
}

// endLine is the turn's last line: "turn completed in 4s", "turn failed:
// the provider is rate limiting requests", "turn cancelled", and what
// happened to its history when it was not saved whole.
func (m *Model) endLine(outcome, persistence string, code *string) string {
	var line string
	switch {
	case outcome == "completed":
		line = "turn completed in " + elapsed(m.now().Sub(m.turnStart))
	case outcome == "cancelled" && (m.cancelling || code == nil || *code == "operation_cancelled"):
		line = "turn cancelled" // as asked: no reason to give
	default:
		line = "turn " + human.OneLine(outcome, 20)
		switch {
		case m.reason != "":
			line += ": " + human.Headline(m.reason)
		case code != nil:
			line += ": " + human.Headline(human.Error(*code))
		}
	}
	switch persistence {
	case "durable":
	case "not_started":
		line += "; it was not saved to the session's history"
	default:
		line += "; the session's history of it is incomplete"
	}
	if outcome == "completed" {
		return styleDim().Render(line)
	}
	return styleError().Render(line)
}

// bellAfter is how long a turn runs before its end rings the bell.
const bellAfter = 10 * time.Second

// elapsed is a duration as people read it: 4s, 1m05s.
func elapsed(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// countdown takes the pending approval down at its deadline.
// docs/protocol.md, approval.answer: approvals expire after 60,000 ms and
// default to deny; the backend decides and its activity line says so.
func (m *Model) countdown() {
	if m.approval == nil || m.now().Before(m.approval.deadline) {
		return
	}
	m.approval = nil
}

// answer replies to the pending approval.
func (m *Model) answer(allow, session bool) tea.Cmd {
	a := m.approval
	m.approval = nil
	if allow {
		// Before the line of the call it allowed (the last one running),
		// which says how the call went.
		it := &item{note: allowedLine(a.summary, session)}
		at := len(m.items)
		for i := len(m.items) - 1; i >= 0; i-- {
			if act := m.items[i].act; act != nil && !m.items[i].settled() {
				at = i
				break
			}
		}
		m.items = append(m.items[:at], append([]*item{it}, m.items[at:]...)...)
	}
	params := map[string]any{"session_id": m.sessionID, "run_id": m.runID, "approval_id": a.id, "allow": allow}
	if session {
		params["scope"] = protocol.ScopeSession
	}
	return tea.Batch(m.settle(), m.call("approval.answer", params))
}
