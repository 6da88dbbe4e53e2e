package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/magi-code/magi-code/internal/logtest"
	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/internal/proctest"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/agent"
	"github.com/magi-code/magi-code/runner/config"
)

// fakeKey looks like an OpenAI project key to stages/redact.
var fakeKey = "sk-proj-" + strings.Repeat("aB3cD4eF5g", 4)

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func pre(cmd string) config.Hook { return config.Hook{Event: PreToolUse, Command: cmd} }

func TestPreToolUse(t *testing.T) {
	tests := []struct {
		name       string
		hooks      []config.Hook
		wantBlock  bool
		wantReason string
		wantErrs   []string // Error() of each joined failure
	}{
		{"none", nil, false, "", nil},
		{"allow", []config.Hook{pre("exit 0")}, false, "", nil},
		{"allow ignores output", []config.Hook{pre("echo out; echo err >&2")}, false, "", nil},
		{"block with reason", []config.Hook{pre("echo '  rm is not allowed here  ' >&2; exit 2")}, true, "rm is not allowed here", nil},
		{"block without reason", []config.Hook{pre("exit 2")}, true, "blocked by a pre_tool_use hook", nil},
		{"block reason redacted", []config.Hook{pre("echo key " + fakeKey + " >&2; exit 2")}, true, "key [REDACTED]", nil},
		{"failure exit 1", []config.Hook{pre("echo secret-ish detail >&2; exit 1")}, false, "", []string{"pre_tool_use hook 1 failed (exit status 1)"}},
		{"failure exit 3", []config.Hook{pre("exit 3")}, false, "", []string{"pre_tool_use hook 1 failed (exit status 3)"}},
		{"killed by signal", []config.Hook{pre("kill -TERM $$")}, false, "", []string{"pre_tool_use hook 1 failed (killed by a signal)"}},
		{"failure then block", []config.Hook{pre("exit 1"), pre("true"), pre("echo first >&2; exit 2"), pre("echo second >&2; exit 2")},
			true, "first", nil}, // the block wins; the failure is only logged
		{"other events ignored", []config.Hook{{Event: PostToolUse, Command: "exit 1"}, {Event: Stop, Command: "exit 2"}}, false, "", nil},
		{"matcher skips", []config.Hook{{Event: PreToolUse, Matcher: "grep", Command: "exit 2"}}, false, "", nil},
		{"matcher hits", []config.Hook{{Event: PreToolUse, Matcher: "grep|shell", Command: "exit 2"}}, true, "blocked by a pre_tool_use hook", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(tt.hooks, t.TempDir(), "test", t.Logf)
			block, reason, err := r.PreToolUse(t.Context(), "shell", json.RawMessage(`{"command":"rm -rf /"}`))
			if block != tt.wantBlock || reason != tt.wantReason {
				t.Errorf("PreToolUse = %v, %q; want %v, %q", block, reason, tt.wantBlock, tt.wantReason)
			}
			if got := errTexts(err); !reflect.DeepEqual(got, tt.wantErrs) {
				t.Errorf("errors = %q; want %q", got, tt.wantErrs)
			}
		})
	}
}

// errTexts returns the Error() of each *Error joined in err.
func errTexts(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, e.Error())
		}
		return out
	}
	return []string{err.Error()}
}

func TestFirstBlockWinsLaterHooksDoNotRun(t *testing.T) {
	dir := t.TempDir()
	r := New([]config.Hook{
		pre("touch ran1"),
		pre("touch ran2; exit 2"),
		pre("touch ran3; exit 2"),
	}, dir, "test", nil)
	block, _, err := r.PreToolUse(t.Context(), "shell", nil)
	if !block || err != nil {
		t.Fatalf("PreToolUse = %v, %v; want block", block, err)
	}
	for name, want := range map[string]bool{"ran1": true, "ran2": true, "ran3": false} {
		if got := exists(filepath.Join(dir, name)); got != want {
			t.Errorf("%s exists = %v; want %v", name, got, want)
		}
	}
}

