//go:build unix

package mission

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client/clienttest"
)

// frameRemnant reports whether a scrollback row is a piece of a live
// frame: the input line, the status bar, the spinner, the "more lines"
// line, a menu row.
func frameRemnant(r string) bool {
	t := strings.TrimSpace(r)
	return strings.HasPrefix(t, "›") || strings.Contains(r, "ask anything") ||
		strings.Contains(r, "fixture-model ·") || strings.Contains(r, "· fixture") || strings.HasPrefix(t, "fixture ·") ||
		strings.Contains(r, "working") || strings.Contains(r, "more lines") || strings.Contains(r, "esc or ctrl") ||
		strings.Contains(r, "Esc or Ctrl-C") || strings.Contains(r, "/help ") || strings.Contains(r, "/model ")
}

// Resizing the terminal several times while a tall reply streams leaves
// the scrollback holding only finished content, once: every line of the
// reply exactly once and in order, and no piece of a live frame (input,
// status bar, spinner, menu).
func TestResizesDuringAStreamLeaveNoFrameInScrollback(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{clienttest.Response(slowReply(42, 14, 200)...)}})
	v := startVT(t, ws, 80, 24)
	v.waitScreen("fixture-model")
	// the menu and the input drawn before the first reply stay out of the
	// scrollback too
	v.typeText("/")
	v.waitScreen("/help")
	v.typeText("\x15")
	v.waitScreen("ask anything")
	v.typeText("show me the file\r")
	v.waitScreen("code-line-0")
	v.resize(30, 20)
	v.waitScreen("code-line-2")
	v.resize(120, 40)
	v.waitIdle("turn completed")
	if os.Getenv("MISSION_TRANSCRIPT") != "" {
		t.Log(v.dump())
	}
	sb := v.scrollback()
	assertOnce(t, v, v.all(), 42)
	for _, r := range sb {
		if frameRemnant(r) {
			t.Fatalf("a live frame was left in the scrollback (%q):\n%s", r, v.dump())
		}
	}
	assertLive(t, v, "fixture-model")
}

// Ctrl-L redraws: what another program wrote over the app (a background
// job's output) is gone from the screen and the scrollback, and the
// conversation and the live region are drawn again, once.
func TestCtrlLRedraws(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	v := startVT(t, ws, 80, 24)
	v.waitScreen("fixture-model")
	v.typeText("first question\r")
	v.waitIdle("turn completed")
	v.mu.Lock()
	for i := range 30 {
		_, _ = fmt.Fprintf(v.em, "background-job-noise %d\r\n", i)
	}
	v.mu.Unlock()
	v.typeText("\x0c") // Ctrl-L
	v.waitIdle("ask anything")
	all := strings.Join(v.all(), "\n")
	if strings.Contains(all, "background-job-noise") {
		t.Fatalf("Ctrl-L left what another program wrote:\n%s", v.dump())
	}
	if strings.Count(all, "you› first question") != 1 || strings.Count(all, "echo: first question") != 1 || strings.Count(all, "turn completed") != 1 {
		t.Fatalf("the conversation is not drawn again once:\n%s", v.dump())
	}
	assertLive(t, v, "fixture-model")
}

// tmuxTerm is the binary in a tmux pane: a terminal that reflows its lines
// when its width changes and pushes the top of its screen into its
// history when it gets shorter, as most terminals a person uses do (the
// emulator of startVT does neither).
type tmuxTerm struct {
	t    *testing.T
	sock string
}

// startTmux runs the binary with args in a cols x rows tmux pane after 30
// lines of earlier shell output; the test skips where tmux is missing.
func startTmux(t *testing.T, ws *clienttest.Workspace, cols, rows int, args ...string) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	tt := &tmuxTerm{t: t, sock: fmt.Sprintf("mc-%d-%s", os.Getpid(), strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()))}
	argv := []string{"env", "-i"}
	argv = append(argv, ws.Env()...)
	argv = append(append(argv, "TERM=xterm-256color", clienttest.Binary(t)), args...)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	script := "for i in $(seq 1 30); do echo earlier-shell-$i; done; cd '" + ws.Cwd + "' && " + strings.Join(quoted, " ") + "; sleep 600"
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tt.sock, "kill-server").Run() })
	tt.run("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "sh", "-c", script)
	tt.run("set-option", "-g", "history-limit", "5000")
	return tt
}

