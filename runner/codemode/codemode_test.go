package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/magi-code/magi-code/runner/tools"
)

// A program reads three files with the real read_file, filters them and
// returns ten lines: only those come back, and each read is one activity.
func TestReadThreeFilesReturnsTenLines(t *testing.T) {
	cwd := t.TempDir()
	var want []string
	for f := range 3 {
		var lines []string
		for i := range 200 {
			line := fmt.Sprintf("file%d line%d noise", f, i)
			if i%50 == 7 && len(want) < 10 {
				line = fmt.Sprintf("file%d line%d MATCH", f, i)
				want = append(want, line)
			}
			lines = append(lines, line)
		}
		if err := os.WriteFile(filepath.Join(cwd, fmt.Sprintf("f%d.txt", f)), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if len(want) != 10 {
		t.Fatalf("fixture has %d matching lines; want 10", len(want))
	}
	builtin := tools.Builtin(tools.Options{Cwd: cwd})
	read, _ := builtin.Get("read_file")
	rec := &recorder{}
	tl := New(Options{Tools: []tools.Tool{read}, Activity: rec})

	res := run(t, tl, `
		const out = [];
		for (const f of ["f0.txt", "f1.txt", "f2.txt"]) {
			for (const line of tools.read_file({ path: f }).split("\n")) {
				if (line.includes("MATCH")) out.push(line);
			}
		}
		return out.slice(0, 10).join("\n");`)
	if res.IsError || res.Text != strings.Join(want, "\n") {
		t.Fatalf("result = %+v; want the ten lines", res)
	}
	if res.Summary != "run_code: 3 tool calls" {
		t.Errorf("summary = %q", res.Summary)
	}
	if len(rec.started) != 3 || len(rec.ended) != 3 {
		t.Fatalf("activities started %v, ended %v; want 3 each", rec.started, rec.ended)
	}
	for i, e := range rec.ended {
		if !strings.HasPrefix(e, fmt.Sprintf("act-%d read_file ", i+1)) || !strings.HasSuffix(e, " false") || strings.Contains(e, "noise") {
			t.Errorf("activity end %d = %q: want a safe read_file summary, not failed", i, e)
		}
	}
}

func TestTimeLimitStopsInfiniteLoop(t *testing.T) {
	defer goleak.VerifyNone(t)
	tl := New(Options{Timeout: 50 * time.Millisecond})
	for _, code := range []string{
		`for (;;) {}`,
		`while (true) { try { for (;;) {} } catch (e) {} }`, // the interrupt is not catchable
		`await new Promise(() => { for (;;) {} })`,
		`for (;;) await 0`, // the loop runs in promise jobs
		`const o = { get x() { for (;;) {} } }; return o`, // while reading the result
	} {
		res := run(t, tl, code)
		if !res.IsError || res.Summary != "run_code: time limit" || !strings.Contains(res.Text, "time limit reached") {
			t.Errorf("%s: result = %+v; want a time-limit error", code, res)
		}
	}
	// The tool is reusable after a stop.
	if res := run(t, tl, `return "again"`); res.IsError || res.Text != "again" {
		t.Errorf("after a stop: %+v", res)
	}
}

// ctx cancellation (turn.cancel) stops a looping program and a pending
// tool call, and Run returns.
func TestCancelStopsLoopAndPendingCall(t *testing.T) {
	defer goleak.VerifyNone(t)
	ready := make(chan struct{}, 1)
	signal := &fakeTool{name: "ready", run: func(context.Context, json.RawMessage) tools.Result {
		ready <- struct{}{}
		return tools.Result{Text: "go"}
	}}
	sawCancel := make(chan bool, 1)
	block := &fakeTool{name: "block", run: func(ctx context.Context, _ json.RawMessage) tools.Result {
		ready <- struct{}{}
		<-ctx.Done()
		sawCancel <- true
		return tools.Result{Text: "cancelled", IsError: true, Summary: "block: cancelled"}
	}}
	rec := &recorder{}
	tl := New(Options{Tools: []tools.Tool{signal, block}, Activity: rec})
	for _, code := range []string{
		`tools.ready(); for (;;) {}`,
		`try { tools.block() } catch (e) {} for (;;) {}`,
	} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		var res tools.Result
		go func() {
			defer close(done)
			res = runCtx(ctx, t, tl, code)
		}()
		<-ready
		cancel()
		<-done
		if !res.IsError || res.Summary != "run_code: cancelled" {
			t.Errorf("%s: result = %+v; want cancelled", code, res)
		}
	}
	// A ctx that already ended runs nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := runCtx(ctx, t, tl, `tools.ready()`); res.Summary != "run_code: cancelled" || signal.count() != 1 {
		t.Errorf("ended ctx: %+v, ready calls %d", res, signal.count())
	}
	if !<-sawCancel {
		t.Error("the pending tool call did not see ctx end")
	}
	if last := rec.ended[len(rec.ended)-1]; !strings.HasSuffix(last, "block: cancelled true") {
		t.Errorf("pending call's activity = %q; want failed", last)
	}
}

