package main

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
)

// restartable points the process environment at ws and returns the backend
// Mission Control drives, ended at cleanup.
func restartable(t *testing.T, ws *clienttest.Workspace) *inProcessBackend {
	t.Setenv("MC_HOME", ws.Home)
	t.Setenv("HOME", filepath.Dir(ws.Home))
	t.Chdir(ws.Cwd)
	p := &inProcessBackend{}
	p.c, p.end = connect(client.Options{}, "")
	t.Cleanup(func() { p.close() })
	return p
}

func (p *inProcessBackend) child(t *testing.T, ws *clienttest.Workspace) *clienttest.Child {
	p.mu.Lock()
	defer p.mu.Unlock()
	return &clienttest.Child{T: t, WS: ws, C: p.c}
}

func (p *inProcessBackend) mustRestart(t *testing.T) {
	t.Helper()
	if _, err := p.restart(); err != nil {
		t.Fatal(err)
	}
}

// A key stored while the backend runs is used once it restarts: the first
// backend has no credential (provider_unavailable), the restarted one reads
// auth.json again and is ready.
func TestRestartReadsANewKey(t *testing.T) {
	ws := clienttest.NewWorkspace(t, "provider = \"openai\"\nmodel = \"gpt-test\"\n[providers.openai]\nbase_url = \"http://127.0.0.1:9/v1\"\n")
	p := restartable(t, ws)
	ch := p.child(t, ws)
	ch.WantError("initialize", map[string]any{"required_capabilities": clienttest.AllCapabilities}, protocol.CodeProviderUnavailable)
	if err := storeKey(runner.ProcessEnv(), "openai", "sk-restart-test-0123456789"); err != nil {
		t.Fatal(err)
	}
	p.mustRestart(t)
	ch = p.child(t, ws)
	init := initialized(ch)
	if init.Readiness != "ready" || init.Provider == nil || *init.Provider != "openai" {
		t.Fatalf("after the restart: readiness %q provider %v; want ready openai", init.Readiness, init.Provider)
	}
}

// A model stored while the backend runs: the restarted backend starts with
// it, the same session reopens (history intact), and keeps the model it was
// saved with, as session.open restores it; a new session uses the new model.
func TestRestartReopensTheSession(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	p := restartable(t, ws)
	ch := p.child(t, ws)
	ch.Result("initialize", map[string]any{"required_capabilities": clienttest.AllCapabilities}, nil)
	s := ch.Create()
	run := ch.Turn(s.SessionID, "keep this")
	if run.Finished.Outcome != "completed" {
		t.Fatalf("turn %s", run.Finished.Outcome)
	}
	if err := setModel(runner.ProcessEnv(), "", "fixture-next"); err != nil {
		t.Fatal(err)
	}
	p.mustRestart(t)
	ch = p.child(t, ws)
	init := initialized(ch)
	if init.Model == nil || *init.Model != "fixture-next" {
		t.Fatalf("restarted backend model %v; want fixture-next", init.Model)
	}
	again := ch.Open(s.SessionID)
	if !again.Durable || !slices.Contains(again.Notices, protocol.NoticeSavedSelectionNotice) {
		t.Fatalf("reopened %+v; want durable with %s", again, protocol.NoticeSavedSelectionNotice)
	}
	if st := ch.Status(); st.Model == nil || *st.Model != "fixture-model" {
		t.Fatalf("reopened session model %v; want its saved fixture-model", st.Model)
	}
	entries, _, _ := ch.History(again.SessionID, again.Revision)
	if len(entries) == 0 || entries[0].Text != "keep this" {
		t.Fatalf("history after the restart: %+v", entries)
	}
	ch.Create()
	if st := ch.Status(); st.Model == nil || *st.Model != "fixture-next" {
		t.Fatalf("new session model %v; want fixture-next", st.Model)
	}
}

// initialized sends initialize with every capability and returns the
// status it reports.
func initialized(ch *clienttest.Child) clienttest.StatusResult {
	ch.T.Helper()
	var init struct {
		Status clienttest.StatusResult `json:"status"`
	}
	ch.Result("initialize", map[string]any{"required_capabilities": clienttest.AllCapabilities}, &init)
	return init.Status
}
