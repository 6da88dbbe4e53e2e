package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// answerer answers every approval with d and records what it was asked.
type answerer struct {
	d         Decision
	asked     int
	grantable []bool
	reasons   []string
}

func (a *answerer) Approve(ctx context.Context, _, _ string) (Decision, error) {
	a.asked++
	a.grantable = append(a.grantable, Grantable(ctx))
	a.reasons = append(a.reasons, Reason(ctx))
	return a.d, nil
}

func ask(t *testing.T, ap Approver, g *Grants, tool, args, reason string) Decision {
	t.Helper()
	d, err := Ask(context.Background(), ap, g, tool, json.RawMessage(args), "summary", reason)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A session grant covers the exact call it was given for, and nothing
// else: another spelling of the command, a longer command that begins with
// it, another tool, other arguments beside the command.
func TestGrantExact(t *testing.T) {
	const granted = `{"command":"ls -la"}`
	g := NewGrants()
	yes := &answerer{d: AllowedForSession}
	if d := ask(t, yes, g, "shell", granted, ""); d != Allowed || yes.asked != 1 || !yes.grantable[0] {
		t.Fatalf("the granting answer: %v, asked %d, grantable %v", d, yes.asked, yes.grantable)
	}
	no := &answerer{d: Denied}
	// The same call, also in another JSON layout, runs without asking.
	for _, same := range []string{granted, `{ "command" : "ls -la" }`, "{\n\"command\":\"ls -la\"}", `{"command":"ls \u002dla"}`} {
		if d := ask(t, no, g, "shell", same, ""); d != Allowed || no.asked != 0 {
			t.Errorf("%s: %v, asked %d; want allowed without asking", same, d, no.asked)
		}
	}
	for _, tc := range []struct{ tool, args string }{
		{"shell", `{"command":"ls  -la"}`},
		{"shell", `{"command":"ls -la "}`},
		{"shell", `{"command":"ls -la; rm -rf ~"}`},
		{"shell", `{"command":"ls -l"}`},
		{"shell", `{"command":"ls -la","cwd":"/"}`},
		{"shell", `{"command":"ls -la","timeout":1}`},
		{"shell", `{"command":"LS -LA"}`},
		{"shell", `{"cmd":"ls -la"}`},
		{"write_file", `{"command":"ls -la"}`},
		{"shell", `["ls -la"]`},
		{"shell", `"ls -la"`},
	} {
		before := no.asked
		if d := ask(t, no, g, tc.tool, tc.args, ""); d != Denied || no.asked != before+1 {
			t.Errorf("%s %s was covered by the grant of %s", tc.tool, tc.args, granted)
		}
	}
}

// Numbers keep their spelling: 1 and 1.0 are different arguments.
func TestGrantNumbersExact(t *testing.T) {
	g := NewGrants()
	ask(t, &answerer{d: AllowedForSession}, g, "shell", `{"command":"x","timeout":1}`, "")
	no := &answerer{d: Denied}
	if ask(t, no, g, "shell", `{"command":"x","timeout":1.0}`, ""); no.asked != 1 {
		t.Error("timeout 1.0 was covered by the grant of timeout 1")
	}
}

// A call a protection forced to ask is never granted and never covered,
// and the approver is told it may not offer the grant.
func TestGrantNeverForProtected(t *testing.T) {
	const args = `{"command":"rm -rf /tmp/x"}`
	g := NewGrants()
	yes := &answerer{d: AllowedForSession}
	if d := ask(t, yes, g, "shell", args, "recursive delete outside the workspace"); d != Allowed {
		t.Fatalf("allowed once: %v", d)
	}
	if yes.grantable[0] || g.Len() != 0 {
		t.Fatalf("a protected call was grantable (%v) or granted (%d)", yes.grantable[0], g.Len())
	}
	// The approver sees why (a front door that shows only the call says
	// it beside), and no reason where the approval mode asked.
	if yes.reasons[0] != "recursive delete outside the workspace" {
		t.Errorf("the approver was given the reason %q", yes.reasons[0])
	}
	// Even granted without the protection, the protected call asks.
	ask(t, yes, g, "shell", args, "")
	if yes.reasons[1] != "" {
		t.Errorf("a call the mode asked about has the reason %q", yes.reasons[1])
	}
	no := &answerer{d: Denied}
	if d := ask(t, no, g, "shell", args, "recursive delete outside the workspace"); d != Denied || no.asked != 1 {
		t.Errorf("a protected call was covered by a grant: %v, asked %d", d, no.asked)
	}
}

// Without a set (a front door that keeps none, a read-only mode) nothing
// is grantable and the answer allows once; arguments that are not one
// valid JSON object are never grantable; no approver refuses.
func TestGrantNotGrantable(t *testing.T) {
	yes := &answerer{d: AllowedForSession}
	if d := ask(t, yes, nil, "shell", `{"command":"ls"}`, ""); d != Allowed || yes.grantable[0] {
		t.Errorf("without grants: %v, grantable %v", d, yes.grantable[0])
	}
	g := NewGrants()
	for _, bad := range []string{`{"command":"ls"`, "{\"command\":\"ls\xff\"}", `null`, `{"command":"ls"} {}`} {
		yes.grantable = nil
		if d := ask(t, yes, g, "shell", bad, ""); d != Allowed || yes.grantable[0] || g.Len() != 0 {
			t.Errorf("%q: %v, grantable %v, %d grants", bad, d, yes.grantable, g.Len())
		}
	}
	if d := ask(t, nil, g, "shell", `{"command":"ls"}`, ""); d != Refused {
		t.Errorf("no approver: %v", d)
	}
}

// Only AllowedForSession grants: allow once, a denial, an expiry or a
// cancelled approval grants nothing.
func TestGrantOnlyBySessionAnswer(t *testing.T) {
	for _, d := range []Decision{Allowed, Denied, Expired, Cancelled} {
		g := NewGrants()
		ask(t, &answerer{d: d}, g, "shell", `{"command":"ls"}`, "")
		if g.Len() != 0 {
			t.Errorf("%v granted", d)
		}
	}
	g := NewGrants()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Ask(ctx, &answerer{d: AllowedForSession}, g, "shell", json.RawMessage(`{"command":"ls"}`), "s", ""); err != nil || g.Len() != 0 {
		t.Errorf("a grant answered after the run ended was kept: %v, %d", err, g.Len())
	}
}

// The set is bounded: past MaxGrants the oldest grant is forgotten.
func TestGrantsBounded(t *testing.T) {
	g := NewGrants()
	yes := &answerer{d: AllowedForSession}
	for i := range MaxGrants + 10 {
		ask(t, yes, g, "shell", fmt.Sprintf(`{"command":"echo %d"}`, i), "")
	}
	if g.Len() != MaxGrants {
		t.Fatalf("%d grants held", g.Len())
	}
	no := &answerer{d: Denied}
	ask(t, no, g, "shell", `{"command":"echo 0"}`, "")
	ask(t, no, g, "shell", fmt.Sprintf(`{"command":"echo %d"}`, MaxGrants+9), "")
	if no.asked != 1 {
		t.Errorf("asked %d times; want the oldest forgotten and the newest kept", no.asked)
	}
}

func FuzzKey(f *testing.F) {
	f.Add(`{"command":"ls"}`, `{"command":"ls"}`)
	f.Add(`{"command":"ls"}`, `{"command":"ls "}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		ka, oka := Key("shell", json.RawMessage(a))
		kb, okb := Key("shell", json.RawMessage(b))
		if !oka || !okb || ka != kb {
			return
		}
		// Equal keys: the arguments decode to the same object.
		var va, vb map[string]any
		if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
			t.Fatalf("keyed arguments that do not decode: %q %q", a, b)
		}
		ja, _ := json.Marshal(va)
		jb, _ := json.Marshal(vb)
		if string(ja) != string(jb) {
			t.Fatalf("%q and %q share a key", a, b)
		}
	})
}