func TestRunawayAllocationStopped(t *testing.T) {
	tl := New(Options{Timeout: 5 * time.Minute, MaxHeapBytes: 64 << 20}) // a loaded machine must not turn the memory stop into a timeout
	for _, code := range []string{
		`let a = []; for (;;) a.push("x".repeat(1e6))`,
		`let s = "x"; for (;;) s += s`,
		`let o = {}; for (let i = 0; ; i++) o["k" + i] = [i, i, i]`,
	} {
		res := run(t, tl, code)
		if !res.IsError {
			t.Fatalf("%s: result = %+v; want an error", code, res)
		}
		if res.Summary != "run_code: memory limit" || !strings.Contains(res.Text, "memory limit reached (64 MiB)") {
			t.Errorf("%s: result = %+v; want a memory-limit error", code, res)
		}
	}
	if res := run(t, tl, `return 1`); res.Text != "1" {
		t.Errorf("after a stop: %+v", res)
	}
}

// Built-ins that could build a huge result in one native call refuse it.
func TestAmplifyingBuiltinsRefused(t *testing.T) {
	tl := New(Options{MaxInternalLen: 1 << 20, Timeout: 5 * time.Minute}) // refusal, never the time limit, even on a loaded machine
	for _, code := range []string{
		`return "x".repeat(2e6).length`,
		`return "x".padEnd(2e6).length`,
		`return "x".padStart(2e6).length`,
		`return new Array(3e6).fill(0).length`,
		`return Array(1000).join("y".repeat(5000)).length`,
		`return Array(3000).fill("z".repeat(1000)).join("").length`,
		`const b = "b".repeat(1000); return "".concat(...Array(2000).fill(b)).length`,
		`const b = Array(1000).fill(1); return [].concat(...Array(2000).fill(b)).length`,
		`return Array(2000).fill(Array(1000).fill(1)).flat().length`,
		`return Array.from({length: 2e6}).length`,
		`return JSON.stringify(Array(2000).fill("q".repeat(1000))).length`,
		`return "a".repeat(1e5).replaceAll("", "bb".repeat(10)).length`,
		`return "a".repeat(1e5).replace(/(?:)/g, "bb".repeat(10)).length`,
		`return "a".repeat(2e6).split("").length`,
		`return String(Array(3000).fill("w".repeat(1000))).length`,
	} {
		res := run(t, tl, code)
		if !res.IsError || !strings.Contains(res.Text, "result too large") {
			t.Errorf("%s: result = %+v; want refused", code, res)
		}
	}
	// Look-alikes within the bound pass.
	for code, want := range map[string]string{
		`return "x".repeat(1000).length`:                    "1000",
		`return [1, 2, 3].join("-")`:                        "1-2-3",
		`return "abc".padStart(5, "*")`:                     "**abc",
		`return Array(3).fill(7)`:                           "[7,7,7]",
		`return [[1, [2]], 3].flat(Infinity)`:               "[1,2,3]",
		`return "a-b-c".replaceAll("-", "+")`:               "a+b+c",
		`return "a-b".replace(/-/g, "$&$&")`:                "a--b",
		`return "a,b".split(",")`:                           `["a","b"]`,
		`return JSON.stringify({a: [1, "x"]})`:              `{"a":[1,"x"]}`,
		`return Array.from("abc")`:                          `["a","b","c"]`,
		`return "a".concat("b", 1)`:                         "ab1",
		`return [1].concat([2], 3)`:                         "[1,2,3]",
		`return String([1, [2, 3]])`:                        "1,2,3",
		`const s = new Set([1, 2]); return Array.from(s)`:   "[1,2]",
		`return "x".repeat(0) + "|" + "".repeat(1e9) + "|"`: "||",
	} {
		if res := run(t, tl, code); res.IsError || res.Text != want {
			t.Errorf("%s: result = %+v; want %q", code, res, want)
		}
	}
}

