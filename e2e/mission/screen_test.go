//go:build unix

package mission

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// vterm is the real binary on a pseudo-terminal whose output goes through a
// terminal emulator, so a test sees what a person sees: the screen and the
// scrollback above it.
type vterm struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex // guards em, raw and titles
	em   *vt.Emulator
	done chan struct{}
	// raw is every byte the app wrote to the terminal; titles the window
	// titles it set.
	raw    []byte
	titles []string
}

// startVT runs the binary with args on a cols x rows terminal.
func startVT(t *testing.T, ws *clienttest.Workspace, cols, rows int, args ...string) *vterm {
	t.Helper()
	return startVTEnv(t, ws, nil, cols, rows, args...)
}

// startVTEnv is startVT with env added to the workspace's environment.
func startVTEnv(t *testing.T, ws *clienttest.Workspace, env []string, cols, rows int, args ...string) *vterm {
	t.Helper()
	return startVTCmd(t, ws, exec.Command(clienttest.Binary(t), args...), env, cols, rows)
}

// startVTCmd is startVTEnv of cmd (the binary under a shell, say).
func startVTCmd(t *testing.T, ws *clienttest.Workspace, cmd *exec.Cmd, env []string, cols, rows int) *vterm {
	t.Helper()
	cmd.Dir = ws.Cwd
	cmd.Env = append(append(ws.Env(), "TERM=xterm-256color"), env...)
	tty, err := startPTY(cmd, cols, rows)
	if err != nil {
		t.Fatal(err)
	}
	v := &vterm{t: t, cmd: cmd, tty: tty, em: vt.NewEmulator(cols, rows), done: make(chan struct{})}
	v.em.SetCallbacks(vt.Callbacks{Title: func(s string) { v.titles = append(v.titles, s) }})
	// A shell's earlier output fills the screen, as it does for a person:
	// the app starts on the bottom line, not on an empty screen.
	for i := range rows + 5 {
		_, _ = fmt.Fprintf(v.em, "$ earlier shell output %d\r\n", i)
	}
	_, _ = io.WriteString(v.em, "$ magi-code\r\n")
	var stop atomic.Bool
	answered := make(chan struct{})
	go func() { // the emulator's answers to the app's queries go back to the app
		defer close(answered)
		buf := make([]byte, 1024)
		for {
			n, err := v.em.Read(buf)
			if stop.Load() || err != nil {
				return
			}
			_, _ = tty.Write(buf[:n])
		}
	}()
	go func() { // ends when the terminal closes (the child exits)
		defer close(v.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			v.mu.Lock()
			// the query for mode 2027, even when split across reads
			q := []byte(ansi.RequestModeUnicodeCore)
			from := max(0, len(v.raw)-len(q)+1)
			asked := bytes.Contains(append(slices.Clip(v.raw[from:]), buf[:n]...), q)
			v.raw = append(v.raw, buf[:n]...)
			_, _ = v.em.Write(buf[:n])
			v.mu.Unlock()
			if asked {
				// The emulator draws a grapheme cluster (an emoji with its
				// skin tone, a ZWJ family) as one character, as a terminal
				// that knows mode 2027 does; it does not say so itself, so
				// the answer such a terminal gives goes back here.
				_, _ = tty.Write([]byte(ansi.ReportMode(ansi.ModeUnicodeCore, ansi.ModeReset)))
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { // after endPTY (the last cleanup runs first): until the master's reader ends, the emulator it feeds may answer
		// Ends the answering goroutine without Emulator.Close, whose flag
		// Read checks unlocked.
		stop.Store(true)
		_, _ = v.em.InputPipe().Write([]byte{0})
		<-answered
	})
	t.Cleanup(func() { endPTY(t, cmd, tty, v.done) })
	return v
}

// screen is the visible rows, trailing blanks trimmed.
func (v *vterm) screen() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	var rows []string
	for y := range v.em.Height() {
		var b strings.Builder
		for x := 0; x < v.em.Width(); x++ {
			c := v.em.CellAt(x, y)
			switch {
			case c == nil:
			case c.Content == "" && c.Width == 0:
				// the second half of a wide character
			case c.Content == "":
				b.WriteByte(' ')
			default:
				b.WriteString(c.Content)
			}
		}
		rows = append(rows, strings.TrimRight(b.String(), " "))
	}
	return rows
}

// scrollback is the rows that scrolled off the top, oldest first.
func (v *vterm) scrollback() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	sb := v.em.Scrollback()
	var rows []string
	for i := range sb.Len() {
		rows = append(rows, strings.TrimRight(sb.Line(i).String(), " "))
	}
	return rows
}

