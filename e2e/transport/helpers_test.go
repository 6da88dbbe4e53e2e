package transport

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// initParams is the initialize params of the protocol's example.
const initParams = `{"required_capabilities":["status","shutdown"]}`

// line builds one request frame (LF included) from raw JSON pieces, so that
// tests can put anything in any field.
func line(id, method, params string) string {
	return `{"protocol":"magi-code.local-agent","version":1,"id":` + id + `,"method":` + method + `,"params":` + params + "}\n"
}

// reqLine is line with quoted id and method.
func reqLine(id, method, params string) string {
	return line(clienttest.Quote(id), clienttest.Quote(method), params)
}

// start starts a child in a fixture workspace, recording every frame.
func start(t *testing.T) (*client.Client, *clienttest.Workspace) {
	t.Helper()
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	c := ws.Start(t, client.Options{RecordFrames: true, IgnoreEvents: true})
	return c, ws
}

// initialize sends the protocol's initialize request and requires success.
func initialize(t *testing.T, c *client.Client) *client.Response {
	t.Helper()
	r, err := c.Call(clienttest.Guard(t), "initialize", json.RawMessage(initParams))
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
		r, err = c.AwaitNull(clienttest.Guard(t))
	} else {
		r, err = c.Await(clienttest.Guard(t), id)
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
	head, tail := `{"protocol":"magi-code.local-agent","version":1,"id":`+clienttest.Quote(id)+`,"method":"status","params":{`, `}}`
	spaces := n - len(head) - len(tail)
	if spaces < 0 {
		t.Fatalf("pad: %d bytes too short", n)
	}
	return head + strings.Repeat(" ", spaces) + tail
}
