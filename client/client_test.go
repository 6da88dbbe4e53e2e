package client

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

func TestMain(m *testing.M) {
	if os.Getenv("CLIENT_FAKE_CHILD") != "" {
		os.Exit(fakeChild())
	}
	goleak.VerifyTestMain(m)
}

// start runs the fake child; the test must end it (shutdown, CloseStdin or
// Kill) and Wait.
func start(t *testing.T, opts Options) *Client {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opts.Bin = exe
	opts.Env = append(opts.Env, "CLIENT_FAKE_CHILD=1")
	if testing.CoverMode() != "" {
		// A test binary built with -cover warns on stderr at exit unless
		// GOCOVERDIR names a directory; the fake child's stderr is checked.
		dir := os.Getenv("GOCOVERDIR")
		if dir == "" {
			dir = t.TempDir()
		}
		opts.Env = append(opts.Env, "GOCOVERDIR="+dir)
	}
	c, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// finish closes stdin and waits, failing on a violation, a nonzero exit or
// any stderr.
func finish(t *testing.T, c *Client) {
	t.Helper()
	_ = c.CloseStdin()
	code, stderr, err := c.Wait()
	if err != nil || code != 0 || len(stderr) != 0 {
		t.Fatalf("Wait() = %d, %q, %v; want 0, empty, nil", code, stderr, err)
	}
}

func TestCallCorrelatesByID(t *testing.T) {
	c := start(t, Options{RecordFrames: true, IgnoreEvents: true})
	ctx := t.Context()
	// hold's response comes after the next request's response.
	if err := c.Send("held", "hold", nil); err != nil {
		t.Fatal(err)
	}
	r, err := c.Call(ctx, "shutdownx", nil)
	if err != nil || r.Error == nil || r.Error.Code != string(protocol.CodeUnsupportedMethod) {
		t.Fatalf("Call = %+v, %v; want unsupported_method", r, err)
	}
	if r.ID == nil || *r.ID != "c1" || r.Seq != 1 {
		t.Fatalf("first response id %v seq %d; want c1, 1", r.ID, r.Seq)
	}
	held, err := c.Await(ctx, "held")
	if err != nil || held.Seq != 2 || string(held.Result) != `{"held":true}` {
		t.Fatalf("Await(held) = %+v, %v", held, err)
	}
	// Two responses with one ID arrive to two Awaits, in order.
	if err := c.Send("d", "dup", nil); err != nil {
		t.Fatal(err)
	}
	first, err1 := c.Await(ctx, "d")
	second, err2 := c.Await(ctx, "d")
	if err1 != nil || err2 != nil || first.Error != nil || second.Error == nil || second.Error.Code != "duplicate_id" {
		t.Fatalf("dup: %+v %v, %+v %v", first, err1, second, err2)
	}
	if err := c.Send("n", "null", nil); err != nil {
		t.Fatal(err)
	}
	if r, err := c.AwaitNull(ctx); err != nil || r.ID != nil || r.Error.Code != "invalid_request" {
		t.Fatalf("AwaitNull = %+v, %v", r, err)
	}
	r, err = c.Call(ctx, "shutdown", nil)
	if err != nil || string(r.Result) != `{"state":"stopping"}` {
		t.Fatalf("shutdown = %+v, %v", r, err)
	}
	finish(t, c)
	frames := c.Frames()
	if len(frames) != 6 {
		t.Fatalf("%d frames; want 6", len(frames))
	}
	for i, f := range frames {
		if f.Seq != uint64(i+1) || f.Type != "response" || !strings.HasSuffix(string(f.Raw), "}\n") {
			t.Fatalf("frame %d = %+v", i, f)
		}
	}
	if c.InstanceID() != fakeInstance {
		t.Fatalf("InstanceID() = %q", c.InstanceID())
	}
	// After the output ended, a Call fails instead of hanging.
	if _, err := c.Await(ctx, "never"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Await after EOF = %v; want ErrClosed", err)
	}
}

func TestRunEvents(t *testing.T) {
	c := start(t, Options{})
	ctx := t.Context()
	r, err := c.Call(ctx, "turn.start", map[string]string{"session_id": "s1", "prompt": "hi"})
	if err != nil || r.Error != nil {
		t.Fatalf("turn.start = %+v, %v", r, err)
	}
	var res struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	evs, err := c.CollectRun(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	text := ""
	for i, e := range evs {
		names = append(names, e.Name)
		if e.Seq != uint64(i+2) || e.SessionID != "s1" {
			t.Fatalf("event %d: seq %d session %q", i, e.Seq, e.SessionID)
		}
		if e.Name == protocol.EventMessageReconcile {
			var d struct{ Text string }
			if err := e.Decode(&d); err != nil {
				t.Fatal(err)
			}
			text = d.Text
		}
	}
	want := "input.persisted message.delta message.delta message.reconcile run.finished"
	if got := strings.Join(names, " "); got != want || text != "Hello" {
		t.Fatalf("events %q text %q; want %q, Hello", got, text, want)
	}
	finish(t, c)
}

// A consumer slower than the child never loses or reorders events: the
// reader blocks on the full channel, and the child's pipe fills.
func TestSlowConsumerBlocksWithoutLoss(t *testing.T) {
	c := start(t, Options{EventBuffer: 1})
	const n = 3000 // about 600 KB: far more than a pipe holds
	if err := c.Send("f", "flood", map[string]int{"n": n}); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for i := range n {
		e, err := c.WaitEvent(ctx, func(Event) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		var d struct{ Part int }
		if err := e.Decode(&d); err != nil || e.Name != protocol.EventMessageDelta || d.Part != i {
			t.Fatalf("event %d: %s part %d", i, e.Name, d.Part)
		}
	}
	if _, err := c.WaitEvent(ctx, func(e Event) bool { return e.Name == protocol.EventRunFinished }); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Await(ctx, "f"); err != nil || r.Seq != 1 {
		t.Fatalf("Await(f) = %+v, %v", r, err)
	}
	finish(t, c)
}

func TestEnvDirArgsAndStderr(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "mc")
	c := start(t, Options{Dir: dir, Env: []string{"MC_HOME=" + home}, IgnoreEvents: true})
	ctx := t.Context()
	r, err := c.Call(ctx, "env", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Cwd, Args, MCHome string }
	_ = json.Unmarshal(r.Result, &struct {
		Cwd    *string `json:"cwd"`
		Args   *string `json:"args"`
		MCHome *string `json:"mc_home"`
	}{&got.Cwd, &got.Args, &got.MCHome})
	realDir, _ := filepath.EvalSymlinks(dir)
	if got.Cwd != realDir || got.Args != "serve --stdio" || got.MCHome != home {
		t.Fatalf("child saw %+v; want cwd %s, serve --stdio, MC_HOME %s", got, realDir, home)
	}
	if _, err := c.Call(ctx, "stderr", map[string]string{"text": "oops"}); err != nil {
		t.Fatal(err)
	}
	_ = c.CloseStdin()
	code, stderr, err := c.Wait()
	if code != 0 || err != nil || string(stderr) != "oops" || c.StderrBytes() != 4 {
		t.Fatalf("Wait() = %d, %q, %v", code, stderr, err)
	}
}

func TestExitCodeAndKill(t *testing.T) {
	c := start(t, Options{})
	if err := c.Send("x", "exit", map[string]int{"code": 3}); err != nil {
		t.Fatal(err)
	}
	if code, _, err := c.Wait(); code != 3 || err != nil {
		t.Fatalf("Wait() = %d, %v; want 3, nil", code, err)
	}
	// A Call waiting when the child dies fails instead of hanging.
	c = start(t, Options{})
	if _, err := c.Call(t.Context(), "exit", map[string]int{"code": 1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Call into a dying child = %v; want ErrClosed", err)
	}
	c.Wait()

	c = start(t, Options{})
	c.Kill()
	if code, _, err := c.Wait(); code != -1 || err != nil {
		t.Fatalf("Wait() after Kill = %d, %v; want -1, nil", code, err)
	}
}

// Kill releases a reader blocked on a full Events channel.
func TestKillUnblocksStalledReader(t *testing.T) {
	c := start(t, Options{EventBuffer: 1})
	if err := c.Send("f", "flood", map[string]int{"n": 100}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitEvent(t.Context(), func(Event) bool { return true }); err != nil {
		t.Fatal(err)
	}
	c.Kill()
	c.Wait()
}

func TestViolationsThroughChild(t *testing.T) {
	tests := []struct {
		name   string
		frames []string
	}{
		{"seq starts at 2", []string{resp(2, "a")}},
		{"partial line at EOF", []string{strings.TrimSuffix(resp(1, "a"), "\n")}},
		{"banner", []string{"magi-code ready\n"}},
		{"oversize", []string{`{"x":"` + strings.Repeat("a", protocol.MaxOutputFrameBytes) + "\"}\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := start(t, Options{})
			if err := c.Send("r", "raw", map[string]any{"frames": tc.frames}); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(tc.name, "EOF") {
				_ = c.CloseStdin() // the child exits: EOF after the partial line
			}
			// A pending Call learns of the violation.
			if _, err := c.Await(t.Context(), "never"); !errors.Is(err, ErrProtocol) {
				t.Fatalf("Await = %v; want ErrProtocol", err)
			}
			_ = c.CloseStdin()
			if _, _, err := c.Wait(); !errors.Is(err, ErrProtocol) {
				t.Fatalf("Wait() err = %v; want ErrProtocol", err)
			}
			if _, ok := <-c.Events(); ok {
				t.Fatal("Events still open after a violation")
			}
		})
	}
}

func resp(seq int, id string) string {
	return string(wire.AppendResponse(nil, fakeInstance, uint64(seq), &wire.Response{ID: id, Result: []byte(`{}`)}))
}

// TestCheckFrame: Options.CheckFrame sees every frame, LF included, in
// order, and its first error is a protocol violation.
func TestCheckFrame(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	c := start(t, Options{CheckFrame: func(frame []byte) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, string(frame))
		if strings.Contains(string(frame), `"id":"bad"`) {
			return errors.New("planted")
		}
		return nil
	}})
	frames := []string{resp(1, "a"), resp(2, "bad")}
	if err := c.Send("r", "raw", map[string]any{"frames": frames}); err != nil {
		t.Fatal(err)
	}
	// The check runs beside the reader: the frames are delivered, and the
	// violation is reported by CheckErr, Err and Wait.
	if r, err := c.Await(t.Context(), "bad"); err != nil || r.Seq != 2 {
		t.Fatalf("Await(bad) = %v, %v; want the frame", r, err)
	}
	_ = c.CloseStdin()
	if _, _, err := c.Wait(); !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "planted") {
		t.Fatalf("Wait() err = %v; want ErrProtocol from CheckFrame", err)
	}
	if err := c.CheckErr(); !errors.Is(err, ErrProtocol) {
		t.Fatalf("CheckErr() = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != frames[0] || seen[1] != frames[1] {
		t.Fatalf("CheckFrame saw %q; want %q", seen, frames)
	}
}
