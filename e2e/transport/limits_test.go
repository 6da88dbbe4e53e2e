package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// pipeline keeps at most window requests in flight: it sends window
// frames, then one more each time the oldest is answered, n in all. ids
// with "" expect an id=null answer. check sees every response.
func pipeline(t *testing.T, c *client.Client, n, window int, frame func(i int) (id, line string), check func(i int, r *client.Response)) {
	t.Helper()
	ids := make([]string, n)
	send := func(i int) {
		id, l := frame(i)
		ids[i] = id
		if err := c.SendLine([]byte(l)); err != nil {
			t.Fatalf("sending request %d: %v", i, err)
		}
	}
	sent := 0
	for ; sent < min(window, n); sent++ {
		send(sent)
	}
	for i := 0; i < n; i++ {
		r := await(t, c, ids[i])
		check(i, r)
		if sent < n {
			send(sent)
			sent++
		}
	}
}

// TestFrameSize: "Input frame: 65,536 bytes excluding LF"; "CR before LF
// counts toward byte limits"; "Oversize detection happens on byte 65,537,
// emits frame_too_large, then closes without unbounded draining" (docs/protocol.md, Choices:
// close means drain and exit 0).
func TestFrameSize(t *testing.T) {
	t.Run("65536 bytes answered", func(t *testing.T) {
		c, _ := start(t)
		initialize(t, c)
		for _, tc := range []struct{ id, frame string }{
			{"big1", pad(t, "big1", 65536) + "\n"},
			{"big2", pad(t, "big2", 65535) + "\r\n"}, // the CR is byte 65,536
			{"big3", padEscaped(t, "big3", 65536) + "\n"},
		} {
			if len(strings.TrimSuffix(tc.frame, "\n")) != 65536 {
				t.Fatalf("%s: frame of %d bytes", tc.id, len(tc.frame)-1)
			}
			if err := c.SendLine([]byte(tc.frame)); err != nil {
				t.Fatal(err)
			}
			var s struct{ State string }
			r := await(t, c, tc.id)
			if err := json.Unmarshal(r.Result, &s); r.Error != nil || err != nil || s.State != "idle" {
				t.Errorf("%s: status state %q (%v); want idle", tc.id, s.State, err)
			}
		}
		shutdown(clienttest.Guard(t), t, c)
	})
	for _, tc := range []struct {
		name  string
		bytes string
	}{
		{"65537 bytes without LF", pad(t, "big", 65537)},
		{"65536 bytes then CR LF", pad(t, "big", 65536) + "\r\n"},
		{"65537 bytes of garbage", strings.Repeat(marker, 65537/len(marker)+1)[:65537]},
		{"oversize after a valid frame", reqLine("ok1", "status", "{}") + pad(t, "big", 70000) + "\n" + reqLine("late", "status", "{}")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := start(t)
			initialize(t, c)
			// stdin stays open: the child must not wait for an LF or EOF.
			// docs/protocol.md, Frames: oversize "closes without unbounded draining", so the
			// child may close its stdin before the bytes past 65,537 are
			// written: EPIPE is the client's share of that close.
			if err := c.SendLine([]byte(tc.bytes)); err != nil && !errors.Is(err, syscall.EPIPE) {
				t.Fatal(err)
			}
			wantCode(t, await(t, c, ""), "frame_too_large")
			clienttest.WantExit(t, c, 0)
			for _, f := range c.Frames() {
				if strings.Contains(string(f.Raw), `"late"`) {
					t.Errorf("a frame after the oversize one was answered: %s", f.Raw)
				}
			}
			noMarker(t, c, marker)
		})
	}
}

// padEscaped is pad with the method written as "statu\u0073": escapes
// count as their raw bytes, and the decoded method is still status.
func padEscaped(t *testing.T, id string, n int) string {
	t.Helper()
	return strings.Replace(pad(t, id, n-5), `"status"`, `"statu\u0073"`, 1)
}

