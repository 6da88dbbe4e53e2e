package worker

import (
	"context"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/dispatch"
)

// StartOp starts the one session/history worker for a create, open or page
// operation. The machine admits one at a time and none during a run, and it
// decides whether an operation that finished after shutdown counts as
// operation_cancelled; an attachment made meanwhile stays owned here and is
// released by Teardown.
func (p *Pool) StartOp(_ context.Context, op dispatch.StartOp, done func(dispatch.OpDone)) {
	p.goWorker(func() {
		var d dispatch.OpDone
		switch op.Op {
		case dispatch.OpCreate:
			d = p.create()
		case dispatch.OpOpen:
			d = p.open(op.Open.SessionID)
		case dispatch.OpPage:
			d = p.page(op.Page)
		}
		done(d)
	})
}

func (p *Pool) runtime() *runtime {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rt
}

// attach makes a the current attachment and releases the previous one.
// docs/protocol.md, session.open: "session.create/session.open replace the attachment only while
// idle, releasing previous ownership after cleanup".
func (p *Pool) attach(a *history.Attachment, choice runner.Choice) {
	p.mu.Lock()
	prev := p.att
	p.att, p.choice = a, choice
	if prev != a {
		// Grants belong to the session: another attachment starts none.
		p.grants = runner.NewGrants()
	}
	p.mu.Unlock()
	if prev != nil && prev != a {
		_ = prev.Close()
	}
}

func (p *Pool) attachment() *history.Attachment {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.att
}

func (p *Pool) create() dispatch.OpDone {
	rt := p.runtime()
	if rt == nil {
		return dispatch.OpDone{Code: protocol.CodeNotInitialized}
	}
	id := p.opts.NewID()
	a, code := rt.store.Create(id, rt.runner.StartupSelection())
	if code != "" {
		return dispatch.OpDone{Code: code}
	}
	p.attach(a, rt.runner.StartupChoice())
	sel := selectionOf(rt.runner.Selection())
	return dispatch.OpDone{Result: sessionResult(id, false, a.Revision(), nil), Attached: id, Sel: &sel}
}

func (p *Pool) open(id string) dispatch.OpDone {
	rt := p.runtime()
	if rt == nil {
		return dispatch.OpDone{Code: protocol.CodeNotInitialized}
	}
	a, info, code := rt.store.Open(id, p.attachment())
	if code != "" {
		// docs/protocol.md, session.open: "Failed opens leave the previous attachment intact."
		return dispatch.OpDone{Code: code}
	}
	restored, notices, choice := rt.runner.Restore(info)
	if !info.HasSaved {
		// An empty file (or a lazy handle) has no header yet: the first
		// append records the selection this child runs with, as create does.
		a.SetSelection(rt.runner.StartupSelection())
	}
	p.attach(a, choice)
	notices = append(info.Notices, notices...)
	sel := selectionOf(restored)
	return dispatch.OpDone{Result: sessionResult(id, info.Durable, a.Revision(), notices), Attached: id, Sel: &sel}
}

func (p *Pool) page(pp dispatch.PageParams) dispatch.OpDone {
	// The machine admitted pp.SessionID as the attached session.
	a := p.attachment()
	if a == nil {
		return dispatch.OpDone{Code: protocol.CodeSessionMissing}
	}
	var cursor *string
	if pp.Cursor != "" {
		cursor = &pp.Cursor
	}
	result, code := a.Page(pp.Revision, cursor)
	if code != "" {
		return dispatch.OpDone{Code: code}
	}
	return dispatch.OpDone{Result: result}
}

func sessionResult(id string, durable bool, revision string, notices []string) []byte {
	b := []byte(`{"session_id":`)
	b = jsonenc.AppendString(b, id)
	if durable {
		b = append(b, `,"durable":true,"revision":`...)
	} else {
		b = append(b, `,"durable":false,"revision":`...)
	}
	b = jsonenc.AppendString(b, revision)
	b = append(b, `,"notices":[`...)
	for i, n := range notices {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, n)
	}
	return append(b, "]}"...)
}
