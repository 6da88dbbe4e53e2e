package history

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// projectDetail is project with detail d, the usage counts of usage
// entries shown as "kind:in/out/cached/reasoning/context/window".
func projectDetail(t *testing.T, d Detail, recs ...Record) string {
	t.Helper()
	p := build(t, d, recs...)
	var out []string
	for _, pt := range p.parts {
		m := p.msgs[pt.msg]
		if u := m.usage; u != nil {
			ctx := "-"
			if u.HasContext {
				ctx = fmt.Sprint(u.ContextTokens)
			}
			out = append(out, fmt.Sprintf("%s:%d/%d/%d/%d/%s/%d", m.kind, u.InputTokens, u.OutputTokens, u.CachedInputTokens, u.ReasoningTokens, ctx, u.Window))
			continue
		}
		if m.session {
			out = append(out, fmt.Sprintf("%s(session):%s:%v", m.kind, pt.text, m.partial))
			continue
		}
		out = append(out, fmt.Sprintf("%s:%s:%v", m.kind, pt.text, m.partial))
	}
	return strings.Join(out, " | ")
}

// detailTurn is a turn with an allowed approval, a call's output and two
// responses' usage and a subagent's, in the order the turn sink writes
// them, and a second turn whose only usage is a compaction's.
func detailTurn(result string) []Record {
	return []Record{
		{Type: TypeInput, RunID: "r", MessageID: "u", Text: "q"},
		{Type: TypeUsage, RunID: "r", Model: "m1", InputTokens: 100, OutputTokens: 10, CachedInputTokens: 50, ReasoningTokens: 2},
		{Type: TypeAssistant, RunID: "r", MessageID: "a", Text: "looking", HasText: true},
		{Type: TypeToolCall, RunID: "r", CallID: "c", Name: "shell", Arguments: "{}"},
		{Type: TypeActivity, RunID: "r", ActivityID: "t", Kind: "tool", State: "started", Name: "shell", Summary: "shell: ls"},
		{Type: TypeApproval, RunID: "r", Summary: "shell: ls"},
		{Type: TypeToolResult, RunID: "r", CallID: "c", Text: result},
		{Type: TypeActivity, RunID: "r", ActivityID: "t", Kind: "tool", State: "completed", Name: "shell", Summary: "shell: exit 0"},
		{Type: TypeUsage, RunID: "r", Model: "m2", InputTokens: 200, OutputTokens: 20},
		{Type: TypeSideUsage, RunID: "r", Kind: "subagent", Model: "m3", InputTokens: 7, OutputTokens: 3},
		{Type: TypeAssistant, RunID: "r", MessageID: "b", Text: "done", HasText: true},
		{Type: TypeRunCompleted, RunID: "r", Outcome: "completed"},
		{Type: TypeInput, RunID: "r2", MessageID: "u2", Text: "again"},
		{Type: TypeSideUsage, RunID: "r2", Kind: "compaction", InputTokens: 1000, OutputTokens: 5},
		{Type: TypeRunCompleted, RunID: "r2", Outcome: "completed"},
	}
}

// TestDetailEntries: each Detail adds only its own entries: the approval
// before its call's activity, the output after it, one usage entry at the
// end of the turn with its sums (a subagent's and a compaction's responses
// included), the last own response's context (none: null) and that
// model's window; the zero Detail is version 1.
func TestDetailEntries(t *testing.T) {
	window := func(model string) int64 { return map[string]int64{"m2": 4000}[model] }
	recs := detailTurn("a\nb\n")
	for _, c := range []struct {
		d    Detail
		want string
	}{
		{Detail{}, "user:q:false | assistant:looking:false | activity:shell completed: exit 0:false | assistant:done:false | user:again:false"},
		{Detail{Output: true}, "user:q:false | assistant:looking:false | approval:shell: ls:false | activity:shell completed: exit 0:false | activity_output:a\nb\n:false | assistant:done:false | user:again:false"},
		{Detail{Usage: true, Window: window}, "user:q:false | assistant:looking:false | activity:shell completed: exit 0:false | assistant:done:false | usage:307/33/50/2/220/4000 | user:again:false | usage:1000/5/0/0/-/0"},
		{Detail{Usage: true}, "user:q:false | assistant:looking:false | activity:shell completed: exit 0:false | assistant:done:false | usage:307/33/50/2/220/0 | user:again:false | usage:1000/5/0/0/-/0"},
	} {
		if got := projectDetail(t, c.d, recs...); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.d, got, c.want)
		}
	}
}

