package human

import (
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/protocol"
)

// Every notice code of the protocol reads as a sentence, never as the code;
// an unknown code reads as a sentence too.
func TestNotice(t *testing.T) {
	for _, code := range []string{"saved_selection_unavailable", "saved_selection_notice", "cwd_unverified"} {
		s := Notice(code)
		if strings.Contains(s, code) || strings.Contains(s, "_") || !strings.Contains(s, " ") {
			t.Errorf("Notice(%q) = %q; want a sentence without the code", code, s)
		}
	}
	if got := Notice("new_code\x1b[2J"); strings.Contains(got, "new_code") || strings.Contains(got, "\x1b") || !strings.Contains(got, "magi-code logs") {
		t.Errorf("unknown notice = %q", got)
	}
}

// Readiness advice names the command that fits the code: the settings
// error points at config show, never at /login or /model.
func TestReadiness(t *testing.T) {
	if s := Readiness("configuration_invalid"); !strings.Contains(s, "config show") || strings.Contains(s, "/login") || strings.Contains(s, "/model") {
		t.Errorf("configuration_invalid advice = %q", s)
	}
	if s := Readiness("provider_unavailable"); !strings.Contains(s, "/login") {
		t.Errorf("provider_unavailable advice = %q", s)
	}
	if s := Readiness("weird\ncode"); strings.Contains(s, "weird") || !strings.Contains(s, "not ready") {
		t.Errorf("unknown readiness = %q", s)
	}
}

// noCode fails when s shows a protocol code ("busy" is a word too), or
// any word joined by '_'.
func noCode(t *testing.T, what, s string) {
	t.Helper()
	for _, c := range protocol.Codes {
		if strings.Contains(string(c), "_") && strings.Contains(s, string(c)) {
			t.Errorf("%s = %q shows the code %s", what, s, c)
		}
	}
	if strings.Contains(s, "_") {
		t.Errorf("%s = %q: a code-like word", what, s)
	}
}

// Every error code of the protocol reads as a sentence of its own, never
// as the code; the status bar's word for a readiness code is no code
// either.
func TestErrorEveryCode(t *testing.T) {
	unknown := Error("no_such_code")
	noCode(t, "Error(unknown)", unknown)
	for _, c := range protocol.Codes {
		s := Error(string(c))
		noCode(t, "Error("+string(c)+")", s)
		if s == unknown || !strings.Contains(s, " ") {
			t.Errorf("Error(%s) = %q: not a sentence of its own", c, s)
		}
		w := ReadinessWord(string(c))
		noCode(t, "ReadinessWord("+string(c)+")", w)
		if len(w) > 20 {
			t.Errorf("ReadinessWord(%s) = %q: too long for a status bar", c, w)
		}
	}
	if w := ReadinessWord("provider_unavailable"); w == "not ready" {
		t.Errorf("ReadinessWord(provider_unavailable) = %q: says nothing of the cause", w)
	}
}

// A headline is a sentence's first clause, on one line and bounded.
func TestHeadline(t *testing.T) {
	for in, want := range map[string]string{
		"provider error: the provider is rate limiting requests; wait a little": "provider error: the provider is rate limiting requests",
		"one\nclause":            "one clause",
		strings.Repeat("x", 150): strings.Repeat("x", 100) + "…",
	} {
		if got := Headline(in); got != want {
			t.Errorf("Headline(%q) = %q; want %q", in, got, want)
		}
	}
}

// The listing: a header, aligned columns, local time to the minute, sizes
// for people, the first prompt on one line and cut, control and format
// characters made visible; the workspace column only when some session has
// one.
func TestSessions(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	at := time.Date(2026, 12, 3, 8, 54, 0, 0, time.UTC)
	list := []Session{
		{ID: "a1", LastActivity: at, Size: 1536, FirstPrompt: "fix the\nbug\tplease"},
		{ID: "b22", LastActivity: at.Add(-time.Hour), Size: 12, FirstPrompt: strings.Repeat("é", 60)},
	}
	got := Sessions(list, loc)
	want := "ID   LAST ACTIVITY     SIZE     FIRST PROMPT\n" +
		"a1   2026-12-03 09:54  1.5 KiB  fix the bug please\n" +
		"b22  2026-12-03 08:54  12 B     " + strings.Repeat("é", 50) + "…"
	if got != want {
		t.Fatalf("Sessions =\n%s\nwant\n%s", got, want)
	}
	list[0].Cwd, list[0].FirstPrompt = "/w/a\x1b[2J\u202eb", ""
	got = Sessions(list, loc)
	want = "ID   LAST ACTIVITY     SIZE     WORKSPACE          FIRST PROMPT\n" +
		"a1   2026-12-03 09:54  1.5 KiB  /w/a␛[2J<U+202E>b\n" +
		"b22  2026-12-03 08:54  12 B     -                  " + strings.Repeat("é", 50) + "…"
	if got != want {
		t.Fatalf("Sessions with a workspace =\n%s\nwant\n%s", got, want)
	}
	if got := Sessions(nil, loc); got != "no sessions" {
		t.Fatalf("empty listing = %q", got)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 5 << 20: "5.0 MiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q; want %q", n, got, want)
		}
	}
}

// A diagnostic reads as its summary (never its code); one without a
// summary as its code's sentence; a history entry's "CODE: SUMMARY" as the
// summary.
func TestDiagnostic(t *testing.T) {
	for _, c := range []struct{ code, summary, want string }{
		{"execution_failed", "provider error: the provider is rate limiting requests", "provider error: the provider is rate limiting requests"},
		{"persistence_failed", "", "history could not be saved; this turn's history is incomplete"},
		{"execution_failed", "a\x1b[2Jb", "a␛[2Jb"},
		{"odd_code", "", Error("odd_code")},
	} {
		if got := Diagnostic(c.code, c.summary); got != c.want {
			t.Errorf("Diagnostic(%q, %q) = %q; want %q", c.code, c.summary, got, c.want)
		}
	}
	for text, want := range map[string]string{
		"execution_failed: provider error: the provider is rate limiting requests": "provider error: the provider is rate limiting requests",
		"persistence_failed":                                      "history could not be saved; this turn's history is incomplete",
		"Turn interrupted: the reply may be incomplete":           "Turn interrupted: the reply may be incomplete",
		"interrupted: this turn has no durable completion record": "interrupted: this turn has no durable completion record",
	} {
		if got := DiagnosticEntry(text); got != want {
			t.Errorf("DiagnosticEntry(%q) = %q; want %q", text, got, want)
		}
	}
}
