//go:build linux

package acpinterop

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/magi-code/magi-code/client/clienttest"
)

// The core scenarios through github.com/coder/acp-go-sdk's client side: a
// second client nobody here wrote, on real pipes to `magi-code acp`.

// goClient records what the agent sends and answers permission requests
// with decide.
type goClient struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	asked   []sdk.RequestPermissionRequest
	decide  func(sdk.RequestPermissionRequest) sdk.RequestPermissionResponse
	// chunk, when not nil, is closed at the first agent_message_chunk.
	chunk     chan struct{}
	chunkOnce sync.Once
}

func (c *goClient) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p)
	decide := c.decide
	c.mu.Unlock()
	if decide == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
	}
	return decide(p), nil
}

func (c *goClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	if n.Update.AgentMessageChunk != nil && c.chunk != nil {
		c.chunkOnce.Do(func() { close(c.chunk) })
	}
	return nil
}

func (c *goClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errors.New("not advertised")
}

func (c *goClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errors.New("not advertised")
}

func (c *goClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("not advertised")
}

func (c *goClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("not advertised")
}

func (c *goClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("not advertised")
}

func (c *goClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("not advertised")
}

func (c *goClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("not advertised")
}

// permissions returns the permission requests received so far.
func (c *goClient) permissions() []sdk.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.RequestPermissionRequest(nil), c.asked...)
}

// snapshot returns the updates of session sid received so far.
func (c *goClient) snapshot(sid sdk.SessionId) []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []sdk.SessionUpdate
	for _, n := range c.updates {
		if n.SessionId == sid {
			out = append(out, n.Update)
		}
	}
	return out
}

// agentProc is one `magi-code acp` child with the Go SDK's connection.
type agentProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *strings.Builder
	conn   *sdk.ClientSideConnection
	client *goClient
	done   chan error
}

// startAgent spawns `magi-code acp` in ws and initializes it; at cleanup
// it closes stdin and checks the exit and an empty stderr.
func startAgent(t *testing.T, ws *clienttest.Workspace, c *goClient) (*agentProc, sdk.InitializeResponse) {
	t.Helper()
	cmd := exec.Command(clienttest.Binary(t), "acp")
	cmd.Dir = ws.Cwd
	cmd.Env = ws.Env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &agentProc{cmd: cmd, stdin: stdin, stderr: &stderr, client: c, done: make(chan error, 1)}
	a.conn = sdk.NewClientSideConnection(c, stdin, stdout)
	a.conn.SetLogger(slog.New(slog.DiscardHandler))
	go func() { a.done <- cmd.Wait() }()
	t.Cleanup(func() { a.stop(t) })
	init, err := a.conn.Initialize(ctx(t), sdk.InitializeRequest{
		ProtocolVersion:    sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{},
		ClientInfo:         &sdk.Implementation{Name: "acp-go-sdk-test", Version: "0"},
	})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return a, init
}

