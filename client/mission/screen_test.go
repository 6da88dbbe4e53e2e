package mission

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/magi-code/magi-code/client"
)

// sized returns a started model on a cols x rows screen.
func sized(t *testing.T, cols, rows int, opts Options) (*Model, *fakeBackend, *clock) {
	t.Helper()
	m, fb, clk := started(t, opts)
	m.Update(tea.WindowSizeMsg{Width: cols, Height: rows})
	m.Update(drawnMsg{})
	return m, fb, clk
}

// checkFits fails unless the live region fits a cols x rows screen: at
// most liveRows tall and no line wider than the screen.
func checkFits(t *testing.T, m *Model, cols, rows int) []string {
	t.Helper()
	lines := strings.Split(m.View().Content, "\n")
	if len(lines) > m.liveRows() || len(lines) >= rows {
		t.Fatalf("the live region is %d lines on a %d-line screen (at most %d):\n%s", len(lines), rows, m.liveRows(), ansi.Strip(m.View().Content))
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > cols {
			t.Fatalf("a line of %d columns on a %d-column screen: %q", w, cols, ansi.Strip(l))
		}
	}
	return lines
}

// A streaming reply taller than the screen keeps the live region within
// it, showing the reply's last lines; once reconciled the whole reply is
// printed once and leaves the live region.
func TestTallStreamingReplyStaysWithinTheScreen(t *testing.T) {
	for _, cols := range []int{80, 30} {
		m, _, _ := sized(t, cols, 24, Options{})
		var full strings.Builder
		for i := 1; i <= 42; i++ {
			fmt.Fprintf(&full, "line-%02d of a long reply that goes on past thirty columns\n", i)
		}
		send(m, "message.delta", map[string]any{"message_id": "m1", "part": 0, "text": full.String()})
		lines := checkFits(t, m, cols, 24)
		if v := ansi.Strip(strings.Join(lines, "\n")); !strings.Contains(v, "line-42") || !strings.Contains(v, "more lines") {
			t.Fatalf("the live region does not show the reply's end and what is above it:\n%s", v)
		}
		send(m, "message.reconcile", map[string]any{"message_id": "m1", "part": 0, "text": full.String(), "last_part": true, "partial": false})
		p := printed(m)
		for i := 1; i <= 42; i++ {
			if n := strings.Count(p, fmt.Sprintf("line-%02d ", i)); n != 1 {
				t.Fatalf("line-%02d printed %d times:\n%s", i, n, p)
			}
		}
		if strings.Contains(view(m), "line-") {
			t.Fatalf("the printed reply stayed in the live region:\n%s", view(m))
		}
	}
}

// Slices printed at once are never taller than printRows, so that the
// insertion above the live region never scrolls the live region away.
func TestPrintedInSlices(t *testing.T) {
	m, _, _ := sized(t, 80, 24, Options{})
	block := strings.TrimSuffix(strings.Repeat("x\n", 50), "\n")
	m.print(block)
	total := 0
	for range 100 {
		if len(m.outbox) == 0 && !m.printing {
			break
		}
		if len(m.outbox) > 0 && m.outbox[0].lines != nil && len(m.outbox[0].lines) > 50 {
			t.Fatal("more lines than the block has")
		}
		before := 0
		for _, b := range m.outbox {
			if b.lines != nil {
				before += len(b.lines)
			} else {
				before += len(wrapLines(b.text, m.textWidth()))
			}
		}
		m.Update(printedMsg{})
		after := 0
		for _, b := range m.outbox {
			after += len(b.lines)
		}
		if before-after > m.printRows() {
			t.Fatalf("a slice of %d lines (at most %d)", before-after, m.printRows())
		}
		total += before - after
	}
	if m.printRows()+m.liveRows() > 24 {
		t.Fatalf("printRows %d + liveRows %d exceed the screen", m.printRows(), m.liveRows())
	}
}

// Nothing is printed before the screen's size is known: a resumed
// session's history waits for it instead of being drawn at a guessed
// place.
func TestNothingPrintedBeforeTheSize(t *testing.T) {
	m, _ := newModel(t)
	if cmd := m.print("history"); cmd != nil {
		t.Fatal("a block was printed before the window size arrived")
	}
	update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if m.sized {
		t.Fatal("printing began before the first frame was drawn")
	}
	if cmd := update(m, drawnMsg{}); cmd == nil {
		t.Fatal("the waiting block was not printed once the first frame was drawn")
	}
}

