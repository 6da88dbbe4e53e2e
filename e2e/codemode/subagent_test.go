package codemode

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/protocol"
)

// TestSubagent: an enabled subagent profile and a disabled
// one in $MC_HOME/agents. Turn 1: the model calls task with the enabled
// profile; the subagent (next fixture responses) reads a file and answers.
// The run reports activity kind subagent started/completed (name = the
// profile) around the subagent's read; the subagent's text never appears
// in message.delta or message.reconcile frames nor in history. Turn 2: the
// model asks for the disabled profile: refused, no subagent activity. The
// disabled profile's name and description never appear in any frame.
func TestSubagent(t *testing.T) {
	t.Parallel()
	const (
		subText      = "SUBAGENT-ANSWER-9d2f"
		disabled     = "zebra-hidden-agent"
		disabledDesc = "ZEBRA-DESCRIPTION-41c0"
	)
	ws := newWorkspace(t, "", "[tools]\napproval = \"auto\"\n[agents]\ndisabled = [\""+disabled+"\"]\n",
		response(text("delegating. "), call("task", map[string]any{"profile": "helper", "prompt": "read notes.txt"})),
		response(call("read_file", map[string]any{"path": "notes.txt"})), // the subagent
		response(text(subText)), // the subagent's answer
		response(text("primary done")),
		response(call("task", map[string]any{"profile": disabled, "prompt": "anything"})),
		response(text("no such helper")))
	ws.WriteFile(t, filepath.Join(ws.Home, "agents", "helper.md"),
		"---\nname: helper\ndescription: Reads files for the primary agent\nmode: subagent\ntools: [read_file]\n---\nYou read files and report.\n")
	ws.WriteFile(t, filepath.Join(ws.Home, "agents", "zebra.md"),
		"---\nname: "+disabled+"\ndescription: "+disabledDesc+"\nmode: subagent\n---\nYou are hidden.\n")
	ws.WriteFile(t, filepath.Join(ws.Cwd, "notes.txt"), "a note\n")
	ch := start(t, ws, client.Options{RecordFrames: true})
	s := ch.Create()

	r := ch.Turn(s.SessionID, "use the helper")
	if r.Finished.Outcome != "completed" {
		t.Fatalf("run.finished %s", r.Terminal())
	}
	if got := r.Reply(); got != "delegating. primary done" {
		t.Fatalf("reply %q; want only the primary's text", got)
	}
	var got []string
	for _, a := range r.Activities {
		got = append(got, a.Kind+" "+a.Name+" "+a.State)
		t.Logf("activity %s %s %s %q", a.Kind, a.Name, a.State, a.Summary)
	}
	// The subagent's activity sits inside the task tool's, and its read
	// inside the subagent's.
	want := []string{"tool task started", "subagent helper started", "tool read_file started", "tool read_file completed", "subagent helper completed", "tool task completed"}
	if !slices.Equal(got, want) {
		t.Fatalf("activities %v; want %v", got, want)
	}
	for _, ev := range r.Events {
		if (ev.Name == protocol.EventMessageDelta || ev.Name == protocol.EventMessageReconcile) && strings.Contains(string(ev.Data), subText) {
			t.Fatalf("%s carries the subagent's text", ev.Name)
		}
	}
	entries, complete, _ := ch.History(s.SessionID, *r.Finished.Revision)
	if !complete {
		t.Fatal("history incomplete")
	}
	for _, e := range entries {
		if strings.Contains(e.Text, subText) {
			t.Fatalf("history %s entry carries the subagent's text", e.Kind)
		}
	}

	r = ch.Turn(s.SessionID, "use the hidden one")
	if r.Finished.Outcome != "completed" || r.Reply() != "no such helper" {
		t.Fatalf("run.finished %s, reply %q", r.Terminal(), r.Reply())
	}
	got = nil
	for _, a := range r.Activities {
		got = append(got, a.Kind+" "+a.Name+" "+a.State)
	}
	if want := []string{"tool task started", "tool task failed"}; !slices.Equal(got, want) {
		t.Fatalf("activities %v; want %v", got, want)
	}
	ch.Shutdown()
	for _, f := range ch.C.Frames() {
		if strings.Contains(string(f.Raw), disabled) || strings.Contains(string(f.Raw), disabledDesc) {
			t.Fatalf("frame seq %d names the disabled profile: %s", f.Seq, f.Raw)
		}
	}
}