// stop closes stdin and waits for the exit (killing after a bound, which
// fails the test).
func (a *agentProc) stop(t *testing.T) {
	t.Helper()
	if a.cmd == nil {
		return
	}
	a.stdin.Close()
	select {
	case err := <-a.done:
		if err != nil {
			t.Errorf("magi-code acp exited with %v after stdin EOF", err)
		}
	case <-time.After(15 * time.Second):
		a.cmd.Process.Kill()
		<-a.done
		t.Errorf("magi-code acp did not exit after stdin EOF")
	}
	if a.stderr.Len() > 0 {
		t.Errorf("stderr is not empty: %s", a.stderr.String())
	}
	a.cmd = nil
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func newSession(t *testing.T, a *agentProc, ws *clienttest.Workspace) sdk.SessionId {
	t.Helper()
	s, err := a.conn.NewSession(ctx(t), sdk.NewSessionRequest{Cwd: ws.Cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return s.SessionId
}

// agentText concatenates the agent_message_chunk text of updates.
func agentText(us []sdk.SessionUpdate) string {
	var b strings.Builder
	for _, u := range us {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// toolStatus is the last status of each tool call in updates.
func toolStatus(us []sdk.SessionUpdate) map[sdk.ToolCallId]sdk.ToolCallStatus {
	out := map[sdk.ToolCallId]sdk.ToolCallStatus{}
	for _, u := range us {
		switch {
		case u.ToolCall != nil:
			out[u.ToolCall.ToolCallId] = u.ToolCall.Status
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			out[u.ToolCallUpdate.ToolCallId] = *u.ToolCallUpdate.Status
		}
	}
	return out
}

func TestGoSDKInitializeAndNew(t *testing.T) {
	t.Parallel()
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	a, init := startAgent(t, ws, &goClient{})
	if init.ProtocolVersion != 1 {
		t.Fatalf("protocolVersion %d", init.ProtocolVersion)
	}
	if !init.AgentCapabilities.LoadSession || !init.AgentCapabilities.PromptCapabilities.EmbeddedContext || len(init.AuthMethods) == 0 {
		t.Fatalf("initialize answer %+v", init)
	}
	_, err := a.conn.NewSession(ctx(t), sdk.NewSessionRequest{Cwd: "relative/dir", McpServers: []sdk.McpServer{}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Fatalf("session/new with a relative cwd: %v, want -32602", err)
	}
	newSession(t, a, ws)
}

func TestGoSDKStreamedPrompt(t *testing.T) {
	t.Parallel()
	var want strings.Builder
	var steps []clienttest.Step
	for i := range 300 {
		s := "chunk " + strings.Repeat("x", i%7) + " "
		want.WriteString(s)
		steps = append(steps, clienttest.Text(s))
	}
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{steps}})
	c := &goClient{}
	a, _ := startAgent(t, ws, c)
	sid := newSession(t, a, ws)
	r, err := a.conn.Prompt(ctx(t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("stream")}})
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", r, err)
	}
	// The SDK delivers the notifications that preceded a response before
	// the response returns.
	if got := agentText(c.snapshot(sid)); got != want.String() {
		t.Fatalf("streamed text (%d bytes) differs from the reply (%d bytes)", len(got), want.Len())
	}
}

func allowOrReject(kind sdk.PermissionOptionKind) func(sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
	return func(p sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
		for _, o := range p.Options {
			if o.Kind == kind {
				return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}
			}
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}
	}
}

func TestGoSDKPermission(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind   sdk.PermissionOptionKind
		status sdk.ToolCallStatus
		ran    bool
	}{
		{sdk.PermissionOptionKindAllowOnce, sdk.ToolCallStatusCompleted, true},
		{sdk.PermissionOptionKindRejectOnce, sdk.ToolCallStatusFailed, false},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			t.Parallel()
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
				Approval:  "ask",
				Responses: [][]clienttest.Step{{clienttest.Shell("echo ran > ran.txt")}, {clienttest.Text("done")}},
			})
			c := &goClient{decide: allowOrReject(tc.kind)}
			a, _ := startAgent(t, ws, c)
			sid := newSession(t, a, ws)
			r, err := a.conn.Prompt(ctx(t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("run")}})
			if err != nil || r.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("prompt: %+v %v", r, err)
			}
			asked := c.permissions()
			if len(asked) != 1 {
				t.Fatalf("%d permission requests", len(asked))
			}
			st := toolStatus(c.snapshot(sid))
			if got := st[asked[0].ToolCall.ToolCallId]; got != tc.status {
				t.Fatalf("tool call status %q, want %q (all: %v)", got, tc.status, st)
			}
			_, err = os.Stat(filepath.Join(ws.Cwd, "ran.txt"))
			if (err == nil) != tc.ran {
				t.Fatalf("the command ran: %v, want %v", err == nil, tc.ran)
			}
		})
	}
}

func TestGoSDKCancel(t *testing.T) {
	t.Parallel()
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
		Responses: [][]clienttest.Step{{clienttest.Text("started "), clienttest.SleepMs(60000), clienttest.Text("never")}},
	})
	c := &goClient{chunk: make(chan struct{})}
	a, _ := startAgent(t, ws, c)
	sid := newSession(t, a, ws)
	type result struct {
		r   sdk.PromptResponse
		err error
	}
	res := make(chan result, 1)
	go func() {
		r, err := a.conn.Prompt(ctx(t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}})
		res <- result{r, err}
	}()
	select {
	case <-c.chunk:
	case r := <-res:
		t.Fatalf("the prompt answered before any chunk: %+v", r)
	}
	if err := a.conn.Cancel(ctx(t), sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	r := <-res
	if r.err != nil || r.r.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt after cancel: %+v %v", r.r, r.err)
	}
	if strings.Contains(agentText(c.snapshot(sid)), "never") {
		t.Fatal("text after the cancel was sent")
	}
}

func TestGoSDKLoad(t *testing.T) {
	t.Parallel()
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
		Approval:  "auto",
		Responses: [][]clienttest.Step{{clienttest.Text("looking "), clienttest.ToolCall("list_dir", map[string]any{"path": "."})}, {clienttest.Text("one file")}},
	})
	ws.WriteFile(t, filepath.Join(ws.Cwd, "a.txt"), "a\n")
	c1 := &goClient{}
	a1, _ := startAgent(t, ws, c1)
	sid := newSession(t, a1, ws)
	if r, err := a1.conn.Prompt(ctx(t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("what is here")}}); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", r, err)
	}
	live := c1.snapshot(sid)
	a1.stop(t)

	c2 := &goClient{}
	a2, init := startAgent(t, ws, c2)
	if !init.AgentCapabilities.LoadSession {
		t.Fatal("loadSession not advertised")
	}
	if _, err := a2.conn.LoadSession(ctx(t), sdk.LoadSessionRequest{SessionId: sid, Cwd: ws.Cwd, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	replay := c2.snapshot(sid)
	if got, want := agentText(replay), agentText(live); got != want || want == "" {
		t.Fatalf("replayed text %q, live %q", got, want)
	}
	var user string
	for _, u := range replay {
		if u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil {
			user += u.UserMessageChunk.Content.Text.Text
		}
	}
	if user != "what is here" {
		t.Fatalf("replayed user message %q", user)
	}
	ls, rs := toolStatus(live), toolStatus(replay)
	if len(ls) != 1 || len(rs) != len(ls) {
		t.Fatalf("tool calls live %v, replayed %v", ls, rs)
	}
	for id, s := range ls {
		if rs[id] != s {
			t.Fatalf("tool %s: replayed %q, live %q", id, rs[id], s)
		}
	}
}