// The approval prompt shows the whole command, wrapped, and the time left,
// at 30 and at 100 columns.
func TestApprovalShowsTheWholeCommand(t *testing.T) {
	command := "shell: echo this is a harmless looking beginning of a long command line && rm -rf ~/important-project-directory"
	for _, cols := range []int{30, 100} {
		m, _, _ := sized(t, cols, 24, Options{})
		send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": command, "expires_in_ms": 60000})
		lines := checkFits(t, m, cols, 24)
		flat := strings.Join(strings.Fields(ansi.Strip(strings.Join(lines, " "))), "")
		if !strings.Contains(flat, strings.ReplaceAll(command, " ", "")) {
			t.Fatalf("at %d columns the approval does not show the whole command:\n%s", cols, view(m))
		}
		if !strings.Contains(view(m), "60s") {
			t.Fatalf("at %d columns the time left is not shown:\n%s", cols, view(m))
		}
	}
}

// A command too tall for the live region is printed whole above it.
func TestApprovalTallerThanTheScreenIsPrinted(t *testing.T) {
	m, _, _ := sized(t, 30, 12, Options{})
	command := "shell: " + strings.Repeat("echo step && ", 40) + "rm -rf ~/important"
	send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": command, "expires_in_ms": 60000})
	checkFits(t, m, 30, 12)
	if !strings.Contains(strings.Join(strings.Fields(printed(m)), ""), strings.ReplaceAll(command, " ", "")) || !strings.Contains(view(m), "approve?") {
		t.Fatalf("the tall request is not printed whole:\n%s\nview:\n%s", printed(m), view(m))
	}
}

// Prose and Markdown wrap to the screen instead of being cut.
func TestRepliesWrap(t *testing.T) {
	m, _, _ := sized(t, 30, 24, Options{})
	text := "A sentence that is much longer than thirty columns, ending in WORDEND.\n- a bullet that also runs on past the edge, ending in BULLETEND"
	send(m, "message.delta", map[string]any{"message_id": "m1", "part": 0, "text": text})
	lines := checkFits(t, m, 30, 24)
	v := ansi.Strip(strings.Join(lines, "\n"))
	for _, want := range []string{"WORDEND", "BULLETEND"} {
		if !strings.Contains(v, want) {
			t.Fatalf("%s was cut:\n%s", want, v)
		}
	}
}

// Activities and text keep the order they began in; the tool's name is
// said once; the approval's outcome comes before the final answer.
func TestTurnOrder(t *testing.T) {
	m, _, clk := sized(t, 80, 24, Options{})
	send(m, "message.delta", map[string]any{"message_id": "m1", "part": 0, "text": "first I look"})
	send(m, "message.reconcile", map[string]any{"message_id": "m1", "part": 0, "text": "first I look", "last_part": true, "partial": false})
	send(m, "activity", map[string]any{"activity_id": "a1", "kind": "tool", "state": "started", "name": "shell", "summary": "shell: started"})
	send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": "shell: ls", "expires_in_ms": 60000})
	clk.t = clk.t.Add(time.Second) // read, then answered
	key(m, "y")
	send(m, "activity", map[string]any{"activity_id": "a1", "kind": "tool", "state": "completed", "name": "shell", "summary": "shell: ls"})
	send(m, "message.delta", map[string]any{"message_id": "m2", "part": 0, "text": "the answer"})
	send(m, "message.reconcile", map[string]any{"message_id": "m2", "part": 0, "text": "the answer", "last_part": true, "partial": false})
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
	p := printed(m)
	order := []string{"first I look", "allowed: shell: ls", "✓ shell ls", "the answer", "turn completed"}
	at := 0
	for _, want := range order {
		i := strings.Index(p[at:], want)
		if i < 0 {
			t.Fatalf("%q missing or out of order:\n%s", want, p)
		}
		at += i
	}
	if strings.Contains(p, "shell shell") {
		t.Fatalf("the tool's name is doubled:\n%s", p)
	}
}

