//go:build unix

package mission

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/magi-code/magi-code/client/clienttest"
)

// forgeries are control sequences a model may write, each followed by a
// token of its own: the raw output must never hold one of them, escape
// and token together, whatever wraps or styles the text around it.
var forgeries = []string{
	"\x1b]0;FORGED-TITLE\a",      // OSC: the window title
	"\x1b]0;FORGED-ST\x1b\\",     // OSC ended by ST
	"\x1b[2JCLEARED1",            // CSI: erase the screen
	"\x1b[?1049hALTSCREEN2",      // CSI: the alternate screen
	"\x1b[31mRED3",               // SGR
	"\x1b[3AUP4",                 // cursor up
	"\x1bPqDCS5\x1b\\",           // DCS
	"\u009b2JC1CSI6",             // C1 CSI as a character
	"\x9b2JRAWCSI7",              // C1 CSI as a raw byte
	"\x1b]8;;http://evil\aLINK8", // OSC 8 hyperlink
}

// forgedText is a reply made of every forgery, between words.
func forgedText() string {
	var b strings.Builder
	b.WriteString("start-of-reply ")
	for _, f := range forgeries {
		b.WriteString(f + " word ")
	}
	b.WriteString("\x07bell\x08back\x7fdel\rcr\u202eRTL end-of-reply")
	return b.String()
}

// assertNoForgery checks the raw bytes the app wrote: none of the
// forgeries went out as control sequences, no title was set, the
// terminal is not left in the alternate screen.
func assertNoForgery(t *testing.T, v *vterm) {
	t.Helper()
	v.mu.Lock()
	raw := append([]byte(nil), v.raw...)
	titles := append([]string(nil), v.titles...)
	alt := v.em.IsAltScreen()
	v.mu.Unlock()
	for _, f := range forgeries {
		if bytes.Contains(raw, []byte(f)) {
			t.Errorf("the app wrote the model's %q to the terminal as it is", f)
		}
	}
	for i := 0; i < len(raw); {
		r, size := utf8.DecodeRune(raw[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r <= 0x9f) {
			t.Errorf("the raw output holds %q (a C1 control or a byte that is not UTF-8) at %d", raw[i:i+size], i)
			break
		}
		i += size
	}
	for _, seq := range []string{"\x1b]0;", "\x1b[?1049h", "\x1bP", "\x07bell", "\x08back", "\x7fdel", "\rcr", "\u202e"} {
		if bytes.Contains(raw, []byte(seq)) {
			t.Errorf("the raw output holds %q", seq)
		}
	}
	if len(titles) > 0 {
		t.Errorf("the window title was set: %q", titles)
	}
	if alt {
		t.Errorf("the terminal is in the alternate screen")
	}
	if t.Failed() {
		t.Fatalf("the model's bytes drove the terminal:\n%s", v.dump())
	}
}

// A reply, a shell command awaiting approval and the activity line of
// that command, each full of control sequences, are shown with the
// controls made visible, live and once resumed; the raw bytes written to
// the terminal hold none of them; the approval shows the hidden part of
// the command; after /quit the terminal is not in the alternate screen
// and the scrollback holds the whole reply. At 80x24 and at 30 columns,
// resized during the approval.
func TestModelTextNeverDrivesTheTerminal(t *testing.T) {
	command := "ls\x1b]0; touch ~/x #\a"
	for _, size := range []struct{ cols, rows, toCols, toRows int }{{80, 24, 30, 24}, {30, 24, 80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Text(forgedText()), clienttest.Shell(command)),
				clienttest.Response(clienttest.Text("second\x1b[2Jreply-done")),
			}})
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("fixture-model")
			v.typeText("go\r")
			v.waitIdle("approve?")
			flat := strings.Join(strings.Fields(strings.Join(v.screen(), "")), "")
			if !strings.Contains(flat, "touch~/x") {
				t.Fatalf("the approval hides the command's touch:\n%s", v.dump())
			}
			// Before the resize: the emulator cuts lines, where a terminal
			// would reflow them.
			all := strings.Join(strings.Fields(strings.Join(v.all(), "")), "")
			for _, want := range []string{"start-of-reply", "␛]0;FORGED-TITLE␇", "␛[2JCLEARED1", "␛[?1049hALTSCREEN2", "␇bell␈back␡del␍cr<U+202E>RTL", "end-of-reply"} {
				if !strings.Contains(all, want) {
					t.Fatalf("the terminal does not show %q:\n%s", want, v.dump())
				}
			}
			v.resize(size.toCols, size.toRows)
			v.waitIdle("approve?")
			v.answer("n")
			v.waitIdle("turn completed")
			v.quit()
			assertNoForgery(t, v)
			if all := strings.Join(strings.Fields(strings.Join(v.all(), "")), ""); !strings.Contains(all, "second␛[2Jreply-done") {
				t.Fatalf("the terminal does not show the second reply:\n%s", v.dump())
			}

			r := startVT(t, ws, size.cols, size.rows, "--continue")
			r.waitIdle("reply-done")
			r.quit()
			assertNoForgery(t, r)
			if all := strings.Join(strings.Fields(strings.Join(r.all(), "")), ""); !strings.Contains(all, "␛]0;FORGED-TITLE␇") || !strings.Contains(all, "end-of-reply") {
				t.Fatalf("the resumed session does not show the reply with its controls visible:\n%s", r.dump())
			}
		})
	}
}

