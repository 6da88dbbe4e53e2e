//go:build unix

package worker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/wire"
)

// TestActivityOutputLive: a command's output fills activity.output parts
// while it runs (the command waits for a file the test creates only once
// two parts came), redacted; the parts sent live and the rest sent when it
// ends are exactly the result's parts (history.ToolOutput), numbered from
// 0, the last one marked and truncated, all between the call's started and
// completed states.
func TestActivityOutputLive(t *testing.T) {
	const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	command := "echo " + token + "; head -c 9000 /dev/zero | tr '\\\\0' a; while [ ! -e gate ]; do sleep 0.05; done; head -c 9000 /dev/zero | tr '\\\\0' b"
	script := `{"responses":[{"steps":[{"tool_call":{"name":"shell","arguments":{"command":"` + command + `"}}}]},{"steps":[{"text":"ran"}]}]}`
	p, events, sid, _ := agentPoolCaps(t, []string{protocol.CapabilityActivityOutput}, script,
		"[tools]\napproval = \"auto\"\nunsandboxed_auto = true\n", map[string]string{})
	done := make(chan struct{})
	p.StartTurn(context.Background(), "run-1", dispatch.TurnParams{SessionID: sid, Prompt: "go"}, func() { close(done) })
	var got []wire.Event
	guard := time.After(30 * time.Second) // hang guard only
	live := 0
	for finished := false; !finished; {
		select {
		case e := <-events:
			got = append(got, e)
			finished = e.Name == protocol.EventRunFinished
			if e.Name == protocol.EventActivityOutput {
				if live++; live == 2 {
					// Two parts came while the command waits: now let it end.
					if err := os.WriteFile(filepath.Join(p.opts.Env.Cwd, "gate"), nil, 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
		case <-guard:
			t.Fatalf("no run.finished (%d output events: the output was not sent while the command ran)", live)
		}
	}
	<-done
	var states []string
	var out []wire.Event
	for _, e := range got {
		switch e.Name {
		case protocol.EventActivityOutput:
			out = append(out, e)
			states = append(states, "output")
		case protocol.EventActivity:
			states = append(states, e.State)
		}
	}
	want, truncated := history.ToolOutput(token + "\n" + strings.Repeat("a", 9000) + strings.Repeat("b", 9000))
	if len(out) != len(want) || !truncated || strings.Join(states, " ") != "started output output output output completed" {
		t.Fatalf("%d output events, states %q", len(out), states)
	}
	for i, e := range out {
		if e.Part != i || e.Text != want[i] || e.LastPart != (i == len(out)-1) || e.Partial != e.LastPart || strings.Contains(e.Text, token) {
			t.Fatalf("part %d: %d, last %v, truncated %v, %.40q; want %.40q", i, e.Part, e.LastPart, e.Partial, e.Text, want[i])
		}
	}
}

// TestActivityOutputLiveParts: the parts sent while a command ran are not
// sent again; a result that does not begin with them (a redaction of the
// whole the stream could not foresee) ends the output with an empty last
// part that says truncated, nothing taken back; without the capability
// nothing is sent.
func TestActivityOutputLiveParts(t *testing.T) {
	for _, tc := range []struct {
		name, live, result string
		capability         bool
		want               []string // text|last|truncated per event
	}{
		{"matches", strings.Repeat("x", 9000), strings.Repeat("x", 9000) + "\n[exit 1]", true,
			[]string{"4000|false|false", "4000|false|false", "1009|true|false"}},
		{"differs", strings.Repeat("x", 9000), strings.Repeat("y", 9000), true,
			[]string{"4000|false|false", "4000|false|false", "0|true|true"}},
		{"short live output sends nothing early", "short\n", "short\n", true, []string{"6|true|false"}},
		{"no capability", strings.Repeat("x", 9000), strings.Repeat("x", 9000), false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := backpressure.NewMixed("run-events", protocol.WorkerEvents, EventPolicy, backpressure.System)
			p := NewPool(Options{NewID: func() string { return "id" }, Now: time.Now, Events: events})
			p.output.Store(tc.capability)
			s := newTurnSink(p, &activeRun{id: "run-1", sessionID: "s"}, nil)
			for rest := tc.live; rest != ""; { // in pieces of 7 bytes
				n := min(7, len(rest))
				if err := s.ToolOutput("a1", rest[:n]); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
			if err := s.output("a1", tc.result); err != nil {
				t.Fatal(err)
			}
			var got []string
			for events.Len() > 0 {
				e := <-events.C()
				got = append(got, fmt.Sprintf("%d|%v|%v", len(e.Text), e.LastPart, e.Partial))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("events %q; want %q", got, tc.want)
			}
		})
	}
}