// Ctrl-C with a draft clears it; on an empty input Ctrl-C twice in a row
// leaves: one alone says so, and another key in between starts over.
func TestCtrlCClearsTheDraftFirst(t *testing.T) {
	m, _ := newModel(t)
	for _, r := range "half a thought" {
		key(m, string(r))
	}
	key(m, "ctrl+c")
	if m.quitting || m.input.Value() != "" {
		t.Fatalf("Ctrl-C with a draft: quitting %v, input %q; want the draft cleared and the app kept", m.quitting, m.input.Value())
	}
	key(m, "ctrl+c")
	if m.quitting || !strings.Contains(view(m), "Ctrl-C again leaves") {
		t.Fatalf("one Ctrl-C on an empty input: quitting %v\n%s", m.quitting, view(m))
	}
	key(m, "left")
	key(m, "ctrl+c")
	if m.quitting {
		t.Fatal("Ctrl-C, another key, Ctrl-C left")
	}
	key(m, "ctrl+c")
	if !m.quitting {
		t.Fatal("Ctrl-C twice on an empty input did not leave")
	}
}

// Esc cancels a running turn as Ctrl-C does.
func TestEscCancelsTheTurn(t *testing.T) {
	m, fb, _ := started(t, Options{})
	cmd := update(m, tea.KeyPressMsg{Code: tea.KeyEscape})
	if cmd == nil {
		t.Fatal("Esc during a turn did nothing")
	}
	cmd()
	if fb.calls[len(fb.calls)-1] != "turn.cancel" || m.quitting {
		t.Fatalf("Esc: calls %v, quitting %v; want turn.cancel and stay", fb.calls, m.quitting)
	}
}

// /resume with the short ID the status bar shows opens that session;
// /resume alone opens the picker.
func TestResumeShortIDAndPicker(t *testing.T) {
	other := "d85be4f6-0000-4000-8000-000000000001"
	list := []SessionInfo{{ID: other, LastActivity: time.Unix(2_000_000, 0), FirstPrompt: "fix\nthe build"}, {ID: sess, LastActivity: time.Unix(1_000_000, 0), FirstPrompt: "hello"}, {ID: "0f000000-0000-4000-8000-000000000002", LastActivity: time.Unix(900_000, 0)}}
	m, fb, _ := started(t, Options{Sessions: func() ([]SessionInfo, error) { return list, nil }})
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
	calls := enter(m, fb, "/resume d85be4f6")
	if len(calls) != 1 || calls[0] != "session.open" || fb.params[len(fb.params)-1].(map[string]string)["session_id"] != other {
		t.Fatalf("/resume d85be4f6 sent %v %v; want session.open of %s", calls, fb.params[len(fb.params)-1], other)
	}
	enter(m, fb, "/resume")
	if m.picker == nil {
		t.Fatal("/resume alone opened no picker")
	}
	v := view(m)
	if !strings.Contains(v, "d85be4f6") || !strings.Contains(v, "fix the build") || !strings.Contains(v, "0f8fad5b") {
		t.Fatalf("the picker lacks short IDs or first prompts:\n%s", v)
	}
	update(m, tea.KeyPressMsg{Code: tea.KeyDown})
	cmd := update(m, tea.KeyPressMsg{Code: tea.KeyEnter})
	msgs(cmd)
	if fb.calls[len(fb.calls)-1] != "session.open" || fb.params[len(fb.params)-1].(map[string]string)["session_id"] != sess || m.picker != nil {
		t.Fatalf("picking the second row sent %v %v", fb.calls, fb.params[len(fb.params)-1])
	}
	if calls := enter(m, fb, "/resume 0F"); len(calls) != 0 || !strings.Contains(printed(m), "sessions start with that") {
		t.Fatalf("an ambiguous prefix sent %v:\n%s", calls, printed(m))
	}
}

// The slash menu lists the commands that match what is typed; Enter takes
// the selected one.
func TestSlashMenu(t *testing.T) {
	m, _, _ := started(t, Options{})
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
	key(m, "/")
	if v := view(m); !strings.Contains(v, "/resume") || !strings.Contains(v, "/model") {
		t.Fatalf("typing / shows no menu:\n%s", v)
	}
	key(m, "h")
	if v := view(m); !strings.Contains(v, "/help") || strings.Contains(v, "/resume") {
		t.Fatalf("the menu does not narrow to /h:\n%s", v)
	}
	key(m, "enter")
	if !strings.Contains(printed(m), "commands:") {
		t.Fatalf("Enter on /h did not run /help:\n%s", printed(m))
	}
}

