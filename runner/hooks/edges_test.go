package hooks

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/logtest"
	"github.com/magi-code/magi-code/runner/config"
)

// Arguments that are valid JSON of exactly InputFieldBytes reach the hook
// as they are; one byte more and they become a cut string.
func TestBoundArgsAtTheBound(t *testing.T) {
	exact := json.RawMessage(`"` + strings.Repeat("y", InputFieldBytes-2) + `"`)
	if got, cut := boundArgs(exact); cut || string(got) != string(exact) {
		t.Errorf("boundArgs(%d bytes of JSON) = %d bytes, cut %v; want them unchanged", len(exact), len(got), cut)
	}
	over := json.RawMessage(`"` + strings.Repeat("y", InputFieldBytes-1) + `"`)
	got, cut := boundArgs(over)
	var s string
	if !cut || json.Unmarshal(got, &s) != nil || s != string(over[:InputFieldBytes]) {
		t.Errorf("boundArgs(%d bytes) = %d bytes, cut %v; want a JSON string of the first %d bytes", len(over), len(got), cut, InputFieldBytes)
	}
}

// A block reason of exactly OutputBytes was not cut: its last word stays.
// One byte more and the capture was cut, so the reason ends at the last
// white space before the bound (no half word, no half secret).
func TestBlockReasonAtTheBound(t *testing.T) {
	word := "abcdefg " // 8 bytes
	exact := strings.Repeat(word, OutputBytes/len(word)-1) + "lastword"
	if len(exact) != OutputBytes {
		t.Fatalf("setup: %d bytes", len(exact))
	}
	if got := blockReason([]byte(exact)); got != exact {
		t.Errorf("blockReason(%d bytes) ends %q; want the whole text, last word included", len(exact), got[max(0, len(got)-20):])
	}
	over := exact + "x"
	want := exact[:len(exact)-len(" lastword")]
	if got := blockReason([]byte(over)); got != want {
		t.Errorf("blockReason(%d bytes) ends %q; want it cut at the last space before the bound", len(over), got[max(0, len(got)-20):])
	}
}

// A hook that did not exit by itself records exit code -1, as Error's
// documentation says; only CauseExit carries a status.
func TestFailureExitCode(t *testing.T) {
	r := New([]config.Hook{pre("true")}, t.TempDir()+"/missing", "test", nil)
	_, _, err := r.PreToolUse(t.Context(), "shell", nil)
	var he *Error
	if !errors.As(err, &he) || he.Cause != CauseStart || he.ExitCode != -1 {
		t.Fatalf("err = %v (%+v); want CauseStart with ExitCode -1", err, he)
	}
	r = New([]config.Hook{pre("exit 3")}, t.TempDir(), "test", nil)
	_, _, err = r.PreToolUse(t.Context(), "shell", nil)
	if !errors.As(err, &he) || he.Cause != CauseExit || he.ExitCode != 3 {
		t.Fatalf("err = %v (%+v); want CauseExit with ExitCode 3", err, he)
	}
}

// The diagnostic log names each run's outcome: ok, blocked, or the failure.
func TestLogNamesOutcome(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"exit 0", ": ok in "},
		{"exit 2", ": blocked in "},
		{"exit 1", ": pre_tool_use hook 1 failed (exit status 1) in "},
	} {
		var logs logtest.Lines
		r := New([]config.Hook{pre(tc.cmd)}, t.TempDir(), "test", logs.Logf)
		_, _, _ = r.PreToolUse(t.Context(), "shell", nil)
		all := logs.String()
		if !strings.Contains(all, tc.want) {
			t.Errorf("hook %q: log = %q; want it to say %q", tc.cmd, all, tc.want)
		}
	}
}