// all is the scrollback, then the screen.
func (v *vterm) all() []string { return append(v.scrollback(), v.screen()...) }

func (v *vterm) dump() string {
	return "scrollback:\n" + strings.Join(v.scrollback(), "\n") + "\n--- screen:\n" + strings.Join(v.screen(), "\n")
}

// waitScreen waits until the screen shows s.
func (v *vterm) waitScreen(s string) {
	v.t.Helper()
	deadline := time.Now().Add(clienttest.HangGuard)
	for !strings.Contains(strings.Join(v.screen(), "\n"), s) {
		if time.Now().After(deadline) {
			v.t.Fatalf("the screen never showed %q:\n%s", s, v.dump())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// flat is the scrollback and the screen as words joined by single
// spaces: a line wrapped at the screen's edge reads whole.
func (v *vterm) flat() string { return strings.Join(strings.Fields(strings.Join(v.all(), " ")), " ") }

// waitWords waits until the scrollback and screen show s, wrapped or not.
func (v *vterm) waitWords(s string) {
	v.t.Helper()
	deadline := time.Now().Add(clienttest.HangGuard)
	for !strings.Contains(v.flat(), s) {
		if time.Now().After(deadline) {
			v.t.Fatalf("the terminal never showed %q:\n%s", s, v.dump())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitIdle waits until the screen shows s and has not changed for a
// moment: the app drew its last frame.
func (v *vterm) waitIdle(s string) {
	v.t.Helper()
	v.waitScreen(s)
	deadline := time.Now().Add(clienttest.HangGuard)
	last, same := strings.Join(v.all(), "\n"), 0
	for same < 10 {
		if time.Now().After(deadline) {
			v.t.Fatalf("the screen never settled:\n%s", v.dump())
		}
		time.Sleep(30 * time.Millisecond)
		now := strings.Join(v.all(), "\n")
		if now == last {
			same++
		} else {
			last, same = now, 0
		}
	}
}

// answer types an approval's answer as a person does: after reading the
// request, not in the burst of keys before it (a key less than the grace
// period after the request appeared answers nothing).
func (v *vterm) answer(s string) {
	v.t.Helper()
	time.Sleep(typingPause) // the person reads the request, then answers
	v.typeText(s)
}

func (v *vterm) typeText(s string) {
	v.t.Helper()
	if _, err := io.WriteString(v.tty, s); err != nil {
		v.t.Fatal(err)
	}
}

// resize changes the terminal's size as a window manager does: the
// emulator first, then the pseudo-terminal, which signals the app.
func (v *vterm) resize(cols, rows int) {
	v.t.Helper()
	v.mu.Lock()
	v.em.Resize(cols, rows)
	v.mu.Unlock()
	if err := setSize(v.tty, cols, rows); err != nil {
		v.t.Fatal(err)
	}
}

// tallReply is a reply of a sentence, a fenced block of n numbered lines and
// a closing sentence, cut into pieces deltas.
func tallReply(n, pieces int) (steps []clienttest.Step, full string) {
	var b strings.Builder
	b.WriteString("Here is the file:\n```go\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "fmt.Println(\"code-line-%02d\")\n", i)
	}
	b.WriteString("```\nThat is the closing-sentence.")
	full = b.String()
	size := (len(full) + pieces - 1) / pieces
	for s := full; s != ""; {
		k := min(size, len(s))
		steps = append(steps, clienttest.Text(s[:k]), clienttest.SleepMs(30))
		s = s[k:]
	}
	return steps, full
}

// assertOnce checks that the rows hold the n numbered code lines once
// each, in order, then the closing sentence once.
func assertOnce(t *testing.T, v *vterm, rows []string, n int) {
	t.Helper()
	onceInOrder(t, rows, n, v.dump())
}

// slowReply is tallReply(n, pieces) with sleepMs between its pieces.
func slowReply(n, pieces, sleepMs int) []clienttest.Step {
	steps, _ := tallReply(n, pieces)
	for i := range steps {
		if _, ok := steps[i]["sleep_ms"]; ok {
			steps[i] = clienttest.SleepMs(sleepMs)
		}
	}
	return steps
}

// assertLive checks that the bottom of the screen is the app's live
// region: the input line and the status bar.
func assertLive(t *testing.T, v *vterm, want string) {
	t.Helper()
	screen := v.screen()
	last := len(screen) - 1
	for last > 0 && screen[last] == "" {
		last--
	}
	if !strings.Contains(screen[last], want) || !strings.Contains(strings.Join(screen[max(0, last-3):last], "\n"), "›") {
		t.Fatalf("the live region (input and status bar %q) is not at the bottom:\n%s", want, v.dump())
	}
}

// A reply taller than the screen, streamed in pieces, reaches the
// scrollback whole, once and in order, and the prompt and status bar are
// drawn after it; no working line or partial frame is left in the
// scrollback.
func TestTallReplyIsShownWholeOnce(t *testing.T) {
	for _, size := range []struct{ cols, rows, pieces int }{{80, 24, 6}, {30, 24, 6}, {80, 24, 1}} {
		t.Run(fmt.Sprintf("%dx%d in %d", size.cols, size.rows, size.pieces), func(t *testing.T) {
			steps, _ := tallReply(42, size.pieces)
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{clienttest.Response(steps...)}})
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("fixture-model")
			v.typeText("show me the file\r")
			v.waitIdle("turn completed")
			if os.Getenv("MISSION_TRANSCRIPT") != "" {
				t.Log(v.dump())
			}
			assertOnce(t, v, v.all(), 42)
			assertLive(t, v, "fixture-model")
			for _, r := range v.scrollback() {
				if strings.Contains(r, "working") || strings.Contains(r, "fixture-model ·") {
					t.Fatalf("a live frame was left in the scrollback (%q):\n%s", r, v.dump())
				}
			}
		})
	}
}

// A session holding a reply taller than the screen, reopened at start
// (--continue, resume ID, resume with its picker), shows its history
// whole, once and in order, under the prompt that asked for it, with the
// live region below.
func TestResumedTallReplyIsShownWholeOnce(t *testing.T) {
	steps, _ := tallReply(42, 6)
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{clienttest.Response(steps...)}})
	first := startVT(t, ws, 80, 24, "--prompt", "show me the file")
	first.waitScreen("turn completed")
	if code := first.exitCode(); code != 0 {
		t.Fatalf("first turn: exit %d:\n%s", code, first.dump())
	}
	for _, c := range []struct {
		name       string
		cols, rows int
		args       []string
		pick       bool
	}{
		{"continue 80x24", 80, 24, []string{"--continue"}, false},
		{"continue 30x24", 30, 24, []string{"--continue"}, false},
		{"resume picker 80x24", 80, 24, []string{"resume"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := startVT(t, ws, c.cols, c.rows, c.args...)
			if c.pick {
				v.waitScreen("resume which session?")
				v.waitScreen("show me the file")
				v.typeText("\r")
			}
			v.waitIdle("closing-sentence")
			all := v.all()
			prompt := -1
			for i, r := range all {
				if strings.Contains(r, "you› show me the file") {
					if prompt >= 0 {
						t.Fatalf("the prompt is shown twice:\n%s", v.dump())
					}
					prompt = i
				}
			}
			if prompt < 0 {
				t.Fatalf("the resumed prompt is missing:\n%s", v.dump())
			}
			assertOnce(t, v, all[prompt:], 42)
			assertLive(t, v, "fixture-model")
			v.typeText("/quit\r")
			if code := v.exitCode(); code != 0 {
				t.Fatalf("exit %d after /quit:\n%s", code, v.dump())
			}
		})
	}
}

// exitCode waits for the process and returns its exit code.
func (v *vterm) exitCode() int {
	v.t.Helper()
	waited := make(chan error, 1)
	go func() { waited <- v.cmd.Wait() }()
	select {
	case err := <-waited:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			v.t.Fatal(err)
		}
		return 0
	case <-time.After(clienttest.HangGuard):
		v.t.Fatalf("did not exit:\n%s", v.dump())
		return -1
	}
}

// The approval prompt shows the whole command, wrapped, and the time
// left, at 100 and at 30 columns, before the person answers.
func TestApprovalShowsTheWholeLongCommand(t *testing.T) {
	command := "echo this is a harmless looking beginning of a long command that goes on and on && rm -rf ~/important-project-directory"
	for _, size := range []struct{ cols, rows int }{{100, 30}, {30, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Shell(command)),
				clienttest.Response(clienttest.Text("ok")),
			}})
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("fixture-model")
			v.typeText("clean up\r")
			v.waitIdle("approve?")
			flat := strings.Join(strings.Fields(strings.Join(v.screen(), " ")), "")
			if !strings.Contains(flat, strings.ReplaceAll(command, " ", "")) {
				t.Fatalf("the screen does not show the whole command before the answer:\n%s", v.dump())
			}
			if !strings.Contains(flat, "deniedautomaticallyin") {
				t.Fatalf("the time left is not shown whole:\n%s", v.dump())
			}
			v.answer("n")
			v.waitIdle("turn completed")
		})
	}
}

