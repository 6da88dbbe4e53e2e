package transport

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// childLog reads the one diagnostic log of the workspace: its lines, parsed.
func childLog(t *testing.T, ws *clienttest.Workspace) []map[string]any {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(ws.Home, "logs", "serve-*.log"))
	if err != nil || len(matches) != 1 {
		t.Fatalf("log files %v, %v; want one", matches, err)
	}
	raw, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	for l := range strings.SplitSeq(strings.TrimSuffix(string(raw), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}

// wantExitLine checks that the log's last line is the exit line naming cause.
func wantExitLine(t *testing.T, ws *clienttest.Workspace, cause string) {
	t.Helper()
	lines := childLog(t, ws)
	last := lines[len(lines)-1]
	if last["msg"] != "exit" || last["cause"] != cause {
		t.Fatalf("last log line %v; want the exit line with cause %q", last, cause)
	}
}

// TestLogNamesOutputDeadline: a turn floods deltas to a reader that never
// reads; the child exits 1 and its log's last line names the deadline.
func TestLogNamesOutputDeadline(t *testing.T) {
	ws := clienttest.NewWorkspace(t, "")
	script := filepath.Join(ws.Home, "script.json")
	ws.WriteFile(t, script, `{"responses":[{"steps":[{"text":"abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi ","repeat":1000000}]}]}`)
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"),
		clienttest.FixtureSettings+"\n[providers.fixture]\nscript = "+clienttest.Quote(script)+"\n")
	ch := startRaw(t, ws)
	ch.call(t, "init", "initialize", initParams)
	res := ch.call(t, "create", "session.create", "{}")
	var created struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(res["result"], &created); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(ch.stdin, reqLine("turn", "turn.start", `{"session_id":`+clienttest.Quote(created.SessionID)+`,"prompt":"go"}`)); err != nil {
		t.Fatal(err)
	}
	if code := ch.exit(t); code != 1 {
		t.Fatalf("exit code %d; want 1", code)
	}
	wantExitLine(t, ws, "output_deadline")
}

// TestLogNamesOverflow: pipelined requests to a reader that never reads
// overflow the pending output; the log's last line names the overflow.
func TestLogNamesOverflow(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	ch := startRaw(t, ws)
	ch.call(t, "init", "initialize", initParams)
	wait := ch.flood(20000)
	if code := ch.exit(t); code != 1 {
		t.Fatalf("exit code %d; want 1", code)
	}
	_ = ch.stdin.Close()
	wait()
	wantExitLine(t, ws, "overflow")
}

// TestLogKeepsMCPStderrRedacted: an MCP server that writes a message to
// stderr and exits makes initialize answer mcp_unavailable; the message is
// in the log, and the secret in it is not.
func TestLogKeepsMCPStderrRedacted(t *testing.T) {
	const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings+
		"[mcp_servers.broken]\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"echo 'missing token: GITHUB_TOKEN="+secret+"' >&2; exit 3\"]\n")
	ch := startRaw(t, ws)
	if _, err := io.WriteString(ch.stdin, reqLine("init", "initialize", initParams)); err != nil {
		t.Fatal(err)
	}
	line, err := ch.lines.ReadBytes('\n')
	if err != nil || !strings.Contains(string(line), `"code":"mcp_unavailable"`) {
		t.Fatalf("initialize answered %q, %v; want mcp_unavailable", line, err)
	}
	_ = ch.stdin.Close()
	if code := ch.exit(t); code != 0 {
		t.Fatalf("exit code %d; want 0", code)
	}
	raw, err := os.ReadFile(filepath.Join(ws.Home, "logs", "serve-"+instanceOf(t, line)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "missing token") {
		t.Fatalf("the server's stderr is not in the log:\n%s", raw)
	}
	if strings.Contains(string(raw), secret) {
		t.Fatalf("the log holds the secret from the server's stderr:\n%s", raw)
	}
	wantExitLine(t, ws, "eof")
}

