package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// hangGuard bounds every wait of these tests. It only turns a hang into a
// failure; no test asserts how fast anything happens.
const hangGuard = 60 * time.Second

// initParams is the initialize params of the spec's example.
const initParams = `{"required_capabilities":["status","shutdown"]}`

// line builds one request frame (LF included) from raw JSON pieces, so that
// tests can put anything in any field.
func line(id, method, params string) string {
	return `{"protocol":"magi-code.local-agent","version":1,"id":` + id + `,"method":` + method + `,"params":` + params + "}\n"
}

// reqLine is line with quoted id and method.
func reqLine(id, method, params string) string {
	return line(q(id), q(method), params)
}

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func guard(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	return ctx
}

// start starts a child in a fixture workspace, recording every frame.
func start(t *testing.T) (*client.Client, *clienttest.Workspace) {
	t.Helper()
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	c := ws.Start(t, client.Options{RecordFrames: true, IgnoreEvents: true})
	return c, ws
}

// initialize sends the spec's initialize request and requires success.
func initialize(t *testing.T, c *client.Client) *client.Response {
	t.Helper()
	r, err := c.Call(guard(t), "initialize", json.RawMessage(initParams))
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if r.Error != nil {
		t.Fatalf("initialize answered %s", r.Error.Code)
	}
	return r
}

// await waits for the response to a frame: with id when id != "", else the
// next id=null response.
func await(t *testing.T, c *client.Client, id string) *client.Response {
	t.Helper()
	var r *client.Response
	var err error
	if id == "" {
		r, err = c.AwaitNull(guard(t))
	} else {
		r, err = c.Await(guard(t), id)
	}
	if err != nil {
		t.Fatalf("awaiting response to id %q: %v", id, err)
	}
	return r
}

// wantCode requires r to be an error response with code.
func wantCode(t *testing.T, r *client.Response, code string) {
	t.Helper()
	if r.Error == nil {
		t.Fatalf("response %s: want error %s", r.Raw, code)
	}
	if r.Error.Code != code {
		t.Fatalf("response %s: code %s; want %s", r.Raw, r.Error.Code, code)
	}
}

// waitExit waits for the child under the hang guard and returns its exit
// code and stderr; a protocol violation in its output fails the test.
func waitExit(t *testing.T, c *client.Client) (int, []byte) {
	t.Helper()
	type result struct {
		code   int
		stderr []byte
		err    error
	}
	done := make(chan result, 1)
	go func() {
		code, stderr, err := c.Wait()
		done <- result{code, stderr, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Errorf("child output: %v", r.err)
		}
		return r.code, r.stderr
	case <-time.After(hangGuard):
		c.Kill()
		<-done
		t.Fatalf("child did not exit within %v", hangGuard)
		return 0, nil
	}
}

// wantExit requires exit code want and empty stderr.
func wantExit(t *testing.T, c *client.Client, want int) {
	t.Helper()
	code, stderr := waitExit(t, c)
	if code != want {
		t.Errorf("exit code %d; want %d (stderr %q)", code, want, stderr)
	}
	if len(stderr) != 0 || c.StderrBytes() != 0 {
		t.Errorf("stderr not empty: %q", stderr)
	}
}

// noMarker requires that no frame of c carries marker.
func noMarker(t *testing.T, c *client.Client, marker string) {
	t.Helper()
	for _, f := range c.Frames() {
		if bytes.Contains(f.Raw, []byte(marker)) {
			t.Errorf("frame echoes submitted text %q: %s", marker, f.Raw)
		}
	}
}

// missingHome returns an environment whose MC_HOME does not exist and whose
// HOME is an empty directory, and a function that checks both stayed so.
func missingHome(t *testing.T) (env []string, check func()) {
	t.Helper()
	root := t.TempDir()
	mcHome := filepath.Join(root, "mc-home")
	home := filepath.Join(root, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	env = []string{"MC_HOME=" + mcHome, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	return env, func() {
		t.Helper()
		if _, err := os.Lstat(mcHome); !os.IsNotExist(err) {
			t.Errorf("MC_HOME %s exists after the child ran (err %v)", mcHome, err)
		}
		entries, err := os.ReadDir(home)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 0 {
			t.Errorf("HOME is no longer empty: %v", entries)
		}
	}
}

// result decodes a response's result object.
func result(t *testing.T, r *client.Response) map[string]json.RawMessage {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("response %s: want result, got error %s", r.Raw, r.Error.Code)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.Result, &m); err != nil {
		t.Fatalf("result of %s: %v", r.Raw, err)
	}
	return m
}

// pad returns a status request for id padded with spaces inside params so
// that the frame is exactly n bytes long, LF excluded.
func pad(t *testing.T, id string, n int) string {
	t.Helper()
	head, tail := `{"protocol":"magi-code.local-agent","version":1,"id":`+q(id)+`,"method":"status","params":{`, `}}`
	spaces := n - len(head) - len(tail)
	if spaces < 0 {
		t.Fatalf("pad: %d bytes too short", n)
	}
	return head + strings.Repeat(" ", spaces) + tail
}
