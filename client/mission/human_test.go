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