func instanceOf(t *testing.T, frame []byte) string {
	t.Helper()
	var f struct {
		InstanceID string `json:"instance_id"`
	}
	if err := json.Unmarshal(frame, &f); err != nil || f.InstanceID == "" {
		t.Fatalf("frame %q has no instance_id", frame)
	}
	return f.InstanceID
}

// volatile matches what differs between two children by design: UUIDs
// (instance, session, run, message IDs) and revisions.
var volatile = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|"revision":"[^"]*"`)

// session runs one scripted conversation and returns every stdout byte
// (volatile values masked) and the exit code.
func session(t *testing.T, ws *clienttest.Workspace) (string, int) {
	t.Helper()
	ch := startRaw(t, ws)
	var out strings.Builder
	read := func(until string) string {
		for {
			line, err := ch.lines.ReadBytes('\n')
			if err != nil {
				t.Fatalf("reading until %s: %v", until, err)
			}
			out.Write(line)
			if strings.Contains(string(line), until) {
				return string(line)
			}
		}
	}
	write := func(s string) {
		if _, err := io.WriteString(ch.stdin, s); err != nil {
			t.Fatal(err)
		}
	}
	write(reqLine("init", "initialize", initParams))
	read(`"id":"init"`)
	write(reqLine("st", "status", "{}") + reqLine("bad", "nope", "{}"))
	read(`"id":"bad"`)
	write(reqLine("create", "session.create", "{}"))
	created := read(`"id":"create"`)
	sid := regexp.MustCompile(`"session_id":"([^"]+)"`).FindStringSubmatch(created)[1]
	write(reqLine("turn", "turn.start", `{"session_id":"`+sid+`","prompt":"hello"}`))
	read(`"run.finished"`)
	write(reqLine("bye", "shutdown", "{}"))
	_ = ch.stdin.Close()
	rest, _ := io.ReadAll(bufio.NewReader(ch.lines))
	out.Write(rest)
	return volatile.ReplaceAllString(out.String(), "<v>"), ch.exit(t)
}

// TestUnusableLogDirChangesNothing: with $MC_HOME/logs unusable (a file
// where the directory should be), the protocol bytes and the exit code are
// those of a child that logs.
func TestUnusableLogDirChangesNothing(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	want, wantCode := session(t, ws)
	if len(childLog(t, ws)) == 0 {
		t.Fatal("the logging child wrote no log")
	}
	// The same workspace (same context_id), its log directory replaced.
	if err := os.RemoveAll(filepath.Join(ws.Home, "logs")); err != nil {
		t.Fatal(err)
	}
	ws.WriteFile(t, filepath.Join(ws.Home, "logs"), "not a directory")
	got, code := session(t, ws)
	if got != want || code != wantCode {
		t.Fatalf("with an unusable log directory:\n%s\nexit %d\nwith a log:\n%s\nexit %d", got, code, want, wantCode)
	}
	if wantCode != 0 {
		t.Fatalf("exit code %d; want 0", wantCode)
	}
}

// hasMsg reports whether a log line has message msg.
func hasMsg(lines []map[string]any, msg string) bool {
	for _, l := range lines {
		if l["msg"] == msg {
			return true
		}
	}
	return false
}

// TestLogLevel: prompts and replies are logged only at log_level = "debug".
func TestLogLevel(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	session(t, ws)
	if lines := childLog(t, ws); hasMsg(lines, "turn prompt") || hasMsg(lines, "turn message") || !hasMsg(lines, "turn finished") {
		t.Fatalf("default level log: %v; want turns without prompts or replies", lines)
	}
	// The startup records where the settings came from.
	var sources any = "(no settings line)"
	for _, l := range childLog(t, ws) {
		if l["msg"] == "settings" {
			sources = l["sources"]
		}
	}
	if sources != "global" {
		t.Fatalf("settings line sources = %v; want global (the workspace has only the global file)", sources)
	}
	debug := clienttest.NewWorkspace(t, clienttest.FixtureSettings+"log_level = \"debug\"\n")
	session(t, debug)
	if lines := childLog(t, debug); !hasMsg(lines, "turn prompt") || !hasMsg(lines, "turn message") {
		t.Fatalf("debug level log: %v; want the prompt and the reply", lines)
	}
}