func TestPostToolUseAndStopRunAllAndJoinFailures(t *testing.T) {
	dir := t.TempDir()
	r := New([]config.Hook{
		{Event: PostToolUse, Command: "touch post1; exit 1"},
		{Event: PostToolUse, Matcher: "grep", Command: "touch post-grep"},
		{Event: PostToolUse, Command: "touch post3; exit 2"}, // 2 only blocks before a call
		{Event: PostToolUse, Command: "touch post4"},
		{Event: Stop, Command: "touch stop1; exit 5"},
		{Event: Stop, Command: "touch stop2"},
	}, dir, "test", nil)
	err := r.PostToolUse(t.Context(), "shell", nil, "ok", false)
	want := []string{"post_tool_use hook 1 failed (exit status 1)", "post_tool_use hook 3 failed (exit status 2)"}
	if got := errTexts(err); !reflect.DeepEqual(got, want) {
		t.Errorf("PostToolUse errors = %q; want %q", got, want)
	}
	err = r.Stop(t.Context(), agent.Failed)
	if got, want := errTexts(err), []string{"stop hook 5 failed (exit status 5)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Stop errors = %q; want %q", got, want)
	}
	for name, want := range map[string]bool{"post1": true, "post-grep": false, "post3": true, "post4": true, "stop1": true, "stop2": true} {
		if got := exists(filepath.Join(dir, name)); got != want {
			t.Errorf("%s exists = %v; want %v", name, got, want)
		}
	}
}

func TestErrorsCarryNoOutputOrPaths(t *testing.T) {
	dir := t.TempDir()
	r := New([]config.Hook{pre("echo " + fakeKey + "; echo " + dir + " >&2; exit 7")}, dir, "test", nil)
	_, _, err := r.PreToolUse(t.Context(), "shell", nil)
	if err == nil {
		t.Fatal("no error")
	}
	if s := err.Error(); strings.Contains(s, fakeKey) || strings.Contains(s, dir) || strings.Contains(s, "echo") {
		t.Errorf("Error() leaks: %q", s)
	}
}

func TestLogsAreRedacted(t *testing.T) {
	var logs logtest.Lines
	r := New([]config.Hook{{Event: Stop, Command: "echo token " + fakeKey + "; echo err " + fakeKey + " >&2"}}, t.TempDir(), "test", logs.Logf)
	if err := r.Stop(t.Context(), agent.Completed); err != nil {
		t.Fatal(err)
	}
	all := logs.String()
	if strings.Contains(all, fakeKey) || !strings.Contains(all, "token [REDACTED]") || !strings.Contains(all, "err [REDACTED]") {
		t.Errorf("logs = %q", all)
	}
}

func TestStartFailure(t *testing.T) {
	r := New([]config.Hook{pre("true")}, filepath.Join(t.TempDir(), "missing"), "test", nil)
	_, _, err := r.PreToolUse(t.Context(), "shell", nil)
	var he *Error
	if !errors.As(err, &he) || he.Cause != CauseStart || err.Error() != "pre_tool_use hook 1 could not start" {
		t.Fatalf("err = %v; want could not start", err)
	}
}

func TestCwd(t *testing.T) {
	dir := t.TempDir()
	r := New([]config.Hook{pre("pwd -P > where")}, dir, "test", nil)
	if _, _, err := r.PreToolUse(t.Context(), "shell", nil); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "where"))
	want, _ := filepath.EvalSymlinks(dir)
	if strings.TrimSpace(string(got)) != want {
		t.Errorf("hook cwd = %q; want %q", got, want)
	}
}

func TestMinimalEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", fakeKey)
	t.Setenv("ANTHROPIC_API_KEY", fakeKey)
	t.Setenv("MC_HOME", "/somewhere")
	dir := t.TempDir()
	r := New([]config.Hook{pre("env > env.txt")}, dir, "test", nil)
	if _, _, err := r.PreToolUse(t.Context(), "shell", nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), fakeKey) {
		t.Fatalf("the credential reached the hook:\n%s", b)
	}
	// The shell adds PWD, SHLVL and _ itself.
	allowed := map[string]bool{"PATH": true, "HOME": true, "LANG": true, "TERM": true, "PWD": true, "SHLVL": true, "_": true, "OLDPWD": true}
	sawPath := false
	for line := range strings.Lines(string(b)) {
		k, _, _ := strings.Cut(strings.TrimSpace(line), "=")
		if !allowed[k] {
			t.Errorf("hook environment has %q", k)
		}
		sawPath = sawPath || k == "PATH"
	}
	if !sawPath {
		t.Error("hook environment has no PATH")
	}
}