// A session whose first prompt holds control sequences is listed by the
// resume picker with them visible.
func TestPickerShowsControlsVisibly(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	first := startVT(t, ws, 80, 24, "--prompt", "hello\x1b]0;FORGED-TITLE\a\x1b[2JCLEARED1 there")
	first.waitScreen("turn completed")
	if code := first.exitCode(); code != 0 {
		t.Fatalf("first turn: exit %d:\n%s", code, first.dump())
	}
	<-first.done
	assertNoForgery(t, first)
	files, _ := filepath.Glob(filepath.Join(ws.Home, "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	if _, err := os.Stat(files[0]); err != nil {
		t.Fatal(err)
	}
	v := startVT(t, ws, 80, 24, "resume")
	v.waitScreen("resume which session?")
	v.waitScreen("CLEARED1")
	v.typeText("\r")
	v.waitIdle("there")
	v.quit()
	assertNoForgery(t, v)
}

// The next prompt typed during a turn, on and on across the approval's
// arrival, y among its keys, answers nothing: the command does not run,
// the approval stays and says where the keys went, and they are in the
// draft; after a pause, n denies. At 80x24 and 30x24, resized during the
// typing.
func TestTypingBurstNeverAnswersTheApproval(t *testing.T) {
	for _, size := range []struct{ cols, rows, toCols, toRows int }{{80, 24, 30, 24}, {30, 24, 80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Text("let me look"), clienttest.SleepMs(300), clienttest.Shell("touch approved-marker")),
				clienttest.Response(clienttest.Text("final-answer")),
			}})
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("fixture-model")
			v.typeText("go\r")
			v.waitScreen("let me look")
			// A typist at 60 ms a key: before the approval, and 40 keys on.
			typed, after := 0, 0
			for after < 40 {
				v.typeText("y")
				typed++
				if after > 0 || strings.Contains(strings.Join(v.screen(), "\n"), "approve?") {
					after++
				}
				if after == 20 {
					v.resize(size.toCols, size.toRows)
				}
				time.Sleep(60 * time.Millisecond) // the typist's pace, not a wait for the app
			}
			v.waitIdle("fixture")
			if clienttest.FileExists(filepath.Join(ws.Cwd, "approved-marker")) || !strings.Contains(strings.Join(v.screen(), "\n"), "approve?") {
				t.Fatalf("a key of the burst answered the approval:\n%s", v.dump())
			}
			v.waitIdle("typing goes to")
			v.answer("n") // after a pause
			v.waitIdle("turn completed")
			if clienttest.FileExists(filepath.Join(ws.Cwd, "approved-marker")) {
				t.Fatalf("the command ran:\n%s", v.dump())
			}
			if !strings.Contains(v.flat(), "denied by user") {
				t.Fatalf("the denial is not shown:\n%s", v.dump())
			}
			if !strings.Contains(strings.Join(v.screen(), "\n"), "› yyyy") {
				t.Fatalf("the typed keys are not in the draft:\n%s", v.dump())
			}
		})
	}
}