// Resizing the terminal while a tall reply streams leaves no stale frame
// on the screen or in the scrollback, and the reply still arrives whole,
// once and in order.
func TestResizeMidReply(t *testing.T) {
	for _, to := range []struct{ cols, rows int }{{30, 24}, {100, 30}, {80, 12}} {
		t.Run(fmt.Sprintf("80x24 to %dx%d", to.cols, to.rows), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{clienttest.Response(slowReply(42, 6, 250)...)}})
			v := startVT(t, ws, 80, 24)
			v.waitScreen("fixture-model")
			v.typeText("show me the file\r")
			v.waitScreen("code-line-0")
			v.resize(to.cols, to.rows)
			v.waitIdle("turn completed")
			assertOnce(t, v, v.all(), 42)
			assertLive(t, v, "fixture")
			status := 0
			for _, r := range v.all() {
				if strings.Contains(r, "working") {
					t.Fatalf("a stale spinner line (%q):\n%s", r, v.dump())
				}
				if strings.Contains(r, " · fixture") || strings.HasPrefix(strings.TrimSpace(r), "fixture ·") || strings.Contains(r, "fixture-model · ") {
					status++
				}
			}
			if status != 1 {
				t.Fatalf("%d status bars on the screen and in the scrollback; want the live one:\n%s", status, v.dump())
			}
		})
	}
}

