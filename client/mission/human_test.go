package mission

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
)

// Notices of session.open read as sentences for people, never as the
// protocol's codes; a settings error at start-up points at config show,
// not at /login or /model.
func TestNoticesAndReadinessForPeople(t *testing.T) {
	fb := &fakeBackend{events: make(chan client.Event)}
	m := New(Options{Backend: fb, Resume: sess})
	m.Update(result(0, "initialize", readyStatus))
	m.Update(result(0, "session.open", `{"session_id":"`+sess+`","revision":"r1","durable":true,"notices":["saved_selection_notice","cwd_unverified"]}`))
	out := printed(m)
	if strings.Contains(out, "saved_selection_notice") || strings.Contains(out, "cwd_unverified") ||
		!strings.Contains(out, "restored this session's own model") || !strings.Contains(out, "without its working directory") {
		t.Fatalf("notices printed as:\n%s", out)
	}

	m = New(Options{Backend: fb, Restart: func() (Backend, error) { return fb, nil }})
	m.Update(failure(0, "initialize", "configuration_invalid"))
	if out := printed(m); !strings.Contains(out, "magi-code config show") || strings.Contains(out, "/login") {
		t.Fatalf("a settings error advised:\n%s", out)
	}
}

// A diagnostic reads as its summary, live and replayed from history; its
// code is for programs.
func TestDiagnosticForPeople(t *testing.T) {
	const summary = "provider error: the provider is rate limiting requests; wait a little and send the prompt again"
	m, _, _ := started(t, Options{})
	send(m, "diagnostic", map[string]any{"code": "execution_failed", "summary": summary})
	send(m, "run.finished", map[string]any{"outcome": "failed", "persistence": "durable", "revision": "r2", "error_code": "execution_failed"})
	out := printed(m) + view(m)
	if !strings.Contains(out, summary) || strings.Contains(out, "diagnostic execution_failed") {
		t.Fatalf("a live diagnostic reads:\n%s", out)
	}
	if got := renderEntry("diagnostic", "execution_failed: "+summary, 80); !strings.Contains(got, summary) || strings.Contains(got, "execution_failed") {
		t.Fatalf("a replayed diagnostic reads %q", got)
	}
}