func TestToolCallBound(t *testing.T) {
	echo := &fakeTool{name: "echo"}
	tl := New(Options{Tools: []tools.Tool{echo}, MaxToolCalls: 3})
	res := run(t, tl, `
		let ok = 0, code = "";
		for (let i = 0; i < 5; i++) {
			try { tools.echo({ i }); ok++ } catch (e) { code = e.code }
		}
		return ok + " " + code`)
	if res.IsError || res.Text != "3 limit" || echo.count() != 3 {
		t.Errorf("result = %+v, calls %d; want 3 calls then limit", res, echo.count())
	}
}

// Only Options.Tools are callable, whatever exists in direct mode; and the
// reverse (a Code Mode tool is not thereby a direct tool) is the caller's
// set, so only the first half is this package's to test.
func TestOnlyOptionsToolsCallable(t *testing.T) {
	cwd := t.TempDir()
	direct := tools.Builtin(tools.Options{Cwd: cwd})
	if _, ok := direct.Get("write_file"); !ok {
		t.Fatal("write_file missing from direct mode")
	}
	read, _ := direct.Get("read_file")
	tl := New(Options{Tools: []tools.Tool{read}, Approval: ApprovalAuto})

	res := run(t, tl, `return typeof tools.write_file + " " + typeof tools.read_file + " " + Object.keys(tools)`)
	if res.Text != "undefined function read_file" {
		t.Errorf("visible tools = %q", res.Text)
	}
	res = run(t, tl, `tools.write_file({ path: "x", content: "y" })`)
	if !res.IsError || !strings.Contains(res.Text, "TypeError") {
		t.Errorf("calling write_file = %+v; want a TypeError", res)
	}
	if _, err := os.Stat(filepath.Join(cwd, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("write_file ran: stat err = %v", err)
	}
	// The program cannot add or replace tools.
	res = run(t, tl, `"use strict"; tools.read_file = () => "mine"; return "replaced"`)
	if !res.IsError || !strings.Contains(res.Text, "TypeError") {
		t.Errorf("replacing a tool = %+v; want a TypeError", res)
	}
	if strings.Contains(tl.Description(), "write_file") {
		t.Error("the description declares write_file")
	}
}

func TestSandboxGlobals(t *testing.T) {
	tl := New(Options{})
	res := run(t, tl, `return [typeof require, typeof process, typeof module, typeof fetch,
		typeof Uint8Array, typeof ArrayBuffer, typeof setTimeout, typeof console.log, typeof tools]`)
	want := `["undefined","undefined","undefined","undefined","undefined","undefined","undefined","function","object"]`
	if res.Text != want {
		t.Errorf("globals = %s; want %s", res.Text, want)
	}
}

func TestApproval(t *testing.T) {
	cases := []struct {
		name     string
		approval string
		ap       *approver
		nilAp    bool
		want     string
		ran      int
	}{
		{"denied is catchable", "ask", &approver{allow: false}, false, "caught denied ToolError write", 0},
		{"allowed runs", "ask", &approver{allow: true}, false, "ran", 1},
		{"approver error", "ask", &approver{err: errors.New("gone")}, false, "caught approval_failed ToolError write", 0},
		{"nil approver denies", "ask", nil, true, "caught denied ToolError write", 0},
		{"auto never asks", ApprovalAuto, &approver{allow: false}, false, "ran", 1},
		{"unknown policy asks", "sometimes", &approver{allow: false}, false, "caught denied ToolError write", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			write := &fakeTool{name: "write", mutating: true}
			rec := &recorder{}
			opts := Options{Tools: []tools.Tool{write}, Approval: c.approval, Activity: rec}
			if !c.nilAp {
				opts.Approver = c.ap
			}
			res := run(t, New(opts), `
				try { tools.write({ path: "p" }); return "ran" }
				catch (e) { return "caught " + e.code + " " + e.name + " " + e.tool }`)
			if res.IsError || res.Text != c.want || write.count() != c.ran {
				t.Fatalf("result = %+v, ran %d; want %q, ran %d", res, write.count(), c.want, c.ran)
			}
			asked := c.approval != ApprovalAuto && !c.nilAp
			if c.nilAp {
				c.ap = &approver{}
			}
			if asked != (len(c.ap.asked) == 1) {
				t.Fatalf("asked = %v; want asked %v", c.ap.asked, asked)
			}
			if asked && c.ap.asked[0] != `write|from code: write {"path":"p"}` {
				t.Errorf("approval request = %q; want a summary starting with \"from code: \"", c.ap.asked[0])
			}
			if len(rec.ended) != 1 || strings.HasSuffix(rec.ended[0], " true") == (c.ran == 1) {
				t.Errorf("activity = %v", rec.ended)
			}
		})
	}
	// A read-only tool never asks.
	ap := &approver{}
	read := &fakeTool{name: "look"}
	if res := run(t, New(Options{Tools: []tools.Tool{read}, Approver: ap}), `return tools.look()`); res.IsError || len(ap.asked) != 0 {
		t.Errorf("read-only call: %+v, asked %v", res, ap.asked)
	}
	// An uncaught denial is the tool's error result.
	res := run(t, New(Options{Tools: []tools.Tool{&fakeTool{name: "w", mutating: true}}, Approver: &approver{}}), `tools.w()`)
	if !res.IsError || !strings.Contains(res.Text, "ToolError: w: denied by user") {
		t.Errorf("uncaught denial = %+v", res)
	}
	// Without an approver nobody could allow it: a refusal, not the
	// person's denial.
	res = run(t, New(Options{Tools: []tools.Tool{&fakeTool{name: "w", mutating: true}}}), `tools.w()`)
	if !res.IsError || !strings.Contains(res.Text, "ToolError: w: refused: nobody to approve the call") {
		t.Errorf("uncaught refusal = %+v", res)
	}
}