// Leaving before the first frame is drawn (a --prompt turn that ends at
// once) still prints what is queued first.
func TestQuitWaitsForThePrints(t *testing.T) {
	m, _ := newModel(t)
	update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m.print("the reply")
	m.quit(0)
	if m.quitSent {
		t.Fatal("quit before the queued reply was printed")
	}
	update(m, drawnMsg{})
	if m.quitSent || !m.printing {
		t.Fatalf("after the first frame: quitSent %v printing %v; want the reply printing first", m.quitSent, m.printing)
	}
	update(m, printedMsg{})
	if !m.quitSent {
		t.Fatal("did not quit once everything was printed")
	}
}

// /model alone opens a picker of the catalog's models per provider; Enter
// stores the chosen one.
func TestModelPicker(t *testing.T) {
	var stored [2]string
	m, _, _ := started(t, Options{SetModel: func(p, mo string) error { stored = [2]string{p, mo}; return nil }})
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
	typeLine(m, "/model")
	if m.picker == nil {
		t.Fatal("/model alone opened no picker")
	}
	v := view(m)
	if !strings.Contains(v, "anthropic") || !strings.Contains(v, "context") {
		t.Fatalf("the picker lacks the catalog's models:\n%s", v)
	}
	var sawOpenAI bool
	for _, it := range m.picker.items {
		sawOpenAI = sawOpenAI || it.value[0] == "openai"
	}
	if !sawOpenAI {
		t.Fatal("no openai models in the picker")
	}
	for _, it := range m.picker.items {
		if strings.Contains(it.label, "9999") || strings.Contains(it.label, "0000") {
			t.Fatalf("a price shows its float noise: %q", it.label)
		}
	}
	update(m, tea.KeyPressMsg{Code: tea.KeyDown})
	want := m.picker.items[m.picker.sel].value
	update(m, tea.KeyPressMsg{Code: tea.KeyEnter})
	if stored != [2]string{want[0], want[1]} || m.picker != nil {
		t.Fatalf("picked %v, stored %v", want, stored)
	}
}

// Not ready for want of a provider choice (a key alone was stored) says
// to pick a model, not to log in again.
func TestNotReadyWithoutAProviderSaysPickAModel(t *testing.T) {
	for _, configured := range []string{"", "openai"} {
		fb := &fakeBackend{events: make(chan client.Event)}
		m := New(Options{Backend: fb, Restart: func() (Backend, error) { return fb, nil }, Configured: func() string { return configured }})
		msgs(update(m, failure(0, "initialize", "provider_unavailable")))
		p := printed(m)
		if picks := strings.Contains(p, "/model lists them"); picks != (configured == "") {
			t.Fatalf("configured provider %q: %s", configured, p)
		}
	}
}

// A person's denial, an expiry, a cancellation and a protection's refusal
// read differently; only the person's denial says "denied by".
func TestApprovalOutcomesReadDifferently(t *testing.T) {
	cases := []struct{ summary, want string }{
		{"shell: denied by user", "✗ shell denied by user"},
		{"shell: approval expired, not run", "✗ shell approval expired, not run"},
		{"shell: cancelled", "✗ shell cancelled"},
		{"shell: refused: recursive delete outside the workspace", "✗ shell refused: recursive delete outside the workspace"},
	}
	for i, c := range cases {
		m, _, clk := sized(t, 80, 24, Options{})
		send(m, "activity", map[string]any{"activity_id": "a1", "kind": "tool", "state": "started", "name": "shell", "summary": "shell: started"})
		send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": "shell: rm -rf ~/x", "expires_in_ms": 60000})
		switch i {
		case 0:
			clk.t = clk.t.Add(time.Second)
			key(m, "n")
		case 1:
			clk.t = clk.t.Add(time.Minute)
			m.Update(tickMsg(clk.t))
		case 2:
			key(m, "ctrl+c")
		}
		send(m, "activity", map[string]any{"activity_id": "a1", "kind": "tool", "state": "failed", "name": "shell", "summary": c.summary})
		send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
		p := printed(m)
		if !strings.Contains(p, c.want) {
			t.Errorf("%q: printed\n%s", c.summary, p)
		}
		if i > 0 && strings.Contains(p, "denied") {
			t.Errorf("%q reads as a denial:\n%s", c.summary, p)
		}
	}
}

