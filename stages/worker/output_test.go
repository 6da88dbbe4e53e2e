package worker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/stages/wire"
)

// TestActivityOutput: a primary tool call's output reaches only a client
// that required the activity.output capability, redacted, cut to
// protocol.ActivityOutputBytes on a UTF-8 boundary, in chunks of at most
// protocol.ActivityOutputChunkBytes numbered from 0, the last one marked
// (truncated when the output went on), all between the call's started and
// completed activity states.
func TestActivityOutput(t *testing.T) {
	const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	// Multi-byte runes across every chunk boundary, a secret inside.
	body := "first line " + token + "\n" + strings.Repeat("é€x", 6000) + "\n"
	script := `{"responses":[{"steps":[{"tool_call":{"name":"read_file","arguments":{"path":"big.txt"}}}]},{"steps":[{"text":"read"}]},` +
		`{"steps":[{"tool_call":{"name":"read_file","arguments":{"path":"small.txt"}}}]},{"steps":[{"text":"read"}]}]}`
	for _, required := range []bool{false, true} {
		t.Run(map[bool]string{false: "not required", true: "required"}[required], func(t *testing.T) {
			var caps []string
			if required {
				caps = []string{protocol.CapabilityActivityOutput}
			}
			p, events, sid, _ := agentPoolCaps(t, caps, script, "", map[string]string{})
			for name, text := range map[string]string{"big.txt": body, "small.txt": "one line\n"} {
				if err := os.WriteFile(filepath.Join(p.opts.Env.Cwd, name), []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for i, want := range []struct {
				chunks    int
				truncated bool
				holds     string
			}{{4, true, "first line " + redact.Marker}, {1, false, "one line"}} {
				evs := runTurn(t, p, events, sid, "hello")
				var out []wire.Event
				var states []string
				for _, e := range evs {
					switch e.Name {
					case protocol.EventActivityOutput:
						out = append(out, e)
						states = append(states, "output")
					case protocol.EventActivity:
						states = append(states, e.State)
					}
				}
				if !required {
					if len(out) != 0 {
						t.Fatalf("activity.output without the capability: %+v", out)
					}
					continue
				}
				if len(out) != want.chunks || strings.Join(states, " ") != "started"+strings.Repeat(" output", want.chunks)+" completed" {
					t.Fatalf("call %d: %d chunks, states %q", i, len(out), states)
				}
				var all strings.Builder
				for n, e := range out {
					if e.Part != n || e.LastPart != (n == len(out)-1) || e.Partial != (e.LastPart && want.truncated) ||
						len(e.Text) > protocol.ActivityOutputChunkBytes || len(e.Text) == 0 || !utf8.ValidString(e.Text) ||
						e.ActivityID == "" || e.ActivityID != out[0].ActivityID || e.SessionID != sid {
						t.Fatalf("call %d chunk %d: part %d last %v truncated %v activity %q session %q, %d bytes", i, n, e.Part, e.LastPart, e.Partial, e.ActivityID, e.SessionID, len(e.Text))
					}
					all.WriteString(e.Text)
				}
				s := all.String()
				if len(s) > protocol.ActivityOutputBytes || (want.truncated && len(s) < protocol.ActivityOutputBytes-4*utf8.UTFMax) ||
					strings.Contains(s, token) || !strings.Contains(s, want.holds) {
					t.Fatalf("call %d: output of %d bytes %.80q", i, len(s), s)
				}
			}
		})
	}
}
