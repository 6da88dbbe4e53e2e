package codemode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/magi-code/magi-code/runner/agent"
	"github.com/magi-code/magi-code/runner/fixture"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// recordingProvider keeps every request it forwards.
type recordingProvider struct {
	provider.Provider
	mu   sync.Mutex
	reqs []provider.Request
}

func (p *recordingProvider) Stream(ctx context.Context, req provider.Request, emit func(provider.StreamEvent) error) error {
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	p.mu.Unlock()
	return p.Provider.Stream(ctx, req, emit)
}

// turnSink records activities. The embedded interface stays nil: a sink
// method this flow does not use panics instead of passing silently.
type turnSink struct {
	agent.Sink
	activities []string // "id kind name state summary"
	next       int
}

func (s *turnSink) SegmentStart(string)             {}
func (s *turnSink) TextDelta(string, string) error  { return nil }
func (s *turnSink) SegmentEnd(string, string) error { return nil }
func (s *turnSink) ToolStarted(id, name, _ string, _ agent.ToolCall) error {
	s.activities = append(s.activities, id+" tool "+name+" started")
	return nil
}
func (s *turnSink) ToolFinished(id, name, summary, _ string, _, failed bool) error {
	s.activities = append(s.activities, id+" tool "+name+" "+state(failed)+" "+summary)
	return nil
}
func (s *turnSink) Activity(id, kind, name, st, summary string) error {
	s.activities = append(s.activities, id+" "+kind+" "+name+" "+st+" "+summary)
	return nil
}

func state(failed bool) string {
	if failed {
		return agent.StateFailed
	}
	return agent.StateCompleted
}

// sinkActivity is the adapter an integrator writes: Code Mode calls become
// agent activities of kind tool (the agent would also count them against
// the run's 4096 identities).
type sinkActivity struct{ s *turnSink }

func (a sinkActivity) Start(name, summary string) (string, error) {
	a.s.next++
	id := "code-" + strconv.Itoa(a.s.next)
	return id, a.s.Activity(id, agent.KindTool, name, agent.StateStarted, summary)
}

func (a sinkActivity) Finish(id, name, summary string, failed bool) error {
	return a.s.Activity(id, agent.KindTool, name, state(failed), summary)
}

// A turn whose run_code program reads three files, filters them and
// returns ten lines: one activity for the program, three for the reads,
// and only the ten lines reach the next provider call.
func TestTurnThreeReadsTenLines(t *testing.T) {
	cwd := t.TempDir()
	var want []string
	for f := range 3 {
		var b strings.Builder
		for i := range 2000 { // about 60 KB per file
			if i%300 == 1 && len(want) < 10 {
				line := fmt.Sprintf("f%d:%d ERROR disk", f, i)
				want = append(want, line)
				b.WriteString(line + "\n")
				continue
			}
			fmt.Fprintf(&b, "f%d:%d info all is well\n", f, i)
		}
		if err := os.WriteFile(filepath.Join(cwd, fmt.Sprintf("log%d.txt", f)), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code := `const hits = [];
for (const f of ["log0.txt", "log1.txt", "log2.txt"])
  for (const l of tools.read_file({path: f}).split("\n"))
    if (l.includes("ERROR")) hits.push(l);
return hits.slice(0, 10).join("\n");`
	script := fmt.Sprintf(`{"responses":[{"steps":[{"tool_call":{"name":"run_code","arguments":{"code":%q}}}]},{"steps":[{"text":"done"}]}]}`, code)
	sc, err := fixture.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	prov := &recordingProvider{Provider: fixtureprov.New(sc)}
	direct := tools.Builtin(tools.Options{Cwd: cwd})
	read, _ := direct.Get("read_file")
	sink := &turnSink{}
	rc := New(Options{Tools: []tools.Tool{read}}).With(nil, sinkActivity{sink})
	set := tools.NewSet(rc) // direct mode offers run_code only

	res, err := agent.Run(context.Background(), agent.Config{Provider: prov, Tools: set, Approval: agent.ApprovalAsk}, nil, "find errors", sink)
	if err != nil || res.Outcome != agent.Completed {
		t.Fatalf("run = %v, %v", res.Outcome, err)
	}
	if len(prov.reqs) != 2 {
		t.Fatalf("provider calls = %d; want 2", len(prov.reqs))
	}
	msgs := prov.reqs[1].Messages
	last := msgs[len(msgs)-1]
	if last.Role != provider.RoleTool || last.ToolName != "run_code" || last.Text != strings.Join(want, "\n") {
		t.Fatalf("tool message to the provider = %+v; want only the ten lines", last)
	}
	for _, m := range msgs {
		if strings.Contains(m.Text, "all is well") {
			t.Fatal("file content beyond the ten lines reached the provider")
		}
	}
	var program, reads int
	for _, a := range sink.activities {
		switch {
		case strings.Contains(a, " tool run_code completed "):
			program++
		case strings.Contains(a, " tool read_file completed "):
			reads++
		}
	}
	if program != 1 || reads != 3 || len(sink.activities) != 8 {
		t.Errorf("activities = %q; want run_code started/completed and three reads started/completed", sink.activities)
	}
}
