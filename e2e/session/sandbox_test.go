package session

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/sandbox"
	"github.com/magi-code/magi-code/runner/tools"
)

// TestSandboxUnderAuto drives the real binary under approval = "auto" with
// ~/canary outside the workspace (HOME lies outside the temp directory,
// which the sandbox keeps writable). A script file the guard rail does not
// read, and a python3 rmtree that the guard rail asks about and the person
// allows, both fail in the OS sandbox, and their summaries name it; the
// canary survives; a write inside the workspace succeeds. Skipped, with the
// reason, only where the kernel offers no Landlock.
func TestSandboxUnderAuto(t *testing.T) {
	t.Parallel()
	if st := sandbox.Probe(); !st.Available {
		t.Skipf("no OS sandbox here: %s", st.Reason)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	home, err := os.MkdirTemp("/var/tmp", "magi-e2e-home-")
	if err != nil {
		t.Skipf("no directory outside the temp directory: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	egg := filepath.Join(home, "canary", "egg")
	if err := os.MkdirAll(filepath.Dir(egg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(egg, []byte("alive"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t, "auto",
		response(shell(`printf 'rm -rf "$HOME/canary"\n' > del.sh && sh del.sh`)),
		response(shell(`python3 -c 'import os, shutil; shutil.rmtree(os.path.expanduser("~/canary"))'`)),
		response(shell("echo ok > inside.txt")),
		response(text("done")))
	env := []string{"MC_HOME=" + ws.Home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	ch := start(t, ws, client.Options{Env: env})
	s := ch.Create()
	runID, adm := ch.StartTurn(s.SessionID, "try to delete the canary")
	var evs []client.Event
	// The guard rail asks about the inline rmtree even under auto; the
	// person allows it: the sandbox still stops it.
	ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
	var req clienttest.ApprovalRequested
	if err := ev.Decode(&req); err != nil {
		t.Fatal(err)
	}
	ch.Answer(s.SessionID, runID, req.ApprovalID, true)
	run := ch.Finish(s.SessionID, runID, adm, evs)
	var finished []clienttest.Activity
	for _, ev := range run.Events {
		var a clienttest.Activity
		if ev.Name == protocol.EventActivity && json.Unmarshal(ev.Data, &a) == nil && a.State != "started" {
			finished = append(finished, a)
		}
	}
	if len(finished) != 3 {
		t.Fatalf("finished activities %+v; want 3", finished)
	}
	for i, a := range finished[:2] {
		if a.State != "failed" || !strings.Contains(a.Summary, tools.SandboxSummary) {
			t.Errorf("call %d: %+v; want failed with a summary naming the sandbox", i+1, a)
		}
	}
	if a := finished[2]; a.State != "completed" || a.Summary != "shell: exit 0" {
		t.Errorf("write inside the workspace: %+v", a)
	}
	if data, err := os.ReadFile(egg); err != nil || string(data) != "alive" {
		t.Fatalf("the canary is %q, %v", data, err)
	}
	if data, err := os.ReadFile(filepath.Join(ws.Cwd, "inside.txt")); err != nil || string(data) != "ok\n" {
		t.Errorf("inside.txt = %q, %v", data, err)
	}
	ch.Shutdown()
	// The diagnostic log says at startup what confines commands.
	logs, _ := filepath.Glob(filepath.Join(ws.Home, "logs", "serve-*.log"))
	if len(logs) != 1 {
		t.Fatalf("diagnostic logs %v; want one", logs)
	}
	if data, _ := os.ReadFile(logs[0]); !strings.Contains(string(data), "sandbox: workspace-write under approval = auto") {
		t.Errorf("diagnostic log without the sandbox line:\n%s", data)
	}
}

// TestHookSandboxUnderAuto drives the real binary with a stop hook (global
// settings) that first marks the workspace, then writes a canary into a
// directory outside the workspace and the temp directory (HOME, under
// /var/tmp). Under approval = "auto" the OS sandbox confines the hook: the
// mark is made, the canary is not, and the failed hook is a diagnostic.
// Under "ask" hooks run unconfined (docs/configuration.md, The OS sandbox):
// both are written. Skipped, with the reason, only where the kernel offers
// no Landlock.
func TestHookSandboxUnderAuto(t *testing.T) {
	t.Parallel()
	if st := sandbox.Probe(); !st.Available {
		t.Skipf("no OS sandbox here: %s", st.Reason)
	}
	for _, tc := range []struct {
		approval string
		confined bool
	}{{"auto", true}, {"ask", false}} {
		t.Run(tc.approval, func(t *testing.T) {
			t.Parallel()
			home, err := os.MkdirTemp("/var/tmp", "magi-e2e-home-")
			if err != nil {
				t.Skipf("no directory outside the temp directory: %v", err)
			}
			t.Cleanup(func() { os.RemoveAll(home) })
			canary := filepath.Join(home, "canary")
			hook := "[[hooks]]\nevent = \"stop\"\ncommand = " + clienttest.Quote("touch hook-ran && echo written > "+canary) + "\n"
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
				Approval: tc.approval, Responses: [][]step{response(text("done"))}, Extra: hook})
			env := []string{"MC_HOME=" + ws.Home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
			ch := start(t, ws, client.Options{Env: env})
			run := ch.Turn(ch.Create().SessionID, "finish")
			run.WantOutcome(t, "completed", "")
			if !clienttest.FileExists(filepath.Join(ws.Cwd, "hook-ran")) {
				t.Fatal("the hook did not run (no mark in the workspace)")
			}
			_, err = os.Stat(canary)
			if wrote := err == nil; wrote == tc.confined {
				t.Errorf("under %s the hook wrote %s: %v; want %v", tc.approval, canary, wrote, !tc.confined)
			}
			if got := len(run.Diagnostics()); tc.confined && got != 1 || !tc.confined && got != 0 {
				t.Errorf("diagnostics %q", run.Diagnostics())
			}
			ch.Shutdown()
		})
	}
}

// TestHookNetworkUnderAuto drives the real binary with a stop hook that
// connects to a TCP listener of the test on 127.0.0.1 and marks the
// workspace with the outcome. Hooks cannot ask for the network: under
// approval = "auto" the hook has the network of [tools.sandbox] network,
// closed by default (no connection arrives) and open with the global
// network = true (one does).
func TestHookNetworkUnderAuto(t *testing.T) {
	t.Parallel()
	if st := sandbox.Probe(); !st.Available || !st.NetworkClosable {
		t.Skipf("no OS sandbox that closes the network here: %+v", st)
	}
	for _, tc := range []struct {
		name, extra string
		open        bool
	}{{"default", "", false}, {"global network = true", "\n[tools.sandbox]\nnetwork = true\n", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var accepted atomic.Int32
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					accepted.Add(1)
					c.Close()
				}
			}()
			port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
			cmd := "if bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + port + "'; then touch net-open; else touch net-closed; fi"
			hook := "[[hooks]]\nevent = \"stop\"\ncommand = " + clienttest.Quote(cmd) + "\n"
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
				Approval: "auto", Responses: [][]step{response(text("done"))}, Extra: hook + tc.extra})
			ch := start(t, ws, client.Options{Env: ws.Env()})
			run := ch.Turn(ch.Create().SessionID, "finish")
			run.WantOutcome(t, "completed", "")
			ch.Shutdown()
			want, other := "net-closed", "net-open"
			if tc.open {
				want, other = other, want
			}
			if !clienttest.FileExists(filepath.Join(ws.Cwd, want)) || clienttest.FileExists(filepath.Join(ws.Cwd, other)) {
				t.Errorf("the hook did not mark %s (or marked %s)", want, other)
			}
			if got := accepted.Load() > 0; got != tc.open {
				t.Errorf("a connection from the hook arrived: %v; want %v", got, tc.open)
			}
		})
	}
}