func (tt *tmuxTerm) run(args ...string) string {
	tt.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tt.sock}, args...)...).CombinedOutput()
	if err != nil {
		tt.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// all is the pane's history, then its screen, as rows (a line wrapped by
// the terminal is several rows), trailing blanks trimmed.
func (tt *tmuxTerm) all() []string {
	tt.t.Helper()
	rows := strings.Split(tt.run("capture-pane", "-p", "-S", "-", "-E", "-"), "\n")
	for i := range rows {
		rows[i] = strings.TrimRight(rows[i], " ")
	}
	for len(rows) > 0 && rows[len(rows)-1] == "" {
		rows = rows[:len(rows)-1]
	}
	return rows
}

// screen is the pane's visible rows.
func (tt *tmuxTerm) screen() []string {
	tt.t.Helper()
	return strings.Split(tt.run("capture-pane", "-p"), "\n")
}

func (tt *tmuxTerm) dump() string { return strings.Join(tt.all(), "\n") }

// waitScreen waits until the pane's screen shows s.
func (tt *tmuxTerm) waitScreen(s string) {
	tt.t.Helper()
	deadline := time.Now().Add(clienttest.HangGuard)
	for !strings.Contains(strings.Join(tt.screen(), "\n"), s) {
		if time.Now().After(deadline) {
			tt.t.Fatalf("the pane never showed %q:\n%s", s, tt.dump())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitIdle waits until the screen shows s and nothing changed for a while.
func (tt *tmuxTerm) waitIdle(s string) {
	tt.t.Helper()
	tt.waitScreen(s)
	deadline := time.Now().Add(clienttest.HangGuard)
	last, same := tt.dump(), 0
	for same < 15 {
		if time.Now().After(deadline) {
			tt.t.Fatalf("the pane never settled:\n%s", tt.dump())
		}
		time.Sleep(30 * time.Millisecond)
		if now := tt.dump(); now == last {
			same++
		} else {
			last, same = now, 0
		}
	}
}

func (tt *tmuxTerm) typeText(s string) { tt.run("send-keys", "-l", s) }
func (tt *tmuxTerm) key(k string)      { tt.run("send-keys", k) }
func (tt *tmuxTerm) resize(cols, rows int) {
	tt.run("resize-window", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows))
}

// onceInOrder checks that rows hold the n numbered code lines of
// tallReply once each, in order, then the closing sentence once.
func onceInOrder(t *testing.T, rows []string, n int, dump string) {
	t.Helper()
	next, closing := 1, 0
	for _, r := range rows {
		for i := 1; i <= n; i++ {
			if strings.Contains(r, fmt.Sprintf("code-line-%02d\"", i)) {
				if i != next {
					t.Fatalf("code-line-%02d where code-line-%02d was due (repeated, lost or out of order):\n%s", i, next, dump)
				}
				next++
			}
		}
		if strings.Contains(r, "closing-sentence") {
			if next != n+1 {
				t.Fatalf("the closing sentence came before code-line-%02d:\n%s", next, dump)
			}
			closing++
		}
	}
	if next != n+1 || closing != 1 {
		t.Fatalf("the reply is not whole once: code lines up to %d of %d, closing sentence %d times:\n%s", next-1, n, closing, dump)
	}
}

// In a terminal that reflows (tmux), resizing several times while a
// tall reply streams (80x24, then 30x20, then 120x40, and other orders)
// leaves every reply line once and no piece of a live frame (input,
// status bar, spinner, a streaming line repeated) above the live region.
func TestResizesInAReflowingTerminal(t *testing.T) {
	for _, seq := range [][][2]int{{{30, 20}, {120, 40}}, {{120, 40}, {30, 20}}, {{80, 10}, {30, 20}}} {
		t.Run(fmt.Sprint(seq), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{clienttest.Response(slowReply(42, 14, 200)...)}})
			tt := startTmux(t, ws, 80, 24)
			tt.waitScreen("fixture-model")
			tt.typeText("/")
			tt.waitScreen("/help")
			tt.key("C-u")
			tt.waitScreen("ask anything")
			tt.typeText("show me the file")
			tt.key("Enter")
			tt.waitScreen("code-line-0")
			tt.resize(seq[0][0], seq[0][1])
			tt.waitScreen("code-line-2")
			tt.resize(seq[1][0], seq[1][1])
			tt.waitIdle("turn completed")
			all := tt.all()
			if os.Getenv("MISSION_TRANSCRIPT") != "" {
				t.Log(strings.Join(all, "\n"))
			}
			onceInOrder(t, all, 42, tt.dump())
			// The live region is the last rows: input and status bar.
			last := len(all) - 1
			if !strings.Contains(all[last], "fixture-model") {
				t.Fatalf("the status bar is not the last row:\n%s", tt.dump())
			}
			heads := 0
			for _, r := range all[:last-1] {
				if frameRemnant(r) {
					t.Fatalf("a live frame was left above the live region (%q):\n%s", r, tt.dump())
				}
				if strings.Contains(r, "Here is the file:") {
					heads++
				}
			}
			if heads != 1 {
				t.Fatalf("the reply's first line shows %d times; want once:\n%s", heads, tt.dump())
			}
		})
	}
}

