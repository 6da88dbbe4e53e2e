package mission

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/magi-code/magi-code/client"
)

// fakeBackend records calls and answers each with an empty result.
type fakeBackend struct {
	mu     sync.Mutex
	calls  []string
	params []any
	events chan client.Event
}

func (f *fakeBackend) Call(_ context.Context, method string, params any) (*client.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, method)
	f.params = append(f.params, params)
	return &client.Response{Result: json.RawMessage(`{}`)}, nil
}

func (f *fakeBackend) Events() <-chan client.Event { return f.events }

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

const (
	sess = "0f8fad5b-d9cb-469f-a165-70867728950e"
	run  = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
)

// started returns a model with a session and a running turn.
func started(t *testing.T, opts Options) (*Model, *fakeBackend, *clock) {
	t.Helper()
	fb := &fakeBackend{events: make(chan client.Event)}
	clk := &clock{t: time.Unix(1_000_000, 0)}
	opts.Backend, opts.Now = fb, clk.now
	m := New(opts)
	m.Update(callMsg{method: "initialize", resp: &client.Response{Result: json.RawMessage(`{"status":{"readiness":"ready","provider":"fixture","model":"fixture-model"}}`)}})
	m.Update(callMsg{method: "session.create", resp: &client.Response{Result: json.RawMessage(`{"session_id":"` + sess + `","revision":"r1","durable":false,"notices":[]}`)}})
	if opts.Prompt == "" {
		m.startTurn("hello there")
	}
	m.Update(callMsg{method: "turn.start", resp: &client.Response{Result: json.RawMessage(`{"run_id":"` + run + `","accepted":true}`)}})
	return m, fb, clk
}

func send(m *Model, name string, data map[string]any) {
	data["session_id"], data["run_id"] = sess, run
	b, _ := json.Marshal(data)
	m.Update(eventMsg{ev: client.Event{Name: name, SessionID: sess, RunID: run, Data: b}})
}

func view(m *Model) string { return ansi.Strip(m.View().Content) }

func printed(m *Model) string { return ansi.Strip(strings.Join(m.Printed, "\n")) }

// key presses one key: a named key, or one character.
func key(m *Model, k string) tea.Cmd {
	msg, ok := namedKeys[k]
	if !ok {
		msg = tea.KeyPressMsg{Code: rune(k[0]), Text: k}
	}
	_, cmd := m.Update(msg)
	return cmd
}

func TestStatusBar(t *testing.T) {
	m, _, _ := started(t, Options{Cwd: "/home/me/project"})
	v := view(m)
	for _, want := range []string{"fixture", "fixture-model", "session 0f8fad5b", "project", "ready"} {
		if !strings.Contains(v, want) {
			t.Errorf("status bar lacks %q:\n%s", want, v)
		}
	}
}

func TestStreamingThenReconcileReplaces(t *testing.T) {
	m, _, _ := started(t, Options{})
	send(m, "message.delta", map[string]any{"message_id": "m1", "part": 0, "text": "Hel"})
	send(m, "message.delta", map[string]any{"message_id": "m1", "part": 1, "text": "lo wrld"})
	if v := view(m); !strings.Contains(v, "Hello wrld") {
		t.Fatalf("streamed text not shown:\n%s", v)
	}
	// docs/protocol.md, Run events: concatenate reconcile parts only after last_part; until then
	// the streamed text stays.
	send(m, "message.reconcile", map[string]any{"message_id": "m1", "part": 0, "text": "Hello, **brave** ", "last_part": false, "partial": false})
	if v := view(m); !strings.Contains(v, "Hello wrld") || strings.Contains(v, "brave") {
		t.Fatalf("a reconcile part showed before the last one:\n%s", v)
	}
	send(m, "message.reconcile", map[string]any{"message_id": "m1", "part": 1, "text": "world", "last_part": true, "partial": false})
	// The reconciled message is settled: it goes to the scrollback at once
	// and leaves the live region.
	if p, v := printed(m), view(m); !strings.Contains(p, "Hello, brave world") || strings.Contains(p, "wrld") || strings.Contains(v, "wrld") || strings.Contains(v, "brave") {
		t.Fatalf("reconciliation did not replace the streamed text:\nprinted:\n%s\nview:\n%s", p, v)
	}
	// A late delta never appends to a reconciled message.
	send(m, "message.delta", map[string]any{"message_id": "m1", "part": 2, "text": "XX"})
	if strings.Contains(view(m), "XX") {
		t.Fatalf("a delta after reconciliation was shown")
	}
	send(m, "activity", map[string]any{"activity_id": "a1", "kind": "tool", "state": "started", "name": "shell", "summary": "echo hi"})
	if v := view(m); !strings.Contains(v, "● shell echo hi") {
		t.Fatalf("live activity line missing:\n%s", v)
	}
	send(m, "activity", map[string]any{"activity_id": "a1", "kind": "tool", "state": "completed", "name": "shell", "summary": "echo hi"})
	if p, v := printed(m), view(m); !strings.Contains(p, "✓ shell echo hi") || strings.Contains(v, "●") || strings.Contains(p, "●") {
		t.Fatalf("the finished activity line is not in the scrollback once:\nprinted:\n%s\nview:\n%s", p, v)
	}
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
	p := printed(m)
	if !strings.Contains(p, "you› hello there") || !strings.Contains(p, "Hello, brave world") || !strings.Contains(p, "✓ shell echo hi") || !strings.Contains(p, "turn completed") {
		t.Fatalf("finished turn not in the scrollback:\n%s", p)
	}
	if v := view(m); strings.Contains(v, "brave") || !strings.Contains(v, "›") {
		t.Fatalf("the live view kept the finished turn or lost the input:\n%s", v)
	}
}