// TestDetailOutputBounds: an output is redacted whole, then cut to the
// live bound (partial says it went on); an approval with no call running
// stands alone; a tool_result not followed by its call's end, or of
// another run, gives no call an output.
func TestDetailOutputBounds(t *testing.T) {
	const secret = "ghp_" + "Zq8Xw3Lm9Vt2Rk7Np4Hs6Jd1Fb5Gc0Ya8Ue3"
	long := strings.Repeat("é", protocol.ActivityOutputBytes) // past the bound, two bytes a rune
	got := projectDetail(t, Detail{Output: true}, detailTurn(secret+" "+long)...)
	i := strings.Index(got, "activity_output:")
	if i < 0 {
		t.Fatalf("no output: %.200s", got)
	}
	out := got[i+len("activity_output:"):]
	out = out[:strings.Index(out, " | ")]
	if strings.Contains(out, secret[:12]) || !strings.HasPrefix(out, "[REDACTED]") || !strings.HasSuffix(out, ":true") ||
		len(strings.TrimSuffix(out, ":true")) > protocol.ActivityOutputBytes || len(strings.TrimSuffix(out, ":true")) < protocol.ActivityOutputBytes-8 {
		t.Fatalf("output entry of %d bytes: %.80q...%q", len(out), out, out[max(0, len(out)-20):])
	}
	got = projectDetail(t, Detail{Output: true},
		Record{Type: TypeInput, RunID: "r", MessageID: "u", Text: "q"},
		Record{Type: TypeApproval, RunID: "r", Summary: "shell: alone"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "t", Kind: "tool", State: "started", Name: "shell"},
		Record{Type: TypeToolResult, RunID: "r", CallID: "c", Text: "orphan"},
		Record{Type: TypeDiagnostic, RunID: "r", Code: "execution_failed"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "t", Kind: "tool", State: "failed", Name: "shell"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "t2", Kind: "tool", State: "started", Name: "shell"},
		Record{Type: TypeToolResult, RunID: "other", CallID: "c", Text: "another run's"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "t2", Kind: "tool", State: "completed", Name: "shell"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "sub", Kind: "subagent", State: "started", Name: "helper"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "t3", Kind: "tool", State: "started", Name: "shell"},
		Record{Type: TypeApproval, RunID: "r", Summary: "shell: nested", Scope: "session"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "t3", Kind: "tool", State: "completed", Name: "shell"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "sub", Kind: "subagent", State: "completed", Name: "helper"},
		Record{Type: TypeRunCompleted, RunID: "r", Outcome: "failed"},
	)
	want := "user:q:false | approval:shell: alone:false | activity:shell failed:false | diagnostic:execution_failed:false | activity:shell completed:false" +
		" | activity:helper completed:false | approval(session):shell: nested:false | activity:shell completed:false"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestDetailOutputsBounded: a projection keeps the newest outputs only,
// at most maxProjectedOutputs of them and maxProjectedOutputBytes in all;
// the older calls show without output, and the session still opens.
func TestDetailOutputsBounded(t *testing.T) {
	for _, c := range []struct {
		calls, size, kept int
	}{
		{maxProjectedOutputs + 5, 10, maxProjectedOutputs},
		{maxProjectedOutputBytes/protocol.ActivityOutputBytes + 3, protocol.ActivityOutputBytes, maxProjectedOutputBytes / protocol.ActivityOutputBytes},
	} {
		recs := []Record{{Type: TypeInput, RunID: "r", MessageID: "u", Text: "q"}}
		for i := range c.calls {
			id := fmt.Sprint(i)
			text := fmt.Sprintf("%-*d", c.size, i)
			recs = append(recs,
				Record{Type: TypeActivity, RunID: "r", ActivityID: id, Kind: "tool", State: "started", Name: "shell"},
				Record{Type: TypeToolResult, RunID: "r", CallID: id, Text: text},
				Record{Type: TypeActivity, RunID: "r", ActivityID: id, Kind: "tool", State: "completed", Name: "shell"})
		}
		recs = append(recs, Record{Type: TypeRunCompleted, RunID: "r", Outcome: "completed"})
		got := strings.Split(projectDetail(t, Detail{Output: true}, recs...), " | ")
		var outs []string
		for _, e := range got {
			if strings.HasPrefix(e, "activity_output:") {
				outs = append(outs, strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(e, "activity_output:"), ":false")))
			}
		}
		if len(outs) != c.kept || outs[0] != fmt.Sprint(c.calls-c.kept) || outs[len(outs)-1] != fmt.Sprint(c.calls-1) {
			t.Fatalf("%d calls of %d bytes: %d outputs kept, from %q to %q; want the newest %d", c.calls, c.size, len(outs), outs[0], outs[len(outs)-1], c.kept)
		}
	}
}