func TestStdinDocument(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", InputFieldBytes+10)
	bigArgs := json.RawMessage(`{"content":"` + big + `"}`)
	r := New([]config.Hook{
		{Event: PreToolUse, Command: "cat > pre.json"},
		{Event: PostToolUse, Command: "cat > post.json"},
		{Event: Stop, Command: "cat > stop.json"},
	}, dir, protocol.InvocationLocalAgent, nil)
	read := func(name string) map[string]any {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return m
	}
	tests := []struct {
		name string
		call func() error
		file string
		want map[string]any
	}{
		{"pre", func() error {
			_, _, err := r.PreToolUse(t.Context(), "shell", json.RawMessage(`{"command":"ls <a> & b"}`))
			return err
		}, "pre.json", map[string]any{"event": "pre_tool_use", "cwd": dir, "tool": "shell", "arguments": map[string]any{"command": "ls <a> & b"}}},
		{"pre empty args", func() error {
			_, _, err := r.PreToolUse(t.Context(), "list_dir", nil)
			return err
		}, "pre.json", map[string]any{"event": "pre_tool_use", "cwd": dir, "tool": "list_dir", "arguments": map[string]any{}}},
		{"pre invalid args", func() error {
			_, _, err := r.PreToolUse(t.Context(), "grep", json.RawMessage(`{"pattern":`))
			return err
		}, "pre.json", map[string]any{"event": "pre_tool_use", "cwd": dir, "tool": "grep", "arguments": `{"pattern":`, "arguments_truncated": true}},
		{"pre big args", func() error {
			_, _, err := r.PreToolUse(t.Context(), "write_file", bigArgs)
			return err
		}, "pre.json", map[string]any{"event": "pre_tool_use", "cwd": dir, "tool": "write_file",
			"arguments": string(bigArgs[:InputFieldBytes]), "arguments_truncated": true}},
		{"post", func() error {
			return r.PostToolUse(t.Context(), "shell", json.RawMessage(`{"command":"false"}`), "exit 1\n", true)
		}, "post.json", map[string]any{"event": "post_tool_use", "cwd": dir, "tool": "shell", "arguments": map[string]any{"command": "false"},
			"result": "exit 1\n", "is_error": true}},
		{"post big result", func() error {
			return r.PostToolUse(t.Context(), "read_file", json.RawMessage(`{"path":"a"}`), "é"+big, false)
		}, "post.json", map[string]any{"event": "post_tool_use", "cwd": dir, "tool": "read_file", "arguments": map[string]any{"path": "a"},
			"result": "é" + big[:InputFieldBytes-2], "result_truncated": true, "is_error": false}},
		{"post invalid utf-8 result", func() error {
			return r.PostToolUse(t.Context(), "read_file", json.RawMessage(`{}`), "a\xffb", false)
		}, "post.json", map[string]any{"event": "post_tool_use", "cwd": dir, "tool": "read_file", "arguments": map[string]any{},
			"result": "a\uFFFDb", "is_error": false}},
		{"stop", func() error { return r.Stop(t.Context(), agent.Cancelled) },
			"stop.json", map[string]any{"event": "stop", "cwd": dir, "outcome": "cancelled"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); err != nil {
				t.Fatal(err)
			}
			// Every document says what started the turn.
			tt.want["invocation"] = protocol.InvocationLocalAgent
			if got := read(tt.file); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("stdin = %.300v\nwant    %.300v", got, tt.want)
			}
		})
	}
}

func TestHookNotReadingStdin(t *testing.T) {
	args := json.RawMessage(`"` + strings.Repeat("y", InputFieldBytes-2) + `"`)
	r := New([]config.Hook{pre("exit 0"), pre("exec <&-; exit 0")}, t.TempDir(), "test", nil)
	if block, _, err := r.PreToolUse(t.Context(), "shell", args); block || err != nil {
		t.Fatalf("PreToolUse = %v, %v", block, err)
	}
}

func TestBoundedOutput(t *testing.T) {
	// 10 MB on each stream; the reason keeps at most OutputBytes.
	r := New([]config.Hook{pre("yes 'stdout filler' | head -c 10000000; yes 'no way' | head -c 10000000 >&2; exit 2")}, t.TempDir(), "test", nil)
	block, reason, err := r.PreToolUse(t.Context(), "shell", nil)
	if !block || err != nil {
		t.Fatalf("PreToolUse = %v, %v", block, err)
	}
	if len(reason) > OutputBytes || len(reason) < OutputBytes-100 {
		t.Errorf("len(reason) = %d; want about %d", len(reason), OutputBytes)
	}
	if !strings.HasPrefix(reason, "no way\nno way\n") || strings.HasSuffix(reason, "\n") {
		t.Errorf("reason = %.40q…%q", reason, reason[max(0, len(reason)-20):])
	}
}