func TestDroppedDeltaMarksIncomplete(t *testing.T) {
	m, _, _ := started(t, Options{})
	send(m, "message.delta", map[string]any{"message_id": "m1", "part": 0, "text": "a"})
	send(m, "message.delta", map[string]any{"message_id": "m1", "part": 2, "text": "c"})
	if v := view(m); !strings.Contains(v, "incomplete") {
		t.Fatalf("a missing delta part is not marked:\n%s", v)
	}
}

func TestApprovalAnswerAndDefaultDeny(t *testing.T) {
	m, fb, clk := started(t, Options{})
	send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": "shell: rm -rf build", "expires_in_ms": 60000})
	v := view(m)
	if !strings.Contains(v, "approve?") || !strings.Contains(v, "shell: rm -rf build") || !strings.Contains(v, "60s") {
		t.Fatalf("approval prompt:\n%s", v)
	}
	clk.t = clk.t.Add(time.Second)
	// Typing other keys answers nothing.
	if cmd := key(m, "x"); cmd != nil || m.approval == nil {
		t.Fatalf("an unrelated key answered the approval")
	}
	// After a pause, Enter confirms the choice, deny unless moved.
	clk.t = clk.t.Add(time.Second)
	cmd := key(m, "enter")
	if cmd == nil {
		t.Fatal("Enter did not answer")
	}
	cmd()
	p := fb.params[len(fb.params)-1].(map[string]any)
	if fb.calls[len(fb.calls)-1] != "approval.answer" || p["allow"] != false || p["approval_id"] != "ap1" {
		t.Fatalf("Enter sent %s %v; want approval.answer allow=false", fb.calls[len(fb.calls)-1], p)
	}
	send(m, "approval.requested", map[string]any{"approval_id": "ap2", "summary": "shell: make", "expires_in_ms": 60000})
	clk.t = clk.t.Add(time.Second)
	key(m, "y")()
	if p := fb.params[len(fb.params)-1].(map[string]any); p["allow"] != true || p["approval_id"] != "ap2" {
		t.Fatalf("y sent %v; want allow=true", p)
	}
}

func TestApprovalCountdownExpires(t *testing.T) {
	m, fb, clk := started(t, Options{})
	send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": "shell: make", "expires_in_ms": 60000})
	clk.t = clk.t.Add(45 * time.Second)
	m.Update(tickMsg(clk.t))
	if v := view(m); !strings.Contains(v, "in 15s") {
		t.Fatalf("countdown after 45 s:\n%s", v)
	}
	clk.t = clk.t.Add(15*time.Second - time.Millisecond)
	m.Update(tickMsg(clk.t))
	if m.approval == nil {
		t.Fatal("the approval expired before 60,000 ms")
	}
	clk.t = clk.t.Add(time.Millisecond)
	m.Update(tickMsg(clk.t))
	if m.approval != nil {
		t.Fatal("the approval is still pending at 60,000 ms")
	}
	if v := view(m); strings.Contains(v, "approve?") {
		t.Fatalf("the expired request is still asked:\n%s", v)
	}
	for _, c := range fb.calls {
		if c == "approval.answer" {
			t.Fatal("an expired approval was answered (the backend denies it)")
		}
	}
}

