package session

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestLazySession checks session.create: no file and not durable until the
// first input append, same-child reopen before persistence, an empty
// history, and a child that dies before persistence leaves nothing to open.
func TestLazySession(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, "")
	ch := start(t, ws, client.Options{})
	ch.WantError("turn.start", map[string]string{"session_id": "none-yet", "prompt": "hi"}, protocol.CodeSessionMissing)
	s := ch.Create()
	ch.WantError("turn.start", map[string]string{"session_id": "another", "prompt": "hi"}, protocol.CodeStaleSession)
	ch.WantError("turn.start", map[string]string{"session_id": s.SessionID, "prompt": " \t\n\u3000"}, protocol.CodeInvalidParams)
	ch.WantError("turn.start", map[string]string{"session_id": s.SessionID, "prompt": strings.Repeat("p", protocol.MaxPromptBytes+1)}, protocol.CodeInvalidParams)
	if s.Durable || s.SessionID == "" || s.Revision == "" || len(s.Notices) != 0 {
		t.Fatalf("session.create = %+v", s)
	}
	if clienttest.FileExists(clienttest.SessionFile(ws.Home, s.SessionID)) {
		t.Fatal("session.create wrote a file")
	}
	o := ch.Open(s.SessionID)
	if o.Durable || o.SessionID != s.SessionID {
		t.Fatalf("same-child session.open before persistence = %+v", o)
	}
	entries, complete, pages := ch.History(s.SessionID, o.Revision)
	if len(entries) != 0 || !complete || pages != 1 {
		t.Fatalf("history of a new session: %d entries, complete %v, %d pages", len(entries), complete, pages)
	}
	if st := ch.Status(); st.State != "idle" || st.SessionID == nil || *st.SessionID != s.SessionID {
		t.Fatalf("status: %+v", st)
	}
	ch.C.Kill()
	ch.C.Wait()
	ch2 := start(t, ws, client.Options{})
	ch2.WantError("session.open", map[string]string{"session_id": s.SessionID}, protocol.CodeSessionMissing)
	ch2.WantError("session.open", map[string]string{"session_id": "bad/id"}, protocol.CodeInvalidParams)

	// An empty existing file is a durable session with an empty history.
	empty := "empty-session"
	ws.WriteFile(t, clienttest.SessionFile(ws.Home, empty), "")
	e := ch2.Open(empty)
	if !e.Durable {
		t.Fatalf("session.open of an empty file = %+v", e)
	}
	t.Logf("notices of an empty session file: %v", e.Notices)
	entries, complete, _ = ch2.History(empty, e.Revision)
	if len(entries) != 0 || !complete {
		t.Fatalf("history of an empty file: %d entries, complete %v", len(entries), complete)
	}
}

// childPid finds the pid of the magi-code child of this test process
// running in cwd, from /proc.
func childPid(t *testing.T, cwd string) int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	me := strconv.Itoa(os.Getpid())
	for _, d := range dirs {
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 2 || fields[1] != me {
			continue
		}
		if wd, err := os.Readlink(filepath.Join(d, "cwd")); err == nil && wd == cwd {
			pid, _ := strconv.Atoi(filepath.Base(d))
			return pid
		}
	}
	t.Fatal("child process not found")
	return 0
}

// exited reports whether pid has exited and awaits reaping (a zombie).
func exited(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// TestStalledReaderExits floods a reader that stops reading: the child's
// output deadline expires and it exits 1, with nothing on stderr.
func TestStalledReaderExits(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, "", response(repeat(strings.Repeat("s", 99)+"\n", 50_000)))
	cwd, err := filepath.EvalSymlinks(ws.Cwd)
	if err != nil {
		t.Fatal(err)
	}
	ch := start(t, ws, client.Options{EventBuffer: 1})
	s := ch.Create()
	ch.StartTurn(s.SessionID, "stall")
	pid := childPid(t, cwd)
	// Nobody receives events: the client's reader blocks, the pipe fills.
	clienttest.WaitFor(t, "the stalled child to exit", func() bool { return exited(pid) })
	ch.C.Kill() // unblocks the client's reader; the child is already dead
	code, stderr, _ := ch.C.Wait()
	if code != 1 || len(stderr) != 0 {
		t.Fatalf("stalled child: exit %d, stderr %q; want exit 1, no stderr", code, stderr)
	}
}
