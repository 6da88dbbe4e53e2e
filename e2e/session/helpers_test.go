package session

import (
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// child is one running magi-code serve --stdio process, initialized.
type child struct{ *clienttest.Child }

type (
	step  = clienttest.Step
	entry = clienttest.Entry
)

var (
	text, repeat, sleepMs = clienttest.Text, clienttest.Repeat, clienttest.SleepMs
	shell, response       = clienttest.Shell, clienttest.Response
)

// newWorkspace makes a workspace whose settings select the fixture provider
// with the given script responses (none: echo) and tools.approval.
func newWorkspace(t testing.TB, approval string, responses ...[]step) *clienttest.Workspace {
	t.Helper()
	return clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: approval, Responses: responses})
}

// start starts a child in ws (cwd ws.Cwd unless opts.Dir says otherwise)
// and initializes it.
func start(t testing.TB, ws *clienttest.Workspace, opts client.Options) *child {
	t.Helper()
	return &child{ws.StartChild(t, opts)}
}

// noEventsAfter checks that nothing follows run.finished: a status round
// trip orders every earlier frame before its response, so an event sent
// before it is already in the Events channel.
func (ch *child) noEventsAfter() {
	ch.T.Helper()
	ch.Status()
	select {
	case ev, ok := <-ch.C.Events():
		if ok {
			ch.T.Fatalf("event %s (seq %d) after run.finished", ev.Name, ev.Seq)
		}
	default:
	}
}

// historyMessage is a message of a projection, its parts joined.
type historyMessage struct {
	Kind    string
	Text    string
	Partial bool
	Done    bool // last_part seen
}

// messages joins the entries' parts per message, in order.
func messages(entries []entry) []historyMessage {
	var out []historyMessage
	for i, e := range entries {
		if i == 0 || entries[i-1].LastPart || entries[i-1].MessageID != e.MessageID {
			out = append(out, historyMessage{Kind: e.Kind})
		}
		m := &out[len(out)-1]
		m.Text += e.Text
		m.Partial = m.Partial || e.Partial
		m.Done = e.LastPart
	}
	return out
}
