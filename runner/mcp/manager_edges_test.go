package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/magi-code/magi-code/internal/logtest"
)

// A server that dies in the middle of a call fails the call with
// ErrServerExited (not the client's "transport error: ..."), and the log
// says it exited.
func TestCallToServerThatDies(t *testing.T) {
	checkLeaks(t)
	def, _ := testDef(t, "good", "good")
	var logs logtest.Lines
	m, err := Start(context.Background(), []ServerDef{def}, logs.Logf)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	_, _, err = m.Call(t.Context(), "mcp__good__die", json.RawMessage(`{}`), 100)
	if err != ErrServerExited { // the server's failure, not the client's wrapping of it
		t.Errorf("Call(die) err = %v; want ErrServerExited itself", err)
	}
	closeManager(t, m)
	if !strings.Contains(logs.String(), `server "good" exited: exit status 5`) {
		t.Errorf("log = %q; want the server's exit", logs.String())
	}
}

// A failed start logs the server's exit, and the cleanup of the other
// servers (which ends in time) is not reported as a kill.
func TestStartFailureLogs(t *testing.T) {
	checkLeaks(t)
	good, _ := testDef(t, "good", "good")
	bad, _ := testDef(t, "bad", "exit")
	var logs logtest.Lines
	if m, err := Start(context.Background(), []ServerDef{good, bad}, logs.Logf); m != nil || err == nil {
		t.Fatalf("Start = %v, %v; want failure", m, err)
	}
	all := logs.String()
	if !strings.Contains(all, `server "bad" exited: exit status 3`) || !strings.Contains(all, "startup failed, cleaning 2 servers") {
		t.Errorf("log = %q; want the bad server's exit and the cleanup", all)
	}
	if strings.Contains(all, "servers killed after") {
		t.Errorf("log = %q; a cleanup that ended in time reported as a kill", all)
	}
}

// A server whose command cannot start leaves no pipe open behind it.
func TestStartFailureClosesPipes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	count := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	def := ServerDef{Name: "missing", Command: filepath.Join(t.TempDir(), "missing")}
	before := count()
	for range 5 {
		if m, err := Start(context.Background(), []ServerDef{def}, nil); m != nil || err == nil {
			t.Fatalf("Start = %v, %v; want failure", m, err)
		}
	}
	if after := count(); after > before {
		t.Errorf("%d descriptors open before five failed starts, %d after; want no more", before, after)
	}
}

// logStderr logs nothing for an empty tail, each line otherwise, at most
// stderrLogLines of them (saying how many earlier ones were left out), and
// cuts a line only past stderrLogLineBytes.
func TestLogStderr(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	exact := strings.Repeat("x", stderrLogLineBytes)
	for _, tc := range []struct {
		name, tail string
		want       []string // the end of each logged line, in order ("": any)
	}{
		{"empty", "", nil},
		{"newline only", "\n", nil},
		{"one line", "boom\n", []string{"stderr: boom"}},
		{"exactly the lines", lines(stderrLogLines), append([]string{"stderr: line 0"}, make([]string, stderrLogLines-1)...)},
		{"one line more", lines(stderrLogLines + 1), append([]string{"1 earlier lines not logged", "stderr: line 1"}, make([]string, stderrLogLines-1)...)},
		{"a line of exactly the bound", exact, []string{"stderr: " + exact}},
		{"a line past the bound", exact + "yz", []string{"stderr: " + exact + "…[cut]"}},
	} {
		var logs logtest.Lines
		logStderr(logs.Logf, "s", []byte(tc.tail))
		if len(logs.All()) != len(tc.want) {
			t.Errorf("%s: %d lines logged; want %d: %q", tc.name, len(logs.All()), len(tc.want), logs.All())
			continue
		}
		for i, w := range tc.want {
			if !strings.HasSuffix(logs.All()[i], w) {
				t.Errorf("%s: line %d = %q; want it to end in %q", tc.name, i, logs.All()[i], w)
			}
		}
	}
}

// bound keeps text within max bytes, at a rune boundary, with a note when
// the note fits; when the bound is exactly the note's length the text alone
// is cut; text of invalid UTF-8 never panics.
func TestBoundEdges(t *testing.T) {
	text := strings.Repeat("a", 100)
	note := fmt.Sprintf("\n[truncated: %d of %d bytes shown]", len(text), len(text))
	if got := bound(text, len(note)); got != text[:len(note)] {
		t.Errorf("bound(100 bytes, %d) = %q; want the text alone cut to the bound", len(note), got)
	}
	if got := bound(text, len(note)+10); got != text[:10]+"\n[truncated: 10 of 100 bytes shown]" {
		t.Errorf("bound(100 bytes, %d) = %q", len(note)+10, got)
	}
	bad := strings.Repeat("\x80", 100)
	for _, max := range []int{1, 5, len(note), len(note) + 3} {
		got := bound(bad, max)
		if len(got) > max {
			t.Errorf("bound(continuation bytes, %d) = %d bytes", max, len(got))
		}
	}
	if got := bound("é"+text, 1); got != "" || !utf8.ValidString(got) {
		t.Errorf("bound(é..., 1) = %q; want nothing rather than half a rune", got)
	}
}

// A tool's full name of exactly MaxToolNameBytes stays as it is; a longer
// one is cut and hashed. A unique name that fits exactly with its suffix
// is not cut.
func TestToolNamesAtTheBound(t *testing.T) {
	server := "s"
	tool := strings.Repeat("t", MaxToolNameBytes-len(toolPrefix+server+nameSep))
	if got := fullToolName(server, tool); got != toolPrefix+server+nameSep+tool || len(got) != MaxToolNameBytes {
		t.Errorf("fullToolName of exactly %d bytes = %q; want it unchanged", MaxToolNameBytes, got)
	}
	if got := fullToolName(server, tool+"u"); len(got) != MaxToolNameBytes || strings.HasSuffix(got, "u") {
		t.Errorf("fullToolName of %d bytes = %q; want it cut and hashed", MaxToolNameBytes+1, got)
	}
	name := strings.Repeat("n", MaxToolNameBytes-3) + "_" // with "_2" exactly the bound
	taken := map[string]bool{name: true}
	if got := uniqueName(name, taken); got != name+"_2" {
		t.Errorf("uniqueName(%q) = %q; want %q (it fits)", name, got, name+"_2")
	}
	long := strings.Repeat("n", MaxToolNameBytes)
	taken = map[string]bool{long: true}
	if got := uniqueName(long, taken); len(got) > MaxToolNameBytes || !strings.HasSuffix(got, "_2") {
		t.Errorf("uniqueName(%d bytes) = %q; want it cut to end in _2", len(long), got)
	}
}