// A bracketed paste of several lines keeps them: the prompt stored is the
// lines joined by line feeds, and Enter inside the paste does not send.
func TestPasteKeepsLines(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	v := startVT(t, ws, 80, 24)
	v.waitScreen("fixture-model")
	v.em.Paste("line one\rline two\rline three") // terminals send CR for a line break
	v.waitScreen("line three")
	screen := strings.Join(v.screen(), "\n")
	if !strings.Contains(screen, "line one") || !strings.Contains(screen, "line two") {
		t.Fatalf("the pasted lines are not all in the input:\n%s", v.dump())
	}
	v.typeText("\r")
	v.waitIdle("turn completed")
	files, _ := filepath.Glob(filepath.Join(ws.Home, "sessions", "*.jsonl"))
	var stored bool
	for _, f := range files {
		data, _ := os.ReadFile(f)
		stored = stored || strings.Contains(string(data), `line one\nline two\nline three`)
	}
	if !stored {
		t.Fatalf("no session stores the prompt with its line feeds (%v):\n%s", files, v.dump())
	}
}

// Ctrl-C with a draft clears it and the app stays; Up brings back the
// last prompt; Ctrl-C on an empty input leaves with 0.
func TestCtrlCClearsTheDraft(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	v := startVT(t, ws, 80, 24)
	v.waitScreen("fixture-model")
	v.typeText("first question\r")
	v.waitIdle("turn completed")
	v.typeText("half a thought")
	v.waitScreen("half a thought")
	v.typeText("\x03")
	v.waitIdle("ask anything")
	if strings.Contains(strings.Join(v.screen(), "\n"), "half a thought") {
		t.Fatalf("Ctrl-C left the draft:\n%s", v.dump())
	}
	v.typeText("\x1b[A") // Up
	v.waitScreen("› first question")
	v.typeText("\x03\x03\x03") // the draft cleared, then twice on the empty input
	if code := v.exitCode(); code != 0 {
		t.Fatalf("exit %d after Ctrl-C on an empty input:\n%s", code, v.dump())
	}
}