// The status bar keeps the readiness and the model on a narrow screen,
// dropping the directory, the session and the provider first; at 80
// columns it shows them all.
func TestStatusBarKeepsReadinessWhenNarrow(t *testing.T) {
	for _, c := range []struct {
		cols int
		want []string
	}{{30, []string{"fixture-model · ready"}}, {80, []string{"fixture · fixture-model · ready · session ", " · work"}}} {
		t.Run(fmt.Sprint(c.cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
			v := startVT(t, ws, c.cols, 24)
			v.waitIdle("fixture-model")
			bar := lastRow(v.screen())
			for _, w := range c.want {
				if !strings.Contains(bar, w) {
					t.Fatalf("the status bar %q lacks %q:\n%s", bar, w, v.dump())
				}
			}
		})
	}
}

// Continuation rows keep a hanging indent at 30 columns: a list item's
// under its first word, a numbered item's under its text, a quote's
// behind its bar, a code line's at its indentation, and /help's rows at
// theirs; live and in the scrollback.
func TestHangingIndents(t *testing.T) {
	reply := "Intro.\n- bullet-start item that goes on well past thirty columns\n" +
		"12. numbered-start item that goes on well past thirty columns\n" +
		"> quote-start that goes on well past thirty columns here\n" +
		"```\ncode-start line that goes on well past thirty columns\n```\nThe end."
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{clienttest.Response(clienttest.Text(reply))}})
	v := startVT(t, ws, 30, 24)
	v.waitScreen("fixture-model")
	v.typeText("format it\r")
	v.waitIdle("turn completed")
	v.typeText("/help\r")
	v.waitIdle("Ctrl-O")
	all := v.all()
	check := func(start, cont, stop string) {
		t.Helper()
		i := slicesIndexContains(all, start)
		if i < 0 {
			t.Fatalf("no row holds %q:\n%s", start, v.dump())
		}
		n := 0
		for _, r := range all[i+1:] {
			if r == "" || strings.Contains(r, stop) {
				break
			}
			if !strings.HasPrefix(r, cont) || strings.TrimSpace(strings.TrimPrefix(r, cont)) == "" {
				t.Fatalf("the continuation row %q of %q does not hang at %q:\n%s", r, start, cont, v.dump())
			}
			n++
		}
		if n == 0 {
			t.Fatalf("%q did not wrap:\n%s", start, v.dump())
		}
	}
	check("• bullet-start", "  ", "12.")
	check("12. numbered-start", "    ", "quote-start")
	check("│ quote-start", "│ ", "──")
	check("  code-start", "  ", "──")
	check("  /login", "  ", "/logout")
}

