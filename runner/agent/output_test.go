package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// outSink records live output parts and exits.
type outSink struct {
	parts []string
	exits []string
	fail  bool
}

func (s *outSink) ToolOutput(id, text string) error {
	s.parts = append(s.parts, id+"|"+text)
	if s.fail {
		return errors.New("gone")
	}
	return nil
}
func (s *outSink) ToolExited(id string, code int, signal string) {
	s.exits = append(s.exits, fmt.Sprintf("%s|%d|%s", id, code, signal))
}

func (s *outSink) text() string {
	var b strings.Builder
	for _, p := range s.parts {
		_, t, _ := strings.Cut(p, "|")
		b.WriteString(t)
	}
	return b.String()
}

// TestLiveOutput: a command's output written in any split reaches the sink
// redacted as a whole (a secret split across writes included), in parts
// within the chunk bound cut at rune boundaries, then the exit.
func TestLiveOutput(t *testing.T) {
	secret := "sk-ant-api03-" + strings.Repeat("a1B2c3D4", 12)
	out := "build ok ✓ 漢字\nkey=" + secret + "\n" + strings.Repeat("é", 3000) + "\n"
	for _, step := range []int{1, 2, 3, 7, 100, 4096, len(out)} {
		s := &outSink{}
		o := &liveOutput{sink: s, id: "a1"}
		for rest := out; rest != ""; {
			n := min(step, len(rest))
			if k, err := o.Write([]byte(rest[:n])); k != n || err != nil {
				t.Fatalf("Write = %d, %v", k, err)
			}
			rest = rest[n:]
		}
		o.Exited(3, "")
		if got, want := s.text(), redact.String(out); got != want {
			t.Fatalf("step %d: shown %q\nwant %q", step, got, want)
		}
		if strings.Contains(s.text(), secret[10:40]) {
			t.Fatalf("step %d: the secret shows", step)
		}
		for _, p := range s.parts {
			_, text, _ := strings.Cut(p, "|")
			if !strings.HasPrefix(p, "a1|") || len(text) > LiveOutputChunkBytes || text == "" || !utf8.ValidString(text) {
				t.Fatalf("step %d: part %q", step, p[:min(len(p), 40)])
			}
		}
		if !reflect.DeepEqual(s.exits, []string{"a1|3|"}) {
			t.Fatalf("exits %q", s.exits)
		}
	}
}

// TestLiveOutputBound: past LiveOutputBytes one marker part ends the live
// output; nothing follows it but the exit.
func TestLiveOutputBound(t *testing.T) {
	s := &outSink{}
	o := &liveOutput{sink: s, id: "a1"}
	line := strings.Repeat("x", 99) + "\n"
	for range 2000 { // 200 KB
		o.Write([]byte(line))
	}
	o.Exited(0, "")
	text := s.text()
	if !strings.HasSuffix(text, LiveOutputCutMarker) {
		t.Fatalf("no cut marker at the end: %q", text[max(0, len(text)-80):])
	}
	if shown := len(text) - len(LiveOutputCutMarker); shown != LiveOutputBytes || text[:shown] != strings.Repeat(line, 2000)[:shown] {
		t.Fatalf("shown %d bytes before the marker; want the first %d", shown, LiveOutputBytes)
	}
	if len(s.exits) != 1 {
		t.Fatalf("exits %q", s.exits)
	}
	// A sink that fails stops the live output at once.
	f := &outSink{fail: true}
	o = &liveOutput{sink: f, id: "a2"}
	o.Write([]byte(strings.Repeat("y", 10000)))
	o.Write([]byte("more"))
	o.Exited(1, "")
	if len(f.parts) != 1 || len(f.exits) != 0 {
		t.Fatalf("after a failure: %d parts, exits %q", len(f.parts), f.exits)
	}
}

// streamer is a tool that streams: it writes to the context's Output.
type streamer struct{ got *[]bool }

func (streamer) Name() string                    { return "stream" }
func (streamer) Description() string             { return "stream" }
func (streamer) Schema() json.RawMessage         { return json.RawMessage(`{"type":"object"}`) }
func (streamer) Mutating() bool                  { return false }
func (streamer) Describe(json.RawMessage) string { return "stream" }
func (streamer) StreamsOutput()                  {}
func (t streamer) Run(ctx context.Context, _ json.RawMessage) tools.Result {
	out := tools.OutputFrom(ctx)
	*t.got = append(*t.got, out != nil)
	if out != nil {
		out.Write([]byte("live line\n"))
		out.Exited(0, "")
	}
	return tools.Result{Text: "live line\n", Summary: "stream: ok"}
}

// quiet is a tool that does not stream: it reports whether its context
// carries an Output (a call inside it would write there).
type quiet struct{ got *[]bool }

func (quiet) Name() string                    { return "quiet" }
func (quiet) Description() string             { return "quiet" }
func (quiet) Schema() json.RawMessage         { return json.RawMessage(`{"type":"object"}`) }
func (quiet) Mutating() bool                  { return false }
func (quiet) Describe(json.RawMessage) string { return "quiet" }
func (t quiet) Run(ctx context.Context, _ json.RawMessage) tools.Result {
	*t.got = append(*t.got, tools.OutputFrom(ctx) != nil)
	return tools.Result{Text: "ok", Summary: "quiet: ok"}
}

// recOut is a recorder that takes live output.
type recOut struct{ *recorder }

func (r recOut) ToolOutput(id, text string) error {
	r.events = append(r.events, "output "+id+" "+text)
	return nil
}
func (r recOut) ToolExited(id string, code int, signal string) {
	r.events = append(r.events, fmt.Sprintf("exited %s %d", id, code))
}

// TestLiveOutputRun: only a streaming tool of the run's own loop gets an
// Output, and only when the sink shows output; its parts arrive between
// the call's start and finish. A tool that does not stream sees none,
// even under a context that carried one (a call inside it).
func TestLiveOutputRun(t *testing.T) {
	script := `{"responses":[{"steps":[{"tool_call":{"name":"stream","arguments":{}}},{"tool_call":{"name":"quiet","arguments":{}}}]},{"steps":[{"text":"ok"}]}]}`
	var streamed, quieted []bool
	cfg := Config{Provider: fixtureprov.New(parse(t, script)), Tools: tools.NewSet(streamer{&streamed}, quiet{&quieted})}
	rec := &recorder{}
	outer := tools.WithOutput(context.Background(), &liveOutput{sink: &outSink{}, id: "outer"})
	if _, err := Run(outer, cfg, nil, "go", recOut{rec}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(streamed, []bool{true}) || !reflect.DeepEqual(quieted, []bool{false}) {
		t.Fatalf("Output given: stream %v, quiet %v", streamed, quieted)
	}
	var got []string
	for _, e := range rec.events {
		if strings.HasPrefix(e, "tool ") || strings.HasPrefix(e, "done ") || strings.HasPrefix(e, "output ") || strings.HasPrefix(e, "exited ") {
			got = append(got, strings.SplitN(e, " ", 3)[0]+" "+strings.SplitN(e, " ", 3)[1])
		}
	}
	want := []string{"tool id-1", "output id-1", "exited id-1", "done id-1", "tool id-2", "done id-2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events %q\nwant %q", got, want)
	}
	// A sink without OutputSink: the streaming tool gets none.
	streamed = nil
	cfg.Provider = fixtureprov.New(parse(t, script))
	if _, err := Run(outer, cfg, nil, "go", &recorder{}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(streamed, []bool{false}) {
		t.Fatalf("without OutputSink: stream got an Output: %v", streamed)
	}
}
