// Package human turns what the backend reports into text for people: notice
// codes as sentences, readiness codes with the advice that fits them, and
// the one session listing that `magi-code sessions list`, the resume picker
// and Mission Control's /sessions all print. The codes stay on the protocol
// wire unchanged; only what a person reads is translated here.
//
// Everything is pure: no I/O, no clock (the caller passes the time zone).
package human

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// Notice is the sentence for a session.open notice code. A code this build
// does not know reads as a sentence too: codes are for programs.
func Notice(code string) string {
	switch code {
	case "saved_selection_unavailable":
		return "this session's saved model is not available with the current settings; it goes on with the current provider and model"
	case "saved_selection_notice":
		return "restored this session's own model and thinking level"
	case "cwd_unverified":
		return "this session was stored without its working directory, so it could not be checked against this one"
	}
	return "the backend reported something about this session that this version cannot describe; `magi-code logs` has the details"
}

// Readiness is the advice for a startup that is not ready, by its code:
// what is wrong and the command that shows or fixes it.
func Readiness(code string) string {
	switch code {
	case "", "ready":
		return "ready"
	case "configuration_invalid":
		return "the settings have an error; `magi-code config show` names the setting and the file"
	case "provider_unavailable":
		return "no usable credential for the provider; /login (or `magi-code login`) stores an API key, /model picks a provider and model"
	case "profile_invalid":
		return "the selected agent profile is invalid or missing; `magi-code config show` names the file and the problem"
	case "mcp_unavailable":
		return "an approved MCP server could not start; `magi-code mcp list` and `magi-code logs` say which"
	case "startup_failed":
		return "the backend could not start; `magi-code logs` says why"
	case "startup_cancelled":
		return "start-up was cancelled"
	}
	return "the backend is not ready for a reason this version cannot describe; `magi-code logs` has the details"
}

// ReadinessWord is readiness in a word or two, for a status bar: "ready",
// "starting", "restarting", or what is wrong ("no API key"). Readiness
// gives the advice.
func ReadinessWord(code string) string {
	switch code {
	case "", "ready":
		return "ready"
	case "starting", "initializing":
		return "starting"
	case "restarting":
		return "restarting"
	case "configuration_invalid":
		return "settings error"
	case "provider_unavailable":
		return "no API key or model"
	case "profile_invalid":
		return "profile error"
	case "mcp_unavailable":
		return "MCP server failed"
	case "startup_cancelled":
		return "start-up cancelled"
	}
	return "not ready"
}

// Error is the sentence for an error code of the protocol (a request's
// error or a run's error_code): what happened and, where a person can do
// something, what. The code itself never shows; a code this build does not
// know reads as a sentence too.
func Error(code string) string {
	switch code {
	case "configuration_invalid", "provider_unavailable", "profile_invalid", "mcp_unavailable", "startup_failed", "startup_cancelled":
		return Readiness(code)
	case "invalid_frame", "invalid_request", "invalid_params", "protocol_mismatch", "unsupported_method",
		"unsupported_capability", "not_initialized", "already_initialized", "duplicate_id", "frame_too_large", "incomplete_frame":
		// The backend answers such a request with its code only and logs
		// nothing of it: there is nothing more to read anywhere.
		return "the backend refused a request of this app: a bug in magi-code, please report it with what you did"
	case "request_limit":
		return "the backend took all the requests one start of magi-code may make; start magi-code again (`magi-code --continue` reopens this session)"
	case "busy":
		return "the backend is busy with another request; try again when it is done"
	case "stale_session":
		return "another session was opened meanwhile"
	case "session_missing":
		return "no such session; /resume lists this directory's sessions"
	case "session_busy":
		return "another magi-code has this session open; leave it there first, or /new starts a new session"
	case "session_invalid":
		return "the session's file could not be read; /new starts a new session"
	case "cwd_mismatch":
		return "the session belongs to another directory; start magi-code there to resume it"
	case "history_limit":
		return "the session's history is too large to show"
	case "stale_revision":
		return "the session changed while its history was read; /resume reads it again"
	case "content_limit":
		return "the reply reached the size limit of a turn and was stopped there"
	case "operation_cancelled":
		return "it was cancelled"
	case "stale_run":
		return "the turn had already ended"
	case "stale_approval":
		return "the request had already been answered or had expired"
	case "execution_failed":
		return "something in this turn failed; `magi-code logs` has the details"
	case "persistence_failed":
		return "its history could not be saved"
	case "output_unavailable":
		return "the backend could not deliver all of its output"
	}
	return "an error this version cannot describe; `magi-code logs` has the details"
}