// slicesIndexContains is the index of the first row holding s, or -1.
func slicesIndexContains(rows []string, s string) int {
	for i, r := range rows {
		if strings.Contains(r, s) {
			return i
		}
	}
	return -1
}

// Emoji sequences take the columns the terminal draws them in (one
// grapheme cluster each: a heart with its variation selector, a thumb
// with its skin tone, a ZWJ family): a draft of them wraps at 30 columns
// with nothing cut at the edge or lost, the cursor after its end, and
// each reaches the reply whole.
func TestEmojiWidthsInTheInput(t *testing.T) {
	draft := strings.Repeat("❤️", 20) + " mid-marker " + strings.Repeat("👍🏽", 8) + " " + strings.Repeat("👨‍👩‍👧", 6) + " end-marker"
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	v := startVT(t, ws, 30, 24)
	v.waitScreen("fixture-model")
	v.typeText(draft)
	// The input wraps anywhere, a word too: read its rows joined.
	joined := func() string { return strings.Join(strings.Fields(strings.Join(v.screen(), " ")), "") }
	deadline := time.Now().Add(clienttest.HangGuard)
	for !strings.Contains(joined(), "end-marker") {
		if time.Now().After(deadline) {
			t.Fatalf("the input never showed the draft's end:\n%s", v.dump())
		}
		time.Sleep(20 * time.Millisecond)
	}
	v.waitIdle("fixture-model")
	screen := joined()
	for _, c := range []struct {
		s string
		n int
	}{{"❤️", 20}, {"👍🏽", 8}, {"👨‍👩‍👧", 6}, {"mid-marker", 1}, {"end-marker", 1}} {
		if got := strings.Count(screen, c.s); got != c.n {
			t.Fatalf("the input shows %q %d times; want %d:\n%s", c.s, got, c.n, v.dump())
		}
	}
	v.typeText("\r")
	v.waitIdle("turn completed")
	if !strings.Contains(strings.Join(strings.Fields(strings.Join(v.all(), " ")), ""), strings.Join(strings.Fields(draft), "")) {
		t.Fatalf("the prompt was not sent whole:\n%s", v.dump())
	}
}

// In a terminal that does not say it draws grapheme clusters (tmux 3.3
// draws a ZWJ family code point by code point), the input measures as it
// draws: a draft of families and skin tones wraps at 30 columns with
// every one of them and its end on the screen.
func TestEmojiWidthsInACodePointTerminal(t *testing.T) {
	draft := strings.Repeat("👍🏽", 6) + " mid-marker " + strings.Repeat("👨‍👩‍👧", 6) + " end-marker"
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	tt := startTmux(t, ws, 30, 24)
	tt.waitScreen("fixture-model")
	tt.typeText(draft)
	joined := func() string { return strings.Join(strings.Fields(strings.Join(tt.screen(), " ")), "") }
	deadline := time.Now().Add(clienttest.HangGuard)
	for !strings.Contains(joined(), "end-marker") {
		if time.Now().After(deadline) {
			t.Fatalf("the input never showed the draft's end:\n%s", tt.dump())
		}
		time.Sleep(20 * time.Millisecond)
	}
	tt.waitIdle("fixture-model")
	screen := joined()
	for _, c := range []struct {
		s string
		n int
	}{{"👍🏽", 6}, {"👨‍👩‍👧", 6}, {"mid-marker", 1}, {"end-marker", 1}} {
		if got := strings.Count(screen, c.s); got != c.n {
			t.Fatalf("the input shows %q %d times; want %d:\n%s", c.s, got, c.n, tt.dump())
		}
	}
}