// Waiting for the user does not count against the time limit.
func TestApprovalWaitPausesTimeLimit(t *testing.T) {
	ap := &approver{allow: true, wait: func(ctx context.Context) {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
		}
	}}
	tl := New(Options{Tools: []tools.Tool{&fakeTool{name: "w", mutating: true}}, Approver: ap, Timeout: 150 * time.Millisecond})
	if res := run(t, tl, `tools.w(); return "done"`); res.IsError || res.Text != "done" {
		t.Errorf("result = %+v; want done", res)
	}
}

func TestActivityRefusalThrows(t *testing.T) {
	echo := &fakeTool{name: "echo"}
	rec := &recorder{limit: 2}
	tl := New(Options{Tools: []tools.Tool{echo}, Activity: rec})
	res := run(t, tl, `
		const got = [];
		for (let i = 0; i < 3; i++) { try { tools.echo(); got.push("ok") } catch (e) { got.push(e.code) } }
		return got.join(",")`)
	if res.Text != "ok,ok,limit" || echo.count() != 2 {
		t.Errorf("result = %+v, calls %d; want ok,ok,limit and 2 calls", res, echo.count())
	}
	res = run(t, New(Options{Tools: []tools.Tool{echo}, Activity: &recorder{limit: 1}}), `tools.echo(); tools.echo()`)
	if !res.IsError || !strings.Contains(res.Text, "activity limit reached") {
		t.Errorf("uncaught refusal = %+v", res)
	}
}