// Under approval = "auto" a protected command still asks, says which
// protection, and the person's denial reads as theirs, with the
// protection's reason, once, before the final answer.
func TestProtectedRequestAndDenial(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "auto", Responses: [][]clienttest.Step{
		clienttest.Response(clienttest.Shell("rm -rf ~/important-project-directory")),
		clienttest.Response(clienttest.Text("final-answer")),
	}})
	v := startVT(t, ws, 80, 24)
	v.waitScreen("fixture-model")
	v.typeText("clean up\r")
	v.waitIdle("approve?")
	if s := strings.Join(v.screen(), "\n"); !strings.Contains(s, "recursive delete outside the workspace") {
		t.Fatalf("the request does not name the protection:\n%s", v.dump())
	}
	v.answer("n")
	v.waitIdle("turn completed")
	all := strings.Join(v.all(), "\n")
	denial := strings.Index(all, "✗ shell denied by user (protected: recursive delete outside the workspace)")
	if denial < 0 || strings.Count(all, "denied by user") != 1 || strings.Index(all, "final-answer") < denial {
		t.Fatalf("the denial is not shown once, as the person's, before the answer:\n%s", v.dump())
	}
}

// An edit's approval shows the change (old lines, new lines), with a
// secret in it redacted, at 80 and 30 columns.
func TestEditApprovalShowsTheDiff(t *testing.T) {
	const token = "ghp_" + "Zq8Xw3Lm9Vt2Rk7Np4Hs6Jd1Fb5Gc0Ya8Ue3"
	for _, cols := range []int{80, 30} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.ToolCall("edit_file", map[string]any{"path": "config.go", "old": "timeout := 5", "new": "timeout := 50\ntoken := \"" + token + "\""})),
				clienttest.Response(clienttest.Text("ok")),
			}})
			ws.WriteFile(t, filepath.Join(ws.Cwd, "config.go"), "timeout := 5\n")
			v := startVT(t, ws, cols, 24)
			v.waitScreen("fixture-model")
			v.typeText("raise the timeout\r")
			v.waitIdle("approve?")
			screen := strings.Join(v.screen(), "\n")
			flat := strings.Join(strings.Fields(screen), "")
			for _, want := range []string{"edit_file:config.go", "-timeout:=5", "+timeout:=50", "+token:="} {
				if !strings.Contains(flat, want) {
					t.Fatalf("the approval lacks %q:\n%s", want, v.dump())
				}
			}
			if strings.Contains(flat, token[:12]) {
				t.Fatalf("the secret in the change reached the screen:\n%s", v.dump())
			}
			v.answer("n")
			v.waitIdle("turn completed")
		})
	}
}

