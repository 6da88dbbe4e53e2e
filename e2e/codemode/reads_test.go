package codemode

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// threeLogs writes log0.txt..log2.txt (about 60 KB each) into dir and
// returns the ten ERROR lines a filter over them finds.
func threeLogs(t *testing.T, ws interface {
	WriteFile(testing.TB, string, string)
}, dir string) []string {
	t.Helper()
	var want []string
	for f := range 3 {
		var b strings.Builder
		for i := range 2000 {
			if i%300 == 1 && len(want) < 10 {
				line := fmt.Sprintf("f%d:%d ERROR disk", f, i)
				want = append(want, line)
				b.WriteString(line + "\n")
				continue
			}
			fmt.Fprintf(&b, "f%d:%d info all is well\n", f, i)
		}
		ws.WriteFile(t, filepath.Join(dir, fmt.Sprintf("log%d.txt", f)), b.String())
	}
	if len(want) != 10 {
		t.Fatalf("%d ERROR lines", len(want))
	}
	return want
}

const tenLinesProgram = `const hits = [];
for (const f of ["log0.txt", "log1.txt", "log2.txt"])
  for (const l of tools.read_file({path: f}).split("\n"))
    if (l.includes("ERROR")) hits.push(l);
return hits.slice(0, 10).join("\n");`

// readsWindow is a context window (tokens) that the ten lines fit in many
// times over but one 60 KB file does not: the estimate is one token per 4
// bytes and compaction starts at 80 %.
const readsWindow = "context_window = 12000"

// TestThreeReadsTenLines: a run_code program reads three files (60 KB
// each), filters them and returns ten lines. Exactly one activity for the
// program and three for the reads, each a started/completed pair.
//
// "Only the ten lines reach the next provider call" is proved through the
// protocol by the context window: with 12,000 tokens (compaction at 9,600,
// about 38 KB), the 180 KB the program read would trigger compaction before
// the next call had they reached the context (the control below shows one
// direct read of one file does), and it would consume the "done" response
// as its summary. The package tests (runner/codemode/turn_test.go,
// stages/worker/tools_test.go) check the request content itself.
func TestThreeReadsTenLines(t *testing.T) {
	t.Parallel()
	const tables = "[tools]\napproval = \"auto\"\n[tools.code_mode]\nenabled = true\nallow = [\"read_file\"]\n"

	t.Run("program", func(t *testing.T) {
		t.Parallel()
		ws := newWorkspace(t, readsWindow, tables, response(runCode(tenLinesProgram)), response(text("done")))
		threeLogs(t, ws, ws.Cwd)
		ch := start(t, ws, client.Options{})
		s := ch.Create()
		r := ch.Turn(s.SessionID, "find the errors")
		if r.Finished.Outcome != "completed" || r.Reply() != "done" {
			t.Fatalf("run.finished %s, reply %q", r.Terminal(), r.Reply())
		}
		acts := r.Activities
		for _, a := range acts {
			t.Logf("activity %s %s %s %q", a.Kind, a.Name, a.State, a.Summary)
		}
		var program []clienttest.Activity
		reads := map[string][]string{} // activity ID -> states
		var readOrder []string
		for _, a := range acts {
			switch {
			case a.Kind == "tool" && a.Name == "run_code":
				program = append(program, a)
			case a.Kind == "tool" && a.Name == "read_file":
				if reads[a.ActivityID] == nil {
					readOrder = append(readOrder, a.ActivityID)
				}
				reads[a.ActivityID] = append(reads[a.ActivityID], a.State)
			default:
				t.Fatalf("unexpected activity %+v (compaction would mean the file contents reached the context)", a)
			}
		}
		if len(program) != 2 || program[0].State != "started" || program[1].State != "completed" || program[0].ActivityID != program[1].ActivityID {
			t.Fatalf("run_code activities %+v; want one started/completed pair", program)
		}
		if len(reads) != 3 {
			t.Fatalf("%d read_file activities; want 3", len(reads))
		}
		for _, id := range readOrder {
			if st := reads[id]; len(st) != 2 || st[0] != "started" || st[1] != "completed" {
				t.Fatalf("read_file activity %s states %v", id, st)
			}
			if id == program[0].ActivityID {
				t.Fatal("a read shares the program's activity ID")
			}
		}
		// The program's activity spans its reads.
		if acts[0].Name != "run_code" || acts[len(acts)-1].Name != "run_code" {
			t.Fatalf("reads outside the program's activity: first %s, last %s", acts[0].Name, acts[len(acts)-1].Name)
		}
		for _, a := range acts {
			if strings.Contains(a.Summary, "ERROR disk") || strings.Contains(a.Summary, "all is well") {
				t.Fatalf("activity summary carries file content: %q", a.Summary)
			}
		}
		entries, complete, _ := ch.History(s.SessionID, *r.Finished.Revision)
		if !complete {
			t.Fatal("history incomplete")
		}
		for _, e := range entries {
			if strings.Contains(e.Text, "all is well") {
				t.Fatalf("history entry %s shows file content", e.Kind)
			}
		}
		t.Logf("history kinds %v", clienttest.Kinds(entries))
		ch.Shutdown()
	})

	// Control: the same window with one direct read of one file compacts
	// before the next call (the "summary" response is consumed by it).
	t.Run("direct-read-control", func(t *testing.T) {
		t.Parallel()
		ws := newWorkspace(t, readsWindow, tables,
			response(call("read_file", map[string]any{"path": "log0.txt"})), response(text("summary")), response(text("done")))
		threeLogs(t, ws, ws.Cwd)
		ch := start(t, ws, client.Options{})
		s := ch.Create()
		r := ch.Turn(s.SessionID, "read one log")
		var states []string
		for _, a := range r.Activities {
			if a.Kind == "compaction" {
				states = append(states, a.State)
			}
		}
		if r.Finished.Outcome != "completed" || r.Reply() != "done" || strings.Join(states, " ") != "started completed" {
			t.Fatalf("run.finished %s, reply %q, compaction %v; want a compaction", r.Terminal(), r.Reply(), states)
		}
		ch.Shutdown()
	})
}