func TestCtrlCCancelsThenLeaves(t *testing.T) {
	m, fb, _ := started(t, Options{})
	cmd := key(m, "ctrl+c")
	if cmd == nil {
		t.Fatal("Ctrl-C during a turn did nothing")
	}
	cmd()
	if fb.calls[len(fb.calls)-1] != "turn.cancel" || m.quitting {
		t.Fatalf("first Ctrl-C: calls %v, quitting %v; want turn.cancel and stay", fb.calls, m.quitting)
	}
	if v := view(m); !strings.Contains(v, "cancelling") {
		t.Fatalf("cancel not shown:\n%s", v)
	}
	key(m, "ctrl+c")
	if !m.quitting || m.ExitCode != 0 {
		t.Fatalf("second Ctrl-C: quitting %v exit %d; want to leave with 0", m.quitting, m.ExitCode)
	}
}

func TestOneTurnExitCodes(t *testing.T) {
	for _, c := range []struct {
		outcome string
		want    int
	}{{"completed", 0}, {"failed", 1}, {"cancelled", 1}} {
		m, fb, _ := started(t, Options{Prompt: "do it"})
		if fb.calls != nil {
			// The prompt is sent by a command after session.create.
		}
		send(m, "run.finished", map[string]any{"outcome": c.outcome, "persistence": "durable", "revision": "r2", "error_code": nil})
		if !m.quitting || m.ExitCode != c.want {
			t.Errorf("--prompt ending %s: quitting %v exit %d; want %d", c.outcome, m.quitting, m.ExitCode, c.want)
		}
	}
}

func TestSlashCommands(t *testing.T) {
	var stored [2]string
	m, _, _ := started(t, Options{
		Login:    func(p, k string) error { stored = [2]string{p, k}; return nil },
		SetModel: func(p, mo string) error { stored = [2]string{p, mo}; return nil },
	})
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
	typeLine := func(s string) {
		for _, r := range s {
			key(m, string(r))
		}
		key(m, "enter")
	}
	typeLine("/login openai")
	const secret = "sk-secret-123456"
	for _, r := range secret {
		key(m, string(r))
	}
	if strings.Contains(view(m), secret) || strings.Contains(view(m), "sk-") {
		t.Fatalf("the key is echoed:\n%s", view(m))
	}
	key(m, "enter")
	if stored != [2]string{"openai", secret} {
		t.Fatalf("login stored %v", stored)
	}
	if strings.Contains(printed(m), secret) || strings.Contains(view(m), secret) {
		t.Fatal("the key was printed")
	}
	typeLine("/model anthropic claude-x")
	if stored != [2]string{"anthropic", "claude-x"} {
		t.Fatalf("/model stored %v", stored)
	}
	typeLine("/quit")
	if !m.quitting || m.ExitCode != 0 {
		t.Fatal("/quit did not leave")
	}
}

func TestMarkdown(t *testing.T) {
	got := ansi.Strip(renderMarkdown("# Title\n- item with `code`\n```\nx := 1\n```\nplain **bold** and a * star", 40, true))
	for _, want := range []string{"Title", "• item with code", "  x := 1", "plain bold and a * star"} {
		if !strings.Contains(got, want) {
			t.Errorf("renderMarkdown lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "#") || strings.Contains(got, "**") || strings.Contains(got, "`") {
		t.Errorf("markers left in:\n%s", got)
	}
}

func TestMarkdownMore(t *testing.T) {
	text := "some *italic* and _also_ but snake_case_name stays\n> a quoted line\n[the docs](https://example.com/x)\n| name | size |\n|------|-----:|\n| a.go | 12 |\n| b.go | 3400 |\n```go\nfunc main() { return \"s\" } // note\n```"
	raw := renderMarkdown(text, 60, true)
	got := ansi.Strip(raw)
	for _, want := range []string{"some italic and also but snake_case_name stays", "│ a quoted line", "the docs (https://example.com/x)", "name │ size", "a.go │ 12", "b.go │ 3400", "func main() { return \"s\" } // note"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "|---") || strings.Contains(got, "](") {
		t.Errorf("markers left in:\n%s", got)
	}
	for _, styled := range []string{"\x1b[3m", "\x1b[4m"} { // italic, underline
		if !strings.Contains(raw, styled) {
			t.Errorf("no %q in the rendering", styled)
		}
	}
	if !strings.Contains(highlight("func main() {}", "go"), "func\x1b") && !strings.Contains(highlight("func main() {}", "go"), "m\x1b") {
		t.Errorf("the keyword is not highlighted: %q", highlight("func main() {}", "go"))
	}
	if highlight("func x", "go") == highlight("func x", "nolang") {
		t.Error("go and an unknown language look the same")
	}
	narrow := ansi.Strip(renderMarkdown("| a long header | another long header |\n|---|---|\n| value one | value two |", 20, true))
	if !strings.Contains(narrow, "a long header: value one") {
		t.Errorf("a table too wide is not laid out as lines:\n%s", narrow)
	}
}