// TestIDLength: "Request IDs and method/capability names: 1–64 ASCII
// bytes"; an ID of 65 bytes is an invalid identity: id=null.
func TestIDLength(t *testing.T) {
	c, _ := start(t)
	initialize(t, c)
	id64, id65 := strings.Repeat("i", 64), strings.Repeat("j", 65)
	m64, m65 := strings.Repeat("m", 64), strings.Repeat("n", 65)
	cases := []struct {
		name, frame, id, code string
	}{
		{"id of 64 bytes", reqLine(id64, "status", "{}"), id64, ""},
		{"id of 65 bytes", reqLine(id65, "status", "{}"), "", "invalid_request"},
		{"id of 1 byte", reqLine("k", "status", "{}"), "k", ""},
		{"id with every grammar class", reqLine("aZ09._-", "status", "{}"), "aZ09._-", ""},
		{"method of 64 bytes", reqLine("m1", m64, "{}"), "m1", "unsupported_method"},
		{"method of 65 bytes", reqLine("m2", m65, "{}"), "m2", "invalid_request"},
		{"capability of 64 bytes", reqLine("cap1", "initialize", `{"required_capabilities":[`+clienttest.Quote(m64)+`]}`), "cap1", "already_initialized"},
	}
	for _, tc := range cases {
		if err := c.SendLine([]byte(tc.frame)); err != nil {
			t.Fatal(err)
		}
		r := await(t, c, tc.id)
		if tc.code == "" {
			result(t, r)
			continue
		}
		if r.Error == nil || r.Error.Code != tc.code {
			t.Errorf("%s: answered %s; want %s", tc.name, r.Raw, tc.code)
		}
	}
	shutdown(clienttest.Guard(t), t, c)
}

// TestRequestLimit: "Backend retains at most 4096 IDs (including rejected
// well-formed requests); the next new ID gets request_limit and closes."
// docs/protocol.md, Choices: id=null frames do not count, an old ID still gets duplicate_id
// once 4096 are retained, and close means drain and exit 0.
func TestRequestLimit(t *testing.T) {
	c, _ := start(t)
	const n = 4096
	pipeline(t, c, n+n/8, 32, func(i int) (string, string) {
		if i%9 == 8 {
			// An invalid identity: answered with id=null, not retained.
			return "", reqLine("bad id", "status", "{}")
		}
		id := fmt.Sprintf("r%d", i)
		switch i % 3 {
		case 0:
			return id, reqLine(id, "status", "{}")
		case 1:
			return id, reqLine(id, "no.such.method", "{}")
		default:
			return id, reqLine(id, "initialize", `{"bad":1}`)
		}
	}, func(i int, r *client.Response) {
		if r.Error == nil {
			t.Fatalf("request %d answered %s", i, r.Raw)
		}
		if r.Error.Code == "request_limit" || r.Error.Code == "duplicate_id" {
			t.Fatalf("request %d answered %s before the limit", i, r.Error.Code)
		}
	})
	retained := 0
	for i := 0; i < n+n/8; i++ {
		if i%9 != 8 {
			retained++
		}
	}
	if retained > n {
		t.Fatalf("test bug: %d IDs retained", retained)
	}
	// Fill up to exactly 4096 retained IDs.
	for i := 0; retained < n; i++ {
		id := fmt.Sprintf("fill%d", i)
		r, err := sendAwait(t, c, id, reqLine(id, "status", "{}"))
		if err != nil {
			t.Fatal(err)
		}
		wantCode(t, r, "not_initialized")
		retained++
	}
	r, err := sendAwait(t, c, "r0", reqLine("r0", "status", "{}"))
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, r, "duplicate_id")
	r, err = sendAwait(t, c, "new", reqLine("new", "status", "{}")+reqLine("later", "status", "{}"))
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, r, "request_limit")
	clienttest.WantExit(t, c, 0)
	last := c.Frames()[len(c.Frames())-1]
	if !strings.Contains(string(last.Raw), `"request_limit"`) {
		t.Errorf("a frame followed request_limit: %s", last.Raw)
	}
}

func sendAwait(t *testing.T, c *client.Client, id, frames string) (*client.Response, error) {
	t.Helper()
	if err := c.SendLine([]byte(frames)); err != nil {
		return nil, err
	}
	return await(t, c, id), nil
}

// TestPipelined: "a client that keeps exactly 32 requests in flight must
// never cause an overflow" (docs/protocol.md, Choices), even though it sends its next
// request as soon as it reads a response. 20,000 status requests, all
// answered; the client checks that seq strictly increases across every
// frame. A child admits at most 4096 request IDs, so the 20,000 run over
// children that each use exactly 4096 (initialize, 4094 status, shutdown)
// and none of which may exit before its shutdown.
func TestPipelined(t *testing.T) {
	const total, perChild = 20000, 4096 - 2
	for done, child := 0, 0; done < total; child++ {
		n := min(perChild, total-done)
		c, _ := start(t)
		initialize(t, c)
		pipeline(t, c, n, 32, func(i int) (string, string) {
			id := fmt.Sprintf("p%d", i)
			return id, reqLine(id, "status", "{}")
		}, func(i int, r *client.Response) {
			if r.Error != nil || !strings.Contains(string(r.Result), `"state":"idle"`) {
				t.Fatalf("child %d: request %d answered %s", child, i, r.Raw)
			}
		})
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
		shutdown(clienttest.Guard(t), t, c)
		if got := len(c.Frames()); got != n+2 {
			t.Errorf("child %d: %d frames; want %d", child, got, n+2)
		}
		done += n
	}
}