// TestUsageEntryPage: a usage entry serializes its counts (context_window
// null when unknown) and its size is what the page layout counted.
func TestUsageEntryPage(t *testing.T) {
	for _, window := range []int64{0, 1_050_000} {
		b := NewBuilder(Detail{Usage: true, Output: true, Window: func(string) int64 { return window }})
		recs := detailTurn("x")
		recs = append(recs[:6:6], append([]Record{{Type: TypeApproval, RunID: "r", Summary: "again", Scope: "session"}}, recs[6:]...)...)
		for _, r := range recs {
			r.SessionID = "s"
			b.Add(&r)
		}
		p, code := b.Finish("s", "v1-x", 1, false)
		if code != "" {
			t.Fatal(code)
		}
		raw, code := p.AppendPage(nil, nil)
		if code != "" {
			t.Fatal(code)
		}
		for i := range p.parts {
			if n := len(appendEntry(nil, &p.msgs[p.parts[i].msg], &p.parts[i])); n != int(p.parts[i].size) {
				t.Fatalf("entry %d: %d bytes, counted %d", i, n, p.parts[i].size)
			}
		}
		var page struct {
			Entries []map[string]any `json:"entries"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			t.Fatal(err)
		}
		var u map[string]any
		var scopes []any
		for _, e := range page.Entries {
			switch e["kind"] {
			case "usage":
				if u == nil {
					u = e
				} else if e["context_tokens"] != nil || e["input_tokens"] != 1000.0 {
					t.Fatalf("second usage entry %v; want the compaction's counts and no context", e)
				}
			case "approval":
				scopes = append(scopes, e["scope"])
			default:
				if _, ok := e["scope"]; ok {
					t.Fatalf("scope on %v", e)
				}
			}
		}
		if fmt.Sprint(scopes) != "[once session]" {
			t.Fatalf("approval scopes %v", scopes)
		}
		wantWindow := any(nil)
		if window > 0 {
			wantWindow = float64(window)
		}
		if u == nil || u["input_tokens"] != 307.0 || u["output_tokens"] != 33.0 || u["cached_input_tokens"] != 50.0 ||
			u["reasoning_tokens"] != 2.0 || u["context_tokens"] != 220.0 || u["context_window"] != wantWindow || u["text"] != "" {
			t.Fatalf("usage entry %v", u)
		}
	}
}
