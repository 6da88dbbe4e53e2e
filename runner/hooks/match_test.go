package hooks

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/runner/config"
)

func TestMatcher(t *testing.T) {
	tests := []struct {
		matcher string
		tool    string
		want    bool
	}{
		{"", "shell", true},
		{"", "mcp__gh__create_issue", true},
		{"*", "write_file", true},
		{"shell", "shell", true},
		{"shell", "shell_extra", false},
		{"shell", "my_shell", false},
		{"read", "read_file", false},
		{"write_file|edit_file", "edit_file", true},
		{"write_file|edit_file", "write_file", true},
		{"write_file|edit_file", "write_file_x", false},
		{"write_file|edit_file", "shell", false},
		{"mcp__.*", "mcp__gh__create_issue", true},
		{"mcp__.*", "shell", false},
		{"mcp__gh__.*", "mcp__other__x", false},
		{"mcp__gh__(create|close)_issue", "mcp__gh__close_issue", true},
		{".*_file", "read_file", true},
		{".*_file", "list_dir", false},
		{"Shell", "shell", false}, // case matters
		{"(?i)Shell", "shell", true},
	}
	for _, tt := range tests {
		r := New([]config.Hook{{Event: PreToolUse, Matcher: tt.matcher, Command: "true"}}, "/", "test", nil)
		if got := r.hooks[0].matches(tt.tool); got != tt.want {
			t.Errorf("matcher %q on %q = %v; want %v", tt.matcher, tt.tool, got, tt.want)
		}
		if err := CheckMatcher(tt.matcher); err != nil {
			t.Errorf("CheckMatcher(%q) = %v; want nil", tt.matcher, err)
		}
	}
}

func TestInvalidMatcherFailsEveryCall(t *testing.T) {
	for _, m := range []string{"(", "shell|(", "[a-"} {
		if CheckMatcher(m) == nil {
			t.Errorf("CheckMatcher(%q) = nil; want an error", m)
		}
	}
	marker := t.TempDir() + "/ran"
	r := New([]config.Hook{{Event: PostToolUse, Matcher: "(", Command: "touch " + marker}}, t.TempDir(), "test", nil)
	err := r.PostToolUse(t.Context(), "anything", nil, "", false)
	var he *Error
	if !errors.As(err, &he) || he.Cause != CauseMatcher {
		t.Fatalf("PostToolUse err = %v; want CauseMatcher", err)
	}
	if got := err.Error(); got != "post_tool_use hook 1 has an invalid matcher" {
		t.Errorf("Error() = %q", got)
	}
	if exists(marker) {
		t.Error("a hook with an invalid matcher ran its command")
	}
}

func TestStopIgnoresMatcher(t *testing.T) {
	r := New([]config.Hook{{Event: Stop, Matcher: "(", Command: "true"}}, t.TempDir(), "test", nil)
	if err := r.Stop(t.Context(), "completed"); err != nil {
		t.Fatalf("Stop = %v; want nil", err)
	}
}

func TestNewDropsUnknownEvents(t *testing.T) {
	var logged []string
	r := New([]config.Hook{
		{Event: "bogus", Command: "true"},
		{Event: Stop, Command: "true", TimeoutMs: 250},
		{Event: PreToolUse, Command: "true"},
	}, "/", "test", func(f string, a ...any) { logged = append(logged, f) })
	if len(r.hooks) != 2 || r.hooks[0].index != 2 || r.hooks[1].index != 3 {
		t.Fatalf("hooks = %+v; want indexes 2 and 3", r.hooks)
	}
	if r.hooks[0].timeout != 250*time.Millisecond || r.hooks[1].timeout != DefaultTimeout {
		t.Errorf("timeouts = %v, %v", r.hooks[0].timeout, r.hooks[1].timeout)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "unknown event") {
		t.Errorf("logged %q", logged)
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Event: PreToolUse, Index: 1, Cause: CauseExit, ExitCode: 1}, "pre_tool_use hook 1 failed (exit status 1)"},
		{&Error{Event: PostToolUse, Index: 3, Cause: CauseSignal, ExitCode: -1}, "post_tool_use hook 3 failed (killed by a signal)"},
		{&Error{Event: Stop, Index: 2, Cause: CauseTimeout, Timeout: 1500 * time.Millisecond}, "stop hook 2 timed out after 1.5s"},
		{&Error{Event: PreToolUse, Index: 1, Cause: CauseCancelled}, "pre_tool_use hook 1 cancelled"},
		{&Error{Event: PreToolUse, Index: 4, Cause: CauseStart}, "pre_tool_use hook 4 could not start"},
		{&Error{Event: PreToolUse, Index: 1, Cause: CauseMatcher}, "pre_tool_use hook 1 has an invalid matcher"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q; want %q", got, tt.want)
		}
	}
}
