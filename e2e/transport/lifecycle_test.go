package transport

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// TestEOFIdle: "EOF ... drains output ...; successful drain exits 0", with
// nothing on stderr, before and after initialize.
func TestEOFIdle(t *testing.T) {
	for _, initialized := range []bool{false, true} {
		name := map[bool]string{false: "before initialize", true: "after initialize"}[initialized]
		t.Run(name, func(t *testing.T) {
			c, _ := start(t)
			if initialized {
				initialize(t, c)
			}
			if err := c.CloseStdin(); err != nil {
				t.Fatal(err)
			}
			clienttest.WantExit(t, c, 0)
			if n, want := len(c.Frames()), map[bool]int{false: 0, true: 1}[initialized]; n != want {
				t.Errorf("%d frames; want %d", n, want)
			}
		})
	}
}

// TestEOFIdleCreatesNothing: docs/protocol.md, Choices: "serve creates nothing before
// initialize is admitted"; the positive control shows that an admitted
// initialize does create MC_HOME, so the check can fail.
func TestEOFIdleCreatesNothing(t *testing.T) {
	for _, initialized := range []bool{false, true} {
		name := map[bool]string{false: "idle", true: "initialized"}[initialized]
		t.Run(name, func(t *testing.T) {
			env, check := missingHome(t)
			ws := clienttest.NewWorkspace(t, "")
			c := ws.Start(t, client.Options{Env: env, IgnoreEvents: true})
			if _, err := c.Call(clienttest.Guard(t), "status", nil); err != nil {
				t.Fatal(err)
			}
			if initialized {
				// Without settings startup may fail; either way it is admitted.
				if _, err := c.Call(clienttest.Guard(t), "initialize", json.RawMessage(initParams)); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.CloseStdin(); err != nil {
				t.Fatal(err)
			}
			clienttest.WantExit(t, c, 0)
			if !initialized {
				check()
				return
			}
			if _, err := os.Stat(filepath.Join(envValue(env, "MC_HOME"))); err != nil {
				t.Errorf("admitted initialize did not create MC_HOME: %v", err)
			}
		})
	}
}

func envValue(env []string, key string) string {
	for _, kv := range env {
		if len(kv) > len(key) && kv[:len(key)+1] == key+"=" {
			return kv[len(key)+1:]
		}
	}
	return ""
}

// TestShutdown: shutdown is allowed before initialization; its result is
// exactly {"state":"stopping"}, the child exits 0 with empty stderr, and
// (docs/protocol.md, Choices) "After shutdown is accepted, later frames are read and
// discarded without a response": valid requests, bad frames and a partial
// frame at EOF all go unanswered.
func TestShutdown(t *testing.T) {
	after := reqLine("late1", "status", "{}") +
		reqLine("late2", "initialize", initParams) +
		"\n" + // invalid_frame if it were answered
		"not json\n" +
		reqLine("late3", "shutdown", "{}") +
		`{"protocol":"magi-code.local-agent"` // incomplete_frame if it were answered
	for _, initialized := range []bool{false, true} {
		name := map[bool]string{false: "before initialize", true: "after initialize"}[initialized]
		t.Run(name, func(t *testing.T) {
			c, _ := start(t)
			if initialized {
				initialize(t, c)
			}
			// Shutdown and the later frames arrive in one write, so the
			// child reads them after admitting shutdown.
			if err := c.SendLine([]byte(reqLine("bye", "shutdown", "{}") + after)); err != nil {
				t.Fatal(err)
			}
			r := await(t, c, "bye")
			if r.Error != nil || string(r.Result) != `{"state":"stopping"}` {
				t.Errorf("shutdown answered %s; want result {\"state\":\"stopping\"}", r.Raw)
			}
			// The child may already be gone: a failed write is fine here.
			_ = c.SendLine([]byte("\n" + reqLine("late4", "status", "{}")))
			_ = c.CloseStdin()
			clienttest.WantExit(t, c, 0)
			frames := c.Frames()
			if want := map[bool]int{false: 1, true: 2}[initialized]; len(frames) != want {
				for _, f := range frames {
					t.Logf("frame: %s", f.Raw)
				}
				t.Errorf("%d frames; want %d (frames after shutdown must be discarded)", len(frames), want)
			}
		})
	}
}

// TestShutdownWithoutEOF: after shutdown the child exits on its own, while
// the client still holds stdin open.
func TestShutdownWithoutEOF(t *testing.T) {
	c, _ := start(t)
	initialize(t, c)
	r, err := c.Call(clienttest.Guard(t), "shutdown", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Error != nil || string(r.Result) != `{"state":"stopping"}` {
		t.Errorf("shutdown answered %s", r.Raw)
	}
	clienttest.WantExit(t, c, 0)
}

// TestIncompleteFrameAtEOF: "EOF without LF does not execute a partial
// request"; it is answered incomplete_frame with id=null. A partial
// initialize must not initialize (no MC_HOME appears), a partial shutdown
// must not be answered {"state":"stopping"}.
func TestIncompleteFrameAtEOF(t *testing.T) {
	cases := []struct {
		name    string
		partial string
	}{
		{"partial initialize", reqLine("i1", "initialize", `{"required_capabilities":[]}`)},
		{"partial shutdown", reqLine("s1", "shutdown", "{}")},
		{"partial status", reqLine("st1", "status", "{}")},
		{"half an object", `{"protocol":"magi-code.local-agent","version":1,"id":"h1","meth`},
		{"CR without LF", reqLine("cr1", "initialize", initParams)[:len(reqLine("cr1", "initialize", initParams))-1] + "\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, check := missingHome(t)
			ws := clienttest.NewWorkspace(t, "")
			cl := ws.Start(t, client.Options{Env: env, RecordFrames: true, IgnoreEvents: true})
			partial := c.partial
			partial = partial[:len(partial)-1] // drop the LF
			if err := cl.SendLine([]byte(partial)); err != nil {
				t.Fatal(err)
			}
			if err := cl.CloseStdin(); err != nil {
				t.Fatal(err)
			}
			wantCode(t, await(t, cl, ""), "incomplete_frame")
			clienttest.WantExit(t, cl, 0)
			if n := len(cl.Frames()); n != 1 {
				t.Errorf("%d frames; want only incomplete_frame", n)
			}
			check()
		})
	}
}

// TestStatusOvertakesInitialize: initialization is asynchronous; a status
// sent right behind initialize may be answered first. Both arrive and are
// correlated by ID, whatever their order.
func TestStatusOvertakesInitialize(t *testing.T) {
	c, _ := start(t)
	if err := c.SendLine([]byte(reqLine("init", "initialize", initParams) + reqLine("st", "status", "{}"))); err != nil {
		t.Fatal(err)
	}
	ctx := clienttest.Guard(t)
	st := await(t, c, "st")
	in := await(t, c, "init")
	if _, ok := result(t, in)["capabilities"]; !ok {
		t.Errorf("initialize response %s has no capabilities", in.Raw)
	}
	var s struct{ State, Readiness string }
	if err := json.Unmarshal(st.Result, &s); err != nil || st.Error != nil {
		t.Fatalf("status response %s", st.Raw)
	}
	switch {
	case s.State == "starting" && s.Readiness == "initializing":
	case s.State == "idle" && s.Readiness == "ready":
	default:
		t.Errorf("status during initialize: %s", st.Raw)
	}
	t.Logf("status seq %d, initialize seq %d (%s)", st.Seq, in.Seq, s.State)
	shutdown(ctx, t, c)
}

// shutdown sends shutdown and requires exit 0 with empty stderr.
func shutdown(ctx context.Context, t *testing.T, c *client.Client) {
	t.Helper()
	r, err := c.Call(ctx, "shutdown", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Error != nil {
		t.Fatalf("shutdown answered %s", r.Raw)
	}
	clienttest.WantExit(t, c, 0)
}