func TestOutput(t *testing.T) {
	tl := New(Options{MaxOutputBytes: 100})
	for _, c := range []struct{ code, want string }{
		{`console.log("a", 1, true, null, undefined, [1, "b"], {c: {d: 2}}); return {e: "f"}`, "a 1 true null null [1,\"b\"] {\"c\":{\"d\":2}}\n{\"e\":\"f\"}"},
		{`return undefined`, ""},
		{`console.log("only")`, "only"},
		{`return new Error("x")`, "Error: x"},
		{`return [NaN, Infinity, 1.5, 10n, () => 1]`, "[null,null,1.5,10,null]"},
		{`return {f() {}, u: undefined, n: null}`, `{"n":null}`},
		{`const a = []; a[0] = a; return a`, strings.Repeat("[", 32) + `"[too deep]"` + strings.Repeat("]", 32)},
	} {
		if res := run(t, tl, c.code); res.IsError || res.Text != c.want {
			t.Errorf("%s: %q; want %q", c.code, res.Text, c.want)
		}
	}
	for _, code := range []string{
		`for (let i = 0; i < 1000; i++) console.log("line " + i)`,
		`return "é".repeat(1000)`,
		`return "x".repeat(1000)`, // one byte a unit: cut to exactly the room
		`return {k: "x".repeat(5000)}`,
		`console.log("y".repeat(1e6)); return 1`,
	} {
		res := run(t, tl, code)
		if res.IsError || len(res.Text) > 100 || !strings.HasSuffix(res.Text, tools.TruncatedMarker) || !utf8Valid(res.Text) {
			t.Errorf("%s: %q (%d bytes); want at most 100 bytes ending in the marker", code, res.Text, len(res.Text))
		}
	}
	// An error result keeps what was printed and stays bounded.
	res := run(t, tl, `console.log("before"); throw new TypeError("bad")`)
	if !res.IsError || !strings.HasPrefix(res.Text, "before\nrun_code: uncaught exception: TypeError: bad") || strings.Contains(res.Text, "native") {
		t.Errorf("error output = %q", res.Text)
	}
}

func TestArgumentBounds(t *testing.T) {
	echo := &fakeTool{name: "echo"}
	tl := New(Options{Tools: []tools.Tool{echo}, MaxStringBytes: 1000, MaxArrayLen: 10})
	for _, c := range []struct{ code, want string }{
		{`return tools.echo({s: "x".repeat(1001)})`, "string too long"},
		{`return tools.echo({a: Array(11).fill(0)})`, "array too long"},
		{`return tools.echo({a: Array(10).fill("x".repeat(200))})`, "arguments too large"},
		{`const o = {}; o.o = o; return tools.echo(o)`, "arguments nested too deeply"},
		{`return tools.echo("path")`, "arguments must be an object"},
		{`return tools.echo([1])`, "arguments must be an object"},
	} {
		res := run(t, tl, `try { `+c.code+` } catch (e) { return e.code + ": " + e.message }`)
		if !strings.HasPrefix(res.Text, "invalid_arguments: echo: "+c.want) {
			t.Errorf("%s: %q; want %q", c.code, res.Text, c.want)
		}
	}
	if echo.count() != 0 {
		t.Errorf("echo ran %d times", echo.count())
	}
	if res := run(t, tl, `return tools.echo({p: "a", n: 1, b: [true, null], d: new Date(0), u: undefined})`); res.Text != `ok {"p":"a","n":1,"b":[true,null],"d":"1970-01-01T00:00:00.000Z"}` {
		t.Errorf("encoded args: %q", res.Text)
	}
	// A tool result over the bound is cut with the marker.
	big := &fakeTool{name: "big", run: func(context.Context, json.RawMessage) tools.Result {
		return tools.Result{Text: strings.Repeat("z", 5000)}
	}}
	res := run(t, New(Options{Tools: []tools.Tool{big}, MaxStringBytes: 1000}), `return tools.big().length`)
	if res.Text != "1000" {
		t.Errorf("bounded result length = %q; want 1000", res.Text)
	}
}