func TestBoundedOutputNeverHalfASecret(t *testing.T) {
	// A secret straddling the capture bound is dropped whole, not left as a
	// fragment the rules might not recognise.
	pad := strings.Repeat("a ", (OutputBytes-10)/2)
	r := New([]config.Hook{pre("printf '%s' '" + pad + fakeKey + "' >&2; exit 2")}, t.TempDir(), "test", nil)
	block, reason, _ := r.PreToolUse(t.Context(), "shell", nil)
	if !block || !strings.HasPrefix(reason, "a a a") {
		t.Fatalf("PreToolUse = %v, %.20q", block, reason)
	}
	if strings.Contains(reason, fakeKey[:8]) || strings.Contains(reason, "aB3c") {
		t.Errorf("reason ends with a fragment: %q", reason[max(0, len(reason)-40):])
	}
}

// parsePids parses "shell_pid sleeper_pid" written by a hook.
func parsePids(t *testing.T, s string) []int {
	t.Helper()
	var pids []int
	for f := range strings.FieldsSeq(s) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pids %q: %v", s, err)
		}
		pids = append(pids, pid)
	}
	if len(pids) != 2 {
		t.Fatalf("pids %q: want 2", s)
	}
	return pids
}

func TestTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	r := New([]config.Hook{{Event: PreToolUse, Command: "sleep 60 & echo $$ $! > pids; wait", TimeoutMs: 1000}}, dir, "test", nil)
	block, _, err := r.PreToolUse(t.Context(), "shell", nil)
	var he *Error
	if block || !errors.As(err, &he) || he.Cause != CauseTimeout || err.Error() != "pre_tool_use hook 1 timed out after 1s" {
		t.Fatalf("PreToolUse = %v, %v; want timeout", block, err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Error("a timeout must not look like the caller's cancellation")
	}
	b, _ := os.ReadFile(filepath.Join(dir, "pids"))
	proctest.WaitGone(t, parsePids(t, string(b))...)
}

func TestCancelKillsGroup(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pids")
	ostest.Fifo(t, fifo)
	r := New([]config.Hook{
		{Event: PostToolUse, Command: "sleep 60 & echo $$ $! > pids; wait", TimeoutMs: 600_000},
		{Event: PostToolUse, Command: "touch second"},
	}, dir, "test", nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pidText := make(chan string, 1)
	go func() {
		// Opening blocks until the hook opens the FIFO for writing.
		b, _ := os.ReadFile(fifo)
		pidText <- string(b)
		cancel()
	}()
	err := r.PostToolUse(ctx, "shell", nil, "", false)
	var he *Error
	if !errors.As(err, &he) || he.Cause != CauseCancelled || !errors.Is(err, context.Canceled) {
		t.Fatalf("PostToolUse = %v; want cancelled", err)
	}
	proctest.WaitGone(t, parsePids(t, <-pidText)...)
	if exists(filepath.Join(dir, "second")) {
		t.Error("a hook ran after cancellation")
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	dir := t.TempDir()
	r := New([]config.Hook{pre("touch ran"), {Event: Stop, Command: "touch ran"}}, dir, "test", nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := r.PreToolUse(ctx, "shell", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("PreToolUse = %v; want cancelled", err)
	}
	if err := r.Stop(ctx, agent.Cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("Stop = %v; want cancelled", err)
	}
	if exists(filepath.Join(dir, "ran")) {
		t.Error("a hook started on a done context")
	}
	// The documented way to run stop hooks after a cancelled turn.
	if err := r.Stop(context.WithoutCancel(ctx), agent.Cancelled); err != nil || !exists(filepath.Join(dir, "ran")) {
		t.Errorf("Stop(WithoutCancel) = %v; ran = %v", err, exists(filepath.Join(dir, "ran")))
	}
}

func TestBackgroundChildHoldingPipesDoesNotHang(t *testing.T) {
	// The shell exits at once; its background child keeps stdout open but
	// is in the group, so it is killed and PreToolUse returns promptly.
	dir := t.TempDir()
	r := New([]config.Hook{pre("sleep 60 & echo $$ $! > pids; exit 0")}, dir, "test", nil)
	if block, _, err := r.PreToolUse(t.Context(), "shell", nil); block || err != nil {
		t.Fatalf("PreToolUse = %v, %v", block, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "pids"))
	proctest.WaitGone(t, parsePids(t, string(b))...)
}

func TestConcurrentUse(t *testing.T) {
	r := New([]config.Hook{pre("cat >/dev/null; exit 2")}, t.TempDir(), "test", nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if block, _, err := r.PreToolUse(t.Context(), "shell", nil); !block || err != nil {
				t.Errorf("PreToolUse = %v, %v", block, err)
			}
		})
	}
	wg.Wait()
}