// codeOnScreen is the first protocol code (a word joined by '_') the rows
// show, or "".
func codeOnScreen(rows []string) string {
	all := strings.Join(rows, "\n")
	for _, c := range protocol.Codes {
		if strings.Contains(string(c), "_") && strings.Contains(all, string(c)) {
			return string(c)
		}
	}
	for _, n := range []string{"_notice", "saved_selection", "cwd_unverified", "not_started"} {
		if strings.Contains(all, n) {
			return n
		}
	}
	return ""
}

// A turn the provider failed ends with a sentence saying why, live and
// once the session is resumed; no protocol code reaches the screen, at 80
// and 30 columns.
func TestFailedTurnSaysWhyInWords(t *testing.T) {
	for _, cols := range []int{80, 30} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Text("Let me look. "), clienttest.Step{"error": "rate_limited"}),
			}})
			v := startVT(t, ws, cols, 24)
			v.waitScreen("fixture-model")
			v.typeText("look at it\r")
			v.waitIdle("turn failed")
			flat := strings.Join(strings.Fields(strings.Join(v.all(), " ")), " ")
			if !strings.Contains(flat, "turn failed: provider error: the provider is rate limiting requests") {
				t.Fatalf("the failed turn does not end with its reason in words:\n%s", v.dump())
			}
			if c := codeOnScreen(v.all()); c != "" {
				t.Fatalf("%s reached the screen:\n%s", c, v.dump())
			}
			v.typeText("/quit\r")
			if code := v.exitCode(); code != 0 {
				t.Fatalf("exit %d after /quit:\n%s", code, v.dump())
			}
			r := startVT(t, ws, cols, 24, "--continue")
			r.waitIdle("resumed session")
			r.waitIdle("rate limiting")
			if c := codeOnScreen(r.all()); c != "" {
				t.Fatalf("%s reached the screen of the resumed session:\n%s", c, r.dump())
			}
			if os.Getenv("MISSION_TRANSCRIPT") != "" {
				t.Logf("live:\n%s\nresumed:\n%s", v.dump(), r.dump())
			}
		})
	}
}

// Commands that cannot run during a turn say what the person can do
// (wait, or cancel the turn), and a prompt typed meanwhile stays in the
// input; nothing reads as a bare "not now" or a readiness code.
func TestCommandsDuringATurnSayWhatToDo(t *testing.T) {
	text := "working on it. " + strings.Repeat("more words ", 40)
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		clienttest.Response(clienttest.Text(text), clienttest.SleepMs(600_000)),
	}})
	v := startVT(t, ws, 80, 24)
	v.waitScreen("fixture-model")
	v.typeText("take your time\r")
	v.waitScreen("working on it")
	for _, c := range []struct{ typed, want string }{
		{"/new\r", "new: a turn is running; wait for it to end, or cancel it with Esc or Ctrl-C"},
		{"/resume\r", "resume: a turn is running; wait for it to end, or cancel it with Esc or Ctrl-C"},
		{"next question\r", "not sent yet: a turn is running; your text stays in the input"},
	} {
		v.typeText(c.typed)
		v.waitWords(c.want)
	}
	// The refusal is printed before the frame that redraws the input:
	// wait for that frame rather than read the screen at once.
	v.waitScreen("› next question")
	if all := strings.Join(v.all(), "\n"); strings.Contains(all, "not now") || strings.Contains(all, "(ready)") {
		t.Fatalf("a refusal does not say what to do:\n%s", v.dump())
	}
	v.typeText("\x1b")
	v.waitIdle("turn cancelled")
	v.typeText("\x15/new\r")
	v.waitIdle("new session")
}
