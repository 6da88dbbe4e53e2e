package worker

import (
	"context"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/dispatch"
)

// StartOp starts the one session/history worker for a create, open or page
// operation. The machine admits one at a time and none during a run.
func (p *Pool) StartOp(ctx context.Context, id string, op dispatch.OpKind, params any, done func(dispatch.OpDone)) {
	p.goWorker(func() {
		var d dispatch.OpDone
		switch op {
		case dispatch.OpCreate:
			d = p.create()
		case dispatch.OpOpen:
			d = p.open(params.(dispatch.OpenParams).SessionID)
		case dispatch.OpPage:
			d = p.page(params.(dispatch.PageParams))
		}
		if ctx.Err() != nil && d.Code == "" && op != dispatch.OpPage {
			// Shutdown arrived while the operation ran. The attachment it
			// made stays owned here and is released by Teardown.
			d = dispatch.OpDone{Code: protocol.CodeOperationCancelled}
		} else if ctx.Err() != nil && op == dispatch.OpPage {
			d = dispatch.OpDone{Code: protocol.CodeOperationCancelled}
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
// Spec: "session.create/session.open replace the attachment only while
// idle, releasing previous ownership after cleanup".
func (p *Pool) attach(a *history.Attachment, model string) {
	p.mu.Lock()
	prev := p.att
	p.att, p.model = a, model
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
	a, code := rt.store.Create(id, startupSelection(rt))
	if code != "" {
		return dispatch.OpDone{Code: code}
	}
	p.attach(a, "")
	sel := selectionOf(rt.snap)
	return dispatch.OpDone{Result: sessionResult(id, false, a.Revision(), nil), Attached: id, Sel: &sel}
}

func (p *Pool) open(id string) dispatch.OpDone {
	rt := p.runtime()
	if rt == nil {
		return dispatch.OpDone{Code: protocol.CodeNotInitialized}
	}
	a, info, code := rt.store.Open(id, p.attachment())
	if code != "" {
		// Spec: "Failed opens leave the previous attachment intact."
		return dispatch.OpDone{Code: code}
	}
	sel, notices, model := restoreSelection(rt, info)
	if !info.HasSaved {
		// An empty file (or a lazy handle) has no header yet: the first
		// append records the selection this child runs with, as create does.
		a.SetSelection(startupSelection(rt))
	}
	p.attach(a, model)
	notices = append(info.Notices, notices...)
	return dispatch.OpDone{Result: sessionResult(id, info.Durable, a.Revision(), notices), Attached: id, Sel: &sel}
}

// startupSelection is the selection a new session header records.
func startupSelection(rt *runtime) history.Selection {
	return history.Selection{Provider: rt.snap.Provider, Model: rt.snap.Model, Thinking: rt.snap.Thinking}
}

// restoreSelection applies a session's saved selection against the
// admitted settings, without writing anything. Spec: "Unavailable selection
// retains startup selection and saved requested thinking, with
// saved_selection_unavailable; other restoration notice uses
// saved_selection_notice." Only the admitted provider has a credential in
// this child, so a saved selection naming another provider is unavailable;
// a saved model of the admitted provider is restored, with a notice when it
// differs from the startup model.
//
// It returns the selection status reports, the notices, and the model turns
// use ("" = the startup model).
func restoreSelection(rt *runtime, info history.OpenInfo) (dispatch.Selection, []string, string) {
	sel := selectionOf(rt.snap)
	if !info.HasSaved || info.Saved.Provider == "" {
		return sel, nil, ""
	}
	if info.Saved.Provider != rt.snap.Provider {
		return sel, []string{protocol.NoticeSavedSelectionUnavailable}, ""
	}
	if info.Saved.Model != "" && info.Saved.Model != rt.snap.Model {
		sel.Model = safe(info.Saved.Model)
		return sel, []string{protocol.NoticeSavedSelectionNotice}, info.Saved.Model
	}
	return sel, nil, ""
}

func (p *Pool) page(pp dispatch.PageParams) dispatch.OpDone {
	a := p.attachment()
	if a == nil || a.ID() != pp.SessionID {
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
