package codemode

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// TestDirectOnlyToolRefusedInCode: shell is offered directly but not listed
// in [tools.code_mode] allow: inside a program tools.shell does not exist,
// the call throws a TypeError the program catches (its catch branch writes
// a marker named after e.name through the allowed write_file), and the
// command never runs. A direct shell call in the next turn runs.
func TestDirectOnlyToolRefusedInCode(t *testing.T) {
	t.Parallel()
	program := `try {
  tools.shell({command: "touch shell-ran"});
} catch (e) {
  tools.write_file({path: "caught-" + e.name, content: String(e.message).length > 0 ? "y" : "n"});
  return e.name;
}
return "no error";`
	ws := newWorkspace(t, "",
		"[tools]\napproval = \"auto\"\n[tools.code_mode]\nenabled = true\napproval = \"auto\"\nallow = [\"write_file\"]\n",
		response(runCode(program)), response(text("refused in code")),
		response(call("shell", map[string]any{"command": "touch direct-ran"})), response(text("ran directly")))
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	r := ch.Turn(s.SessionID, "try the shell from code")
	if r.Finished.Outcome != "completed" || r.Reply() != "refused in code" {
		t.Fatalf("run.finished %s, reply %q", r.Terminal(), r.Reply())
	}
	if clienttest.FileExists(filepath.Join(ws.Cwd, "shell-ran")) {
		t.Fatal("shell ran inside a program that may not call it")
	}
	if !clienttest.FileExists(filepath.Join(ws.Cwd, "caught-TypeError")) {
		t.Fatal("the program did not catch a TypeError (no caught-TypeError marker)")
	}
	for _, a := range r.Activities {
		if a.Name == "shell" {
			t.Fatalf("a shell activity inside the program: %+v", a)
		}
	}

	r = ch.Turn(s.SessionID, "now directly")
	if r.Finished.Outcome != "completed" || r.Reply() != "ran directly" {
		t.Fatalf("run.finished %s, reply %q", r.Terminal(), r.Reply())
	}
	if !clienttest.FileExists(filepath.Join(ws.Cwd, "direct-ran")) {
		t.Fatal("a direct shell call did not run")
	}
	ch.Shutdown()
}

// TestCodeOnlyToolRefusedDirectly: [tools] disabled = ["write_file"] with
// write_file in [tools.code_mode] allow: a direct write_file call is refused
// (never offered: the model's call is an unknown tool, its activity fails)
// while a program's write works.
func TestCodeOnlyToolRefusedDirectly(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, "",
		"[tools]\napproval = \"auto\"\ndisabled = [\"write_file\"]\n[tools.code_mode]\nenabled = true\napproval = \"auto\"\nallow = [\"write_file\"]\n",
		response(call("write_file", map[string]any{"path": "direct.txt", "content": "direct"})), response(text("refused directly")),
		response(runCode(`tools.write_file({path: "code.txt", content: "from code"}); return "ok";`)), response(text("written from code")))
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	r := ch.Turn(s.SessionID, "write directly")
	if r.Finished.Outcome != "completed" || r.Reply() != "refused directly" {
		t.Fatalf("run.finished %s, reply %q", r.Terminal(), r.Reply())
	}
	if clienttest.FileExists(filepath.Join(ws.Cwd, "direct.txt")) {
		t.Fatal("a disabled direct write_file wrote")
	}
	var states []string
	for _, a := range r.Activities {
		states = append(states, a.Name+" "+a.State)
	}
	if strings.Join(states, ",") != "write_file started,write_file failed" {
		t.Fatalf("activities %v; want the refused call started and failed", states)
	}

	r = ch.Turn(s.SessionID, "write from code")
	if r.Finished.Outcome != "completed" || r.Reply() != "written from code" {
		t.Fatalf("run.finished %s, reply %q", r.Terminal(), r.Reply())
	}
	if got := mustRead(t, filepath.Join(ws.Cwd, "code.txt")); got != "from code" {
		t.Fatalf("code.txt = %q", got)
	}
	ch.Shutdown()
}

// TestDeniedApprovalInCode: [tools.code_mode] approval = "ask" while the
// direct policy is "auto". A program's write_file asks ("from code: "
// summary); the denial is a ToolError with code "denied" that the program
// catches, and its catch branch writes a marker holding e.name and e.code
// (a second approval, allowed). The denied file is never written.
func TestDeniedApprovalInCode(t *testing.T) {
	t.Parallel()
	program := `try {
  tools.write_file({path: "denied.txt", content: "x"});
  return "not denied";
} catch (e) {
  tools.write_file({path: "caught.txt", content: e.name + " " + e.code});
  return "caught";
}`
	ws := newWorkspace(t, "",
		"[tools]\napproval = \"auto\"\n[tools.code_mode]\nenabled = true\napproval = \"ask\"\nallow = [\"write_file\"]\n",
		response(runCode(program)), response(text("done")))
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	runID, adm := ch.StartTurn(s.SessionID, "write twice")
	var evs []client.Event
	for i, allow := range []bool{false, true} {
		ev := ch.Until(&evs, runID, "approval.requested", clienttest.Named("approval.requested"))
		var req clienttest.ApprovalRequested
		if err := ev.Decode(&req); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(req.Summary, "from code: ") {
			t.Fatalf("approval %d summary %q; want it to say it comes from code", i, req.Summary)
		}
		if clienttest.FileExists(filepath.Join(ws.Cwd, "denied.txt")) || clienttest.FileExists(filepath.Join(ws.Cwd, "caught.txt")) {
			t.Fatal("a file was written before its approval")
		}
		ch.Answer(s.SessionID, runID, req.ApprovalID, allow)
	}
	r := ch.Finish(s.SessionID, runID, adm, evs)
	if r.Finished.Outcome != "completed" || r.Reply() != "done" {
		t.Fatalf("run.finished %s, reply %q", r.Terminal(), r.Reply())
	}
	if clienttest.FileExists(filepath.Join(ws.Cwd, "denied.txt")) {
		t.Fatal("the denied write happened")
	}
	if got := mustRead(t, filepath.Join(ws.Cwd, "caught.txt")); got != "ToolError denied" {
		t.Fatalf("caught.txt = %q; want \"ToolError denied\"", got)
	}
	var states []string
	for _, a := range r.Activities {
		states = append(states, a.Name+" "+a.State)
	}
	want := "run_code started,write_file started,write_file failed,write_file started,write_file completed,run_code completed"
	if strings.Join(states, ",") != want {
		t.Fatalf("activities %v; want %s", states, want)
	}
	ch.Shutdown()
}
