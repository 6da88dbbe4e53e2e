package session

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/client/human"
)

// cliRun runs `magi-code ARGS...` in ws (cwd, MC_HOME) and returns its
// exit code, stdout and stderr.
func cliRun(t *testing.T, ws *clienttest.Workspace, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(clienttest.Binary(t), args...)
	cmd.Dir, cmd.Env = ws.Cwd, ws.Env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// storedSession runs one turn in a new session of ch and returns its ID.
func storedSession(t *testing.T, ch *child) string {
	t.Helper()
	id := ch.Create().SessionID
	if r := ch.Turn(id, "remember this"); r.Finished.Persistence != "durable" {
		t.Fatalf("run.finished %s", r.Terminal())
	}
	return id
}

// age sets a session's last activity (its file's mtime) to d ago.
func age(t *testing.T, ws *clienttest.Workspace, id string, d time.Duration) {
	t.Helper()
	at := time.Now().Add(-d)
	if err := os.Chtimes(clienttest.SessionFile(ws.Home, id), at, at); err != nil {
		t.Fatal(err)
	}
}

// TestSessionsCLI: `magi-code sessions list` shows every stored session
// (id, last activity, size, workspace, first prompt); `magi-code sessions prune` deletes
// the sessions idle for session_retention_days (30 by default), prints
// what it removed, and never deletes a session another child has attached
// (its lease is held), nor a recent one. serve never prunes:
// `session.open` of an old session still works in a child.
func TestSessionsCLI(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, "")
	day := 24 * time.Hour

	ch := start(t, ws, client.Options{})
	old, attached, recent := storedSession(t, ch), storedSession(t, ch), storedSession(t, ch)
	ch.Shutdown()
	age(t, ws, old, 31*day)
	age(t, ws, attached, 60*day)
	age(t, ws, recent, 29*day)

	// serve never prunes: a child opens the old session.
	ch = start(t, ws, client.Options{})
	if o := ch.Open(old); !o.Durable {
		t.Fatalf("open of an old session in serve: %+v", o)
	}
	ch.Shutdown()
	age(t, ws, old, 31*day)

	code, out, errOut := cliRun(t, ws, "sessions", "list")
	if code != 0 || errOut != "" {
		t.Fatalf("sessions list: exit %d, stderr %q", code, errOut)
	}
	cwd, _ := filepath.EvalSymlinks(ws.Cwd)
	for _, id := range []string{old, attached, recent} {
		fi, err := os.Stat(clienttest.SessionFile(ws.Home, id))
		if err != nil {
			t.Fatal(err)
		}
		// The listing for people (client/human): local time to the
		// minute, size in B/KiB/MiB, workspace, first prompt.
		want := "(?m)^" + id + "  +" + regexp.QuoteMeta(fi.ModTime().Local().Format("2006-01-02 15:04")) + "  +" +
			regexp.QuoteMeta(human.Size(fi.Size())) + "  +" + regexp.QuoteMeta(cwd) + "  +remember this$"
		if !regexp.MustCompile(want).MatchString(out) {
			t.Fatalf("sessions list:\n%s\nlacks a line matching %q", out, want)
		}
	}

	// Another child has the old "attached" session attached, idle.
	holder := start(t, ws, client.Options{})
	holder.Open(attached)
	age(t, ws, attached, 60*day)

	code, out, errOut = cliRun(t, ws, "sessions", "prune")
	if code != 0 || errOut != "" {
		t.Fatalf("sessions prune: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !strings.Contains(out, "removed "+old+"  ") || strings.Contains(out, attached) || strings.Contains(out, recent) ||
		!strings.Contains(out, "removed 1 session idle for 30 days or more") {
		t.Fatalf("sessions prune printed:\n%s\nwant only %s removed", out, old)
	}
	if clienttest.FileExists(clienttest.SessionFile(ws.Home, old)) {
		t.Fatal("the old session is still there")
	}
	for _, id := range []string{attached, recent} {
		if !clienttest.FileExists(clienttest.SessionFile(ws.Home, id)) {
			t.Fatalf("session %s was deleted", id)
		}
	}
	// The holder still works on its session; the pruned one is missing.
	holder.Turn(attached, "still here").WantOutcome(t, "completed", "")
	holder.WantError("session.open", map[string]string{"session_id": old}, "session_missing")
	holder.Shutdown()
}

// TestSessionsPruneSettings: session_retention_days = 0 disables pruning;
// a smaller value prunes earlier; a project file may not set it.
func TestSessionsPruneSettings(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	for _, tc := range []struct {
		name, extra string
		kept        bool
	}{
		{"0 disables", "session_retention_days = 0\n", true},
		{"7 days", "session_retention_days = 7\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings+tc.extra)
			ch := start(t, ws, client.Options{})
			id := storedSession(t, ch)
			ch.Shutdown()
			age(t, ws, id, 400*day)
			code, out, errOut := cliRun(t, ws, "sessions", "prune")
			if code != 0 || errOut != "" {
				t.Fatalf("sessions prune: exit %d, stderr %q", code, errOut)
			}
			if kept := clienttest.FileExists(clienttest.SessionFile(ws.Home, id)); kept != tc.kept {
				t.Fatalf("kept %v; want %v (output %q)", kept, tc.kept, out)
			}
		})
	}
	t.Run("project file", func(t *testing.T) {
		t.Parallel()
		ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
		ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"), "session_retention_days = 1\n")
		if code, _, _ := cliRun(t, ws, "sessions", "prune"); code != 1 {
			t.Fatalf("sessions prune with a project retention: exit %d; want 1", code)
		}
	})
}