// Text typed during a turn stays in the input when Enter cannot send it.
func TestDraftDuringATurnIsKept(t *testing.T) {
	m, fb, _ := started(t, Options{})
	if calls := enter(m, fb, "next question"); len(calls) != 0 {
		t.Fatalf("Enter during a turn sent %v", calls)
	}
	if m.input.Value() != "next question" || !strings.Contains(view(m), "next question") {
		t.Fatalf("the draft was lost: input %q\n%s", m.input.Value(), view(m))
	}
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
	if calls := enter(m, fb, ""); len(calls) != 1 || calls[0] != "turn.start" {
		t.Fatalf("Enter after the turn sent %v; want turn.start of the kept draft", calls)
	}
}

// A resumed session's prompts join the input's history.
func TestResumedPromptsInHistory(t *testing.T) {
	m, _, _ := started(t, Options{})
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
	m.Update(result(0, "history.page", `{"session_id":"`+sess+`","revision":"r2","next_cursor":null,"entries":[{"message_id":"u1","kind":"user","text":"an old question","partial":false,"last_part":true},{"message_id":"a1","kind":"assistant","text":"an answer","partial":false,"last_part":true}]}`))
	update(m, tea.KeyPressMsg{Code: tea.KeyUp})
	if m.input.Value() != "an old question" {
		t.Fatalf("Up after a resume: %q", m.input.Value())
	}
}

// The pickers filter as the person types: only the rows holding every
// typed word (any case) are shown and can be picked, Up and Down move
// among them, Backspace takes a character back, Enter with nothing shown
// picks nothing and the picker stays; the highlighted row survives a
// filter that keeps it.
func TestPickerFilters(t *testing.T) {
	var stored [2]string
	m, _, _ := started(t, Options{SetModel: func(p, mo string) error { stored = [2]string{p, mo}; return nil }})
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
	typeLine(m, "/model")
	all := len(m.picker.items)
	typed := func(s string) {
		for _, r := range s {
			update(m, tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	typed("OpenAI mini")
	v := view(m)
	rows := m.picker.shown()
	if len(rows) == 0 || len(rows) == all || strings.Contains(v, "anthropic") || !strings.Contains(v, "OpenAI mini") {
		t.Fatalf("%d of %d rows shown for 'OpenAI mini':\n%s", len(rows), all, v)
	}
	for _, i := range rows {
		it := m.picker.items[i]
		if it.value[0] != "openai" || !strings.Contains(strings.ToLower(it.label), "mini") {
			t.Fatalf("row %q shown for 'OpenAI mini'", it.label)
		}
	}
	if len(rows) > 1 {
		update(m, tea.KeyPressMsg{Code: tea.KeyDown})
		if m.picker.sel != rows[1] {
			t.Fatalf("Down went to row %d; want the second shown, %d", m.picker.sel, rows[1])
		}
	}
	typed("zzz-none")
	if v := view(m); m.picker.sel != -1 || !strings.Contains(v, "nothing matches") {
		t.Fatalf("no row matches, yet:\n%s", v)
	}
	update(m, tea.KeyPressMsg{Code: tea.KeyEnter})
	if m.picker == nil || stored != [2]string{} {
		t.Fatalf("Enter with nothing shown picked %v", stored)
	}
	for range "zzz-none" {
		update(m, tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	if got := m.picker.shown(); !slices.Equal(got, rows) {
		t.Fatalf("Backspace did not bring the rows back: %v; want %v", got, rows)
	}
	want := m.picker.items[m.picker.sel].value
	update(m, tea.KeyPressMsg{Code: tea.KeyEnter})
	if stored != [2]string{want[0], want[1]} || want[0] != "openai" || m.picker != nil {
		t.Fatalf("picked %v, stored %v", want, stored)
	}
}
