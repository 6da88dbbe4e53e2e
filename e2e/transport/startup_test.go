//go:build unix

package transport

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// slowStartup makes a workspace whose one approved MCP server never
// answers MCP initialize, so that initialization stays pending until it is
// cancelled. The server writes its PID to the returned file first.
func slowStartup(t *testing.T) (ws *clienttest.Workspace, pidFile string) {
	t.Helper()
	ws = clienttest.NewWorkspace(t, "")
	pidFile = filepath.Join(ws.Cwd, "mcp.pid")
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), clienttest.FixtureSettings+`
[mcp_servers.slow]
command = "/bin/sh"
args = ["-c", "echo $$ > `+pidFile+`; exec sleep 1000"]
enabled = true
`)
	cmd := exec.Command(clienttest.Binary(t), "mcp", "approve", "slow")
	cmd.Dir, cmd.Env = ws.Cwd, ws.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcp approve: %v\n%s", err, out)
	}
	return ws, pidFile
}

// TestShutdownDuringStartup: initialization is asynchronous ("later
// status/shutdown responses can precede their results"), status during it
// is state=starting, readiness=initializing with null selection, and
// shutdown "resolves a pending startup ... request with startup_cancelled"
// and exits 0, its MCP server stopped.
func TestShutdownDuringStartup(t *testing.T) {
	ws, pidFile := slowStartup(t)
	c := ws.Start(t, client.Options{RecordFrames: true, IgnoreEvents: true})
	if err := c.Send("init", "initialize", json.RawMessage(initParams)); err != nil {
		t.Fatal(err)
	}
	st, err := c.Call(clienttest.Guard(t), "status", nil)
	if err != nil {
		t.Fatal(err)
	}
	const starting = `{"state":"starting","readiness":"initializing","provider":null,"model":null,"context_id":null,"session_id":null,"run_id":null}`
	if st.Error != nil || string(st.Result) != starting {
		t.Errorf("status during startup: %s; want result %s", st.Raw, starting)
	}
	pid := waitPID(t, pidFile) // the MCP server is running: startup is in progress
	for _, method := range []string{"session.create", "turn.start"} {
		r, err := c.Call(clienttest.Guard(t), method, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantCode(t, r, "not_initialized")
	}
	bye, err := c.Call(clienttest.Guard(t), "shutdown", nil)
	if err != nil {
		t.Fatal(err)
	}
	if bye.Error != nil || string(bye.Result) != `{"state":"stopping"}` {
		t.Errorf("shutdown answered %s", bye.Raw)
	}
	in := await(t, c, "init")
	wantCode(t, in, "startup_cancelled")
	if in.Seq < st.Seq {
		t.Errorf("initialize (seq %d) answered before the status sent after it (seq %d) although startup was pending", in.Seq, st.Seq)
	}
	clienttest.WantExit(t, c, 0)
	waitDead(t, pid)
}

// waitPID waits (under the hang guard) for the PID file and reads it.
func waitPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(clienttest.HangGuard)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(path)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("pid file %q", b)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the MCP server did not start within %v", clienttest.HangGuard)
	return 0
}

// waitDead waits (under the hang guard) until pid no longer runs: gone, or
// a zombie left for an init that does not reap.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(clienttest.HangGuard)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("MCP server %d still runs after the child exited", pid)
}

// TestEOFDuringStartup: "EOF stops admission, cancels pending work and
// drains output"; "EOF does not guarantee a pending operation response".
// If initialize is answered, it is startup_cancelled; the child exits 0
// and its MCP server is stopped.
func TestEOFDuringStartup(t *testing.T) {
	ws, pidFile := slowStartup(t)
	c := ws.Start(t, client.Options{RecordFrames: true, IgnoreEvents: true})
	if err := c.Send("init", "initialize", json.RawMessage(initParams)); err != nil {
		t.Fatal(err)
	}
	pid := waitPID(t, pidFile)
	if err := c.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	clienttest.WantExit(t, c, 0)
	for _, f := range c.Frames() {
		if !strings.Contains(string(f.Raw), `"id":"init","error":{"code":"startup_cancelled"}`) {
			t.Errorf("unexpected frame after EOF during startup: %s", f.Raw)
		}
	}
	waitDead(t, pid)
}

// TestInitializeResult: the initialize result holds all nine capabilities,
// the limits exactly as the protocol's synthetic trace publishes them, and a
// ready idle status with the fixture selection and an opaque context ID.
func TestInitializeResult(t *testing.T) {
	c, _ := start(t)
	r := initialize(t, c)
	res := result(t, r)
	const caps = `["initialize","status","shutdown","session.create","session.open","history.page","turn.start","turn.cancel","approval.answer"]`
	const limits = `{"frame_bytes":65536,"json_depth":32,"id_bytes":64,"prompt_bytes":16384,"history_page_bytes":32768,"history_page_entries":100,"content_chunk_bytes":16384,"pending_responses":32,"requests_per_child":4096,"output_deadline_ms":2000}`
	if got := string(res["capabilities"]); got != caps {
		t.Errorf("capabilities %s; want %s", got, caps)
	}
	if got := string(res["limits"]); got != limits {
		t.Errorf("limits %s; want %s", got, limits)
	}
	var st struct {
		State, Readiness, Provider, Model string
		ContextID                         string  `json:"context_id"`
		SessionID                         *string `json:"session_id"`
		RunID                             *string `json:"run_id"`
	}
	if err := json.Unmarshal(res["status"], &st); err != nil {
		t.Fatalf("status %s: %v", res["status"], err)
	}
	if st.State != "idle" || st.Readiness != "ready" || st.Provider != "fixture" || st.Model != "fixture-model" ||
		st.ContextID == "" || st.SessionID != nil || st.RunID != nil {
		t.Errorf("status %s", res["status"])
	}
	if len(res) != 3 {
		t.Errorf("result has %d members; want capabilities, limits, status: %s", len(res), r.Result)
	}
	s, err := c.Call(clienttest.Guard(t), "status", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(s.Result) != string(res["status"]) {
		t.Errorf("status %s differs from initialize's %s", s.Result, res["status"])
	}
	shutdown(clienttest.Guard(t), t, c)
}