func TestBadInput(t *testing.T) {
	tl := New(Options{MaxCodeBytes: 100})
	for _, c := range []struct{ args, want string }{
		{`{"code":""}`, "run_code: missing code"},
		{`{}`, "run_code: missing code"},
		{`not json`, "run_code: invalid arguments"},
		{`{"code":"` + strings.Repeat("1;", 60) + `"}`, "run_code: code too long"},
		{`{"code":"return ("}`, "run_code: syntax error"},
		{`{"code":"}); (function () {"}`, "run_code: the program did not run as a function"},
		{`{"code":"return new Promise(() => {})"}`, "run_code: the program awaited something that never settles"},
	} {
		res := tl.Run(context.Background(), json.RawMessage(c.args))
		if !res.IsError || !strings.HasPrefix(res.Text, c.want) {
			t.Errorf("Run(%s) = %+v; want %q", c.args, res, c.want)
		}
	}
}

func TestAwaitAndStackBound(t *testing.T) {
	tl := New(Options{Tools: []tools.Tool{&fakeTool{name: "echo"}}})
	if res := run(t, tl, `const a = await tools.echo({n: 1}); return await Promise.resolve(a + "!")`); res.Text != `ok {"n":1}!` {
		t.Errorf("await: %+v", res)
	}
	res := run(t, tl, `function f(n) { return f(n + 1) + 1 } try { f(0) } catch (e) { return "caught" }`)
	if !res.IsError || res.Summary != "run_code: stack overflow" {
		t.Errorf("recursion: %+v", res)
	}
}

func TestToolInterface(t *testing.T) {
	var tl tools.Tool = New(Options{})
	if tl.Name() != "run_code" || tl.Mutating() {
		t.Error("name or mutating")
	}
	var schema map[string]any
	if err := json.Unmarshal(tl.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	if got := tl.Describe(json.RawMessage(`{"code":"return 1"}`)); got != "run JavaScript (8 bytes)" {
		t.Errorf("Describe = %q", got)
	}
	// With binds run-scoped hooks without touching the original.
	ap, rec := &approver{allow: true}, &recorder{}
	base := New(Options{Tools: []tools.Tool{&fakeTool{name: "w", mutating: true}}})
	bound := base.With(ap, rec)
	if res := run(t, bound, `return tools.w()`); res.IsError || len(ap.asked) != 1 || len(rec.started) != 1 {
		t.Errorf("bound: %+v", res)
	}
	if res := run(t, base, `return tools.w()`); !res.IsError {
		t.Errorf("base after With: %+v; want denied (nil approver)", res)
	}
	// A run_code in Options.Tools is not callable from a program.
	if res := run(t, New(Options{Tools: []tools.Tool{base}}), `return typeof tools.run_code`); res.Text != "undefined" {
		t.Errorf("nested run_code: %q", res.Text)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "?") == s }

// Protections hold inside programs: a destructive shell command asks even
// under Code Mode's approval = "auto"; a harmless one does not.
func TestDestructiveShellForcesApprovalFromCode(t *testing.T) {
	cwd := t.TempDir()
	set := tools.Builtin(tools.Options{Cwd: cwd})
	shell, _ := set.Get("shell")
	for _, c := range []struct {
		command string
		asked   bool
		want    string
	}{
		{"rm -rf ~", true, "caught denied"},
		{"git push --force origin main", true, "caught denied"},
		{"echo harmless", false, "ran"},
	} {
		ap := &approver{allow: false}
		tl := New(Options{Tools: []tools.Tool{shell}, Approval: ApprovalAuto, Approver: ap})
		res := run(t, tl, `try { tools.shell({ command: `+strconv.Quote(c.command)+` }); return "ran" }
			catch (e) { return "caught " + e.code }`)
		if res.Text != c.want || (len(ap.asked) == 1) != c.asked {
			t.Fatalf("%q: result %+v, asked %v; want %q, asked %v", c.command, res, ap.asked, c.want, c.asked)
		}
		if c.asked && !strings.HasPrefix(strings.SplitN(ap.asked[0], "|", 2)[1], "from code: ") {
			t.Fatalf("%q: summary %q does not say it comes from code", c.command, ap.asked[0])
		}
	}
}
