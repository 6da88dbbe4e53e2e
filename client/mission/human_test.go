package mission

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/protocol"
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
	if got := renderEntry("diagnostic", "execution_failed: "+summary, 80, false); !strings.Contains(got, summary) || strings.Contains(got, "execution_failed") {
		t.Fatalf("a replayed diagnostic reads %q", got)
	}
}

// shownCode is the first protocol code (a word joined by '_') s shows,
// or "".
func shownCode(s string) string {
	for _, c := range protocol.Codes {
		if strings.Contains(string(c), "_") && strings.Contains(s, string(c)) {
			return string(c)
		}
	}
	for _, n := range []string{"saved_selection_notice", "saved_selection_unavailable", "cwd_unverified", "not_started"} {
		if strings.Contains(s, n) {
			return n
		}
	}
	return ""
}

// A turn ends with one line in words: a failed turn says why (the first
// clause of its diagnostic, or its error code's sentence when there was
// none), a cancelled one that it was, and a history not saved whole says
// so; no code reaches the screen.
func TestTurnEndsInWords(t *testing.T) {
	const rate = "provider error: the provider is rate limiting requests; wait a little and send the prompt again"
	for _, c := range []struct {
		name              string
		diagnostic        string
		outcome, persists string
		code              any
		cancel            bool
		want              string
	}{
		{"rate limited", rate, "failed", "durable", "execution_failed", false, "turn failed: provider error: the provider is rate limiting requests"},
		{"no diagnostic", "", "failed", "durable", "execution_failed", false, "turn failed: something in this turn failed"},
		{"not saved", "", "failed", "not_started", "persistence_failed", false, "turn failed: its history could not be saved; it was not saved to the session's history"},
		{"cancelled by the person", "", "cancelled", "durable", "operation_cancelled", true, "turn cancelled"},
		{"cancelled by the backend", "", "cancelled", "degraded", "output_unavailable", false, "turn cancelled: the backend could not deliver all of its output; the session's history of it is incomplete"},
		{"completed, history degraded", "", "completed", "degraded", nil, false, "turn completed in 0s; the session's history of it is incomplete"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _, _ := started(t, Options{})
			if c.cancel {
				key(m, "ctrl+c")
			}
			if c.diagnostic != "" {
				send(m, "diagnostic", map[string]any{"code": "execution_failed", "summary": c.diagnostic})
			}
			send(m, "run.finished", map[string]any{"outcome": c.outcome, "persistence": c.persists, "revision": "r2", "error_code": c.code})
			last := ansi.Strip(m.Printed[len(m.Printed)-1])
			if last != c.want {
				t.Errorf("the turn ends with %q; want %q", last, c.want)
			}
			if code := shownCode(printed(m) + view(m)); code != "" {
				t.Errorf("%s reached the screen:\n%s\n%s", code, printed(m), view(m))
			}
		})
	}
}

// Every error code a call can answer reads as a sentence saying what did
// not happen, never as "METHOD failed: CODE"; the status bar and the
// refusal of a prompt say what is not ready in words.
func TestCallErrorsInWords(t *testing.T) {
	for _, code := range protocol.Codes {
		for _, method := range []string{"session.create", "session.open", "history.page", "turn.start", "turn.cancel", "approval.answer"} {
			m, _, _ := started(t, Options{})
			m.Update(failure(0, method, string(code)))
			out := printed(m) + "\n" + view(m)
			if c := shownCode(out); c != "" || strings.Contains(out, method) {
				t.Fatalf("%s answering %s reads:\n%s", method, code, out)
			}
		}
		m, fb := newModel(t)
		m.Update(failure(0, "initialize", string(code)))
		enter(m, fb, "hello")
		out := printed(m) + "\n" + view(m)
		if c := shownCode(out); c != "" || strings.Contains(out, "initialize") {
			t.Fatalf("initialize answering %s reads:\n%s", code, out)
		}
	}
}

// A build warning is printed once, when the first session starts, and
// /status shows it; without one neither says anything of the build.
func TestBuildWarning(t *testing.T) {
	const warning = "warning: built with go1.26.8, which has known security fixes missing; rebuild with go1.26.10 or later"
	m, _, _ := started(t, Options{BuildWarning: warning})
	m.Update(result(0, "session.create", `{"session_id":"`+sess+`","revision":"r1","durable":false,"notices":[]}`))
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
	if n := strings.Count(printed(m), warning); n != 1 {
		t.Fatalf("the warning printed %d times; want once:\n%s", n, printed(m))
	}
	typeLine(m, "/status")
	if p := printed(m); !strings.Contains(p, "build          "+warning) {
		t.Fatalf("/status lacks the build warning:\n%s", p)
	}

	m, _, _ = started(t, Options{})
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
	typeLine(m, "/status")
	if p := printed(m); strings.Contains(p, "build") || strings.Contains(p, "warning") {
		t.Fatalf("without a warning the output names the build:\n%s", p)
	}
}