// typingPause is a pause in typing long enough for Mission Control
// (client/mission: typingPause, 700 ms) and a margin.
const typingPause = 900 * time.Millisecond

// A paste too big to send (26 KB, 64 KB) stays in the input, which says
// how big it is and what can be sent; Enter refuses it in words and the
// backend lives on: a shorter prompt then completes. At 80x24 and 30x24.
func TestLargePasteStaysAndNeverStopsTheBackend(t *testing.T) {
	for _, c := range []struct {
		cols, size int
	}{{80, 26 << 10}, {30, 26 << 10}, {80, 64 << 10}, {30, 70 << 10}} {
		t.Run(fmt.Sprintf("%d cols %d KiB", c.cols, c.size>>10), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
			v := startVT(t, ws, c.cols, 24)
			v.waitScreen("fixture-model")
			v.em.Paste(strings.Repeat("pasted text ", c.size/12))
			v.waitWords("pasted text pasted text")
			v.waitWords("draft too big to send")
			v.typeText("\r")
			v.waitWords("not sent: the prompt is")
			v.waitWords("your text stays in the input")
			v.waitIdle("pasted text")
			if s := strings.Join(v.screen(), "\n"); !strings.Contains(s, "pasted text") {
				t.Fatalf("the draft was lost:\n%s", v.dump())
			}
			v.typeText("\x03") // clears the draft
			v.waitIdle("ask anything")
			v.typeText("short one\r")
			v.waitIdle("turn completed")
			v.quit()
		})
	}
}

// A command with a long run of spaces is shown whole before the answer,
// the run collapsed visibly and the size said; one the backend cut at
// its bound (past even the whole request's 16,000 bytes) says so, and y
// does not run it. At 80x24 and 30x24, resized.
func TestLongCommandsInApprovals(t *testing.T) {
	for _, size := range []struct{ cols, rows, toCols, toRows int }{{80, 24, 30, 24}, {30, 24, 80, 12}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Shell("echo harmless" + strings.Repeat(" ", 300) + "; touch shown-marker")),
				clienttest.Response(clienttest.Shell("echo harmless" + strings.Repeat(" ", 17000) + "; touch cut-marker")),
				clienttest.Response(clienttest.Text("final-answer")),
			}})
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("fixture-model")
			v.typeText("go\r")
			v.waitIdle("approve?")
			if f := v.flat(); !strings.Contains(f, "␠×300 ; touch shown-marker") || !strings.Contains(f, "bytes)") {
				t.Fatalf("the command is not shown whole with its size:\n%s", v.dump())
			}
			v.resize(size.toCols, size.toRows)
			v.waitIdle("approve?")
			v.answer("n")
			v.waitWords("the backend cut this request")
			v.answer("y")
			v.waitIdle("approve?")
			if clienttest.FileExists(filepath.Join(ws.Cwd, "cut-marker")) {
				t.Fatalf("y ran a command the approval did not show whole:\n%s", v.dump())
			}
			v.answer("n")
			v.waitIdle("turn completed")
			if clienttest.FileExists(filepath.Join(ws.Cwd, "cut-marker")) || clienttest.FileExists(filepath.Join(ws.Cwd, "shown-marker")) {
				t.Fatalf("a denied command ran:\n%s", v.dump())
			}
		})
	}
}

// quit leaves with /quit, checks the exit code is 0, and waits until the
// terminal has every byte the app wrote.
func (v *vterm) quit() {
	v.t.Helper()
	v.typeText("/quit\r")
	if code := v.exitCode(); code != 0 {
		v.t.Fatalf("exit %d after /quit:\n%s", code, v.dump())
	}
	<-v.done
}