// Headline is the first clause of a sentence of this package or of a
// diagnostic's summary (up to its first "; ", where the advice begins),
// on one line and at most maxHeadlineRunes long.
func Headline(s string) string {
	s, _, _ = strings.Cut(s, "; ")
	return OneLine(s, maxHeadlineRunes)
}

// maxHeadlineRunes bounds a headline.
const maxHeadlineRunes = 100

// Diagnostic is the line for a diagnostic event: its summary, which the
// backend writes for people (redacted, at most 1024 bytes), made safe for
// a terminal; a diagnostic without one reads as its code's sentence. The
// code itself is for programs.
func Diagnostic(code, summary string) string {
	if s := strings.TrimSpace(summary); s != "" {
		return Visible(s, maxSummaryRunes)
	}
	switch code {
	case "persistence_failed":
		return "history could not be saved; this turn's history is incomplete"
	case "content_limit":
		return "the reply reached the size limit of a run and was stopped there"
	case "output_unavailable":
		return "the backend could not deliver all of this turn's output"
	}
	return Error(code)
}

// DiagnosticEntry is the line for a history page's diagnostic entry, whose
// text is "CODE" or "CODE: SUMMARY" (the history projection's form), or a
// sentence of the projection's own ("interrupted: ..."). Codes are
// lower-case words joined by '_'; anything else is shown as written.
func DiagnosticEntry(text string) string {
	code, summary, _ := strings.Cut(text, ": ")
	if !strings.Contains(code, "_") || strings.ContainsFunc(code, func(r rune) bool { return (r < 'a' || r > 'z') && r != '_' }) {
		return Diagnostic("", text) // not a code: show the text
	}
	return Diagnostic(code, summary)
}

// maxSummaryRunes bounds a summary shown (the protocol bounds it to 1024
// bytes already).
const maxSummaryRunes = 1024

// Session is one stored session as the listing shows it.
type Session struct {
	ID           string
	LastActivity time.Time
	Size         int64
	// Cwd is the workspace recorded in the session; the listing has a
	// WORKSPACE column only when some session has one (a listing of one
	// directory's sessions leaves it empty).
	Cwd string
	// FirstPrompt is the session's first prompt ("" when unknown).
	FirstPrompt string
}

// promptRunes bounds the first prompt shown per session.
const promptRunes = 50

// Sessions renders a session listing for people: a header, then one line
// per session in the given order, columns aligned: ID, last activity (in
// loc, to the minute), size, workspace (when any session records one) and
// the first prompt, shortened to one line. Control characters of a crafted
// workspace or prompt are made visible, never sent to the terminal. An
// empty list is "no sessions". The text has no trailing newline.
func Sessions(list []Session, loc *time.Location) string {
	if len(list) == 0 {
		return "no sessions"
	}
	withCwd := false
	for _, s := range list {
		withCwd = withCwd || s.Cwd != ""
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	if withCwd {
		fmt.Fprint(w, "ID\tLAST ACTIVITY\tSIZE\tWORKSPACE\tFIRST PROMPT\n")
	} else {
		fmt.Fprint(w, "ID\tLAST ACTIVITY\tSIZE\tFIRST PROMPT\n")
	}
	for _, s := range list {
		fmt.Fprintf(w, "%s\t%s\t%s\t", Visible(s.ID, 64), s.LastActivity.In(loc).Format("2006-01-02 15:04"), Size(s.Size))
		if withCwd {
			cwd := s.Cwd
			if cwd == "" {
				cwd = "-"
			}
			fmt.Fprintf(w, "%s\t", Visible(cwd, 4096))
		}
		fmt.Fprintf(w, "%s\n", OneLine(s.FirstPrompt, promptRunes))
	}
	_ = w.Flush() // writes to a strings.Builder cannot fail
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ") // the padding of an empty last column
	}
	return strings.Join(lines, "\n")
}

// Size is a byte count for people: B, KiB or MiB.
func Size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// OneLine is s on one line: runs of white space (newlines included) become
// one space, control and format characters their visible stand-ins (see
// Printable), and text past max runes is cut with "…".
func OneLine(s string, max int) string {
	return Visible(strings.Join(strings.Fields(s), " "), max)
}

// Visible is s on one line, cut to max runes with "…": what Printable
// shows, but a line feed and a tab are shown too (␊, ␉), so the text stays
// one line.
func Visible(s string, max int) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if n == max {
			b.WriteString("…")
			break
		}
		b.WriteString(visibleRune(r, size))
		n++
	}
	return b.String()
}
