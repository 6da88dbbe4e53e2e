package codemode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/shell"
)

// TestProtections makes one direct tool call per case under tools.approval
// = "auto": each protection refuses a real attempt (activity failed with a
// "refused" summary, the target untouched) and lets a look-alike through.
// The child's HOME is the parent of MC_HOME and of its cwd (clienttest).
func TestProtections(t *testing.T) {
	t.Parallel()
	const secret = "PRIVATE-KEY-MATERIAL-5c1e"
	type paths struct{ home, cwd string }
	cases := []struct {
		name    string
		setup   func(t *testing.T, ws *clienttest.Workspace, p paths)
		tool    string
		args    func(p paths) map[string]any
		refused bool
		check   func(t *testing.T, p paths)
	}{
		{
			name: "write-outside-cwd", tool: "write_file", refused: true,
			args: func(p paths) map[string]any {
				return map[string]any{"path": filepath.Join(p.home, "outside.txt"), "content": "x"}
			},
			check: func(t *testing.T, p paths) { wantMissing(t, filepath.Join(p.home, "outside.txt")) },
		},
		{
			name: "write-outside-cwd-dotdot", tool: "write_file", refused: true,
			args:  func(p paths) map[string]any { return map[string]any{"path": "sub/../../outside.txt", "content": "x"} },
			check: func(t *testing.T, p paths) { wantMissing(t, filepath.Join(p.home, "outside.txt")) },
		},
		{
			name: "write-inside-cwd-lookalike", tool: "write_file",
			args:  func(p paths) map[string]any { return map[string]any{"path": "sub/../outside.txt", "content": "x"} },
			check: func(t *testing.T, p paths) { wantContent(t, filepath.Join(p.cwd, "outside.txt"), "x") },
		},
		{
			name: "write-git-internals", tool: "write_file", refused: true,
			setup: func(t *testing.T, ws *clienttest.Workspace, p paths) {
				ws.WriteFile(t, filepath.Join(p.cwd, ".git", "config"), "orig")
			},
			args:  func(p paths) map[string]any { return map[string]any{"path": ".git/config", "content": "evil"} },
			check: func(t *testing.T, p paths) { wantContent(t, filepath.Join(p.cwd, ".git", "config"), "orig") },
		},
		{
			name: "write-git-hook", tool: "write_file", refused: true,
			args: func(p paths) map[string]any {
				return map[string]any{"path": ".git/hooks/pre-commit", "content": "evil"}
			},
			check: func(t *testing.T, p paths) { wantMissing(t, filepath.Join(p.cwd, ".git", "hooks", "pre-commit")) },
		},
		{
			name: "write-github-lookalike", tool: "write_file",
			args: func(p paths) map[string]any {
				return map[string]any{"path": ".github/workflows/ci.yml", "content": "on: push"}
			},
			check: func(t *testing.T, p paths) {
				wantContent(t, filepath.Join(p.cwd, ".github", "workflows", "ci.yml"), "on: push")
			},
		},
		{
			name: "write-auth-json", tool: "write_file", refused: true,
			args:  func(p paths) map[string]any { return map[string]any{"path": "auth.json", "content": "{}"} },
			check: func(t *testing.T, p paths) { wantMissing(t, filepath.Join(p.cwd, "auth.json")) },
		},
		{
			name: "write-oauth-json-lookalike", tool: "write_file",
			args:  func(p paths) map[string]any { return map[string]any{"path": "oauth.json", "content": "{}"} },
			check: func(t *testing.T, p paths) { wantContent(t, filepath.Join(p.cwd, "oauth.json"), "{}") },
		},
		{
			name: "write-dotenv", tool: "write_file", refused: true,
			args:  func(p paths) map[string]any { return map[string]any{"path": ".env", "content": "TOKEN=1"} },
			check: func(t *testing.T, p paths) { wantMissing(t, filepath.Join(p.cwd, ".env")) },
		},
		{
			name: "write-dotenv-local", tool: "write_file", refused: true,
			args:  func(p paths) map[string]any { return map[string]any{"path": ".env.local", "content": "TOKEN=1"} },
			check: func(t *testing.T, p paths) { wantMissing(t, filepath.Join(p.cwd, ".env.local")) },
		},
		{
			name: "write-dotenv-example-lookalike", tool: "write_file",
			args:  func(p paths) map[string]any { return map[string]any{"path": ".env.example", "content": "TOKEN="} },
			check: func(t *testing.T, p paths) { wantContent(t, filepath.Join(p.cwd, ".env.example"), "TOKEN=") },
		},
		{
			name: "read-ssh-key", tool: "read_file", refused: true,
			setup: func(t *testing.T, ws *clienttest.Workspace, p paths) {
				ws.WriteFile(t, filepath.Join(p.home, ".ssh", "id_rsa"), secret)
			},
			args: func(p paths) map[string]any { return map[string]any{"path": filepath.Join(p.home, ".ssh", "id_rsa")} },
		},
		{
			name: "read-ssh-key-tilde", tool: "read_file", refused: true,
			setup: func(t *testing.T, ws *clienttest.Workspace, p paths) {
				ws.WriteFile(t, filepath.Join(p.home, ".ssh", "id_rsa"), secret)
			},
			args: func(p paths) map[string]any { return map[string]any{"path": "~/.ssh/id_rsa"} },
		},
		{
			name: "read-key-name-lookalike", tool: "read_file",
			setup: func(t *testing.T, ws *clienttest.Workspace, p paths) {
				ws.WriteFile(t, filepath.Join(p.cwd, "docs", "id_rsa.md"), "how to make a key")
			},
			args: func(p paths) map[string]any { return map[string]any{"path": "docs/id_rsa.md"} },
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The call's arguments name the workspace's paths: the script
			// is rewritten once they are known.
			ws := newWorkspace(t, "", "[tools]\napproval = \"auto\"\n", response(text("placeholder")))
			p := paths{home: filepath.Dir(ws.Home), cwd: ws.Cwd}
			rewriteScript(t, ws, response(call(tc.tool, tc.args(p))), response(text("done")))
			if tc.setup != nil {
				tc.setup(t, ws, p)
			}
			ch := start(t, ws, client.Options{RecordFrames: true})
			s := ch.Create()
			r := ch.Turn(s.SessionID, "try "+tc.name)
			if r.Finished.Outcome != "completed" || r.Reply() != "done" {
				t.Fatalf("run.finished %s, reply %q", r.Terminal(), r.Reply())
			}
			acts := r.Activities
			if len(acts) != 2 || acts[0].Name != tc.tool || acts[1].Name != tc.tool {
				t.Fatalf("activities %+v", acts)
			}
			end := acts[1]
			t.Logf("%s %s %q", end.Name, end.State, end.Summary)
			if tc.refused {
				if end.State != "failed" || !strings.Contains(end.Summary, "refused") {
					t.Fatalf("%s: activity %s %q; want failed with a refusal", tc.name, end.State, end.Summary)
				}
			} else if end.State != "completed" {
				t.Fatalf("%s: look-alike %s %q; want completed", tc.name, end.State, end.Summary)
			}
			if tc.check != nil {
				tc.check(t, p)
			}
			ch.Shutdown()
			for _, f := range ch.C.Frames() {
				if strings.Contains(string(f.Raw), secret) {
					t.Fatalf("frame seq %d carries the key", f.Seq)
				}
			}
		})
	}
}

// rewriteScript replaces the fixture script of ws.
func rewriteScript(t testing.TB, ws *clienttest.Workspace, responses ...[]step) {
	t.Helper()
	clienttest.WriteScript(t, ws.ScriptPath(), responses...)
}

func wantMissing(t *testing.T, path string) {
	t.Helper()
	if clienttest.FileExists(path) {
		t.Fatalf("%s was written", filepath.Base(path))
	}
}

func wantContent(t *testing.T, path, want string) {
	t.Helper()
	if got := mustRead(t, path); got != want {
		t.Fatalf("%s = %q; want %q", filepath.Base(path), got, want)
	}
}

// TestDestructiveShell: under tools.approval = "auto", `rm -rf ~` still asks
// for approval; denied, nothing under HOME is deleted. The look-alike
// `rm -rf ./build` runs without approval. Two layouts: HOME a parent of the
// workspace (clienttest's), and HOME apart from it.
func TestDestructiveShell(t *testing.T) {
	t.Parallel()
	for _, layout := range []string{"home-above-cwd", "home-apart"} {
		t.Run(layout, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, "", "[tools]\napproval = \"auto\"\n",
				response(call("shell", map[string]any{"command": "rm -rf ~"})), response(text("denied")),
				response(call("shell", map[string]any{"command": "rm -rf ./build"})), response(text("cleaned")))
			home := filepath.Dir(ws.Home)
			env := ws.Env()
			if layout == "home-apart" {
				home = filepath.Join(home, "user")
				for i, kv := range env {
					if strings.HasPrefix(kv, "HOME=") {
						env[i] = "HOME=" + home
					}
				}
			}
			keep := filepath.Join(home, "keep.txt")
			ws.WriteFile(t, keep, "keep")
			ws.WriteFile(t, filepath.Join(ws.Cwd, "build", "out.o"), "obj")
			ch := start(t, ws, client.Options{Env: env})
			s := ch.Create()

			runID, adm := ch.StartTurn(s.SessionID, "delete home")
			var evs []client.Event
			ev := ch.Until(&evs, runID, "approval.requested", clienttest.Named(protocol.EventApprovalRequested))
			var req clienttest.ApprovalRequested
			if err := ev.Decode(&req); err != nil {
				t.Fatal(err)
			}
			t.Logf("approval summary %q", req.Summary)
			ch.Answer(s.SessionID, runID, req.ApprovalID, false)
			r := ch.Finish(s.SessionID, runID, adm, evs)
			if r.Finished.Outcome != "completed" || r.Reply() != "denied" {
				t.Fatalf("run.finished %s, reply %q", r.Terminal(), r.Reply())
			}
			wantContent(t, keep, "keep")
			if !clienttest.FileExists(filepath.Join(ws.Home, "settings.toml")) || !clienttest.FileExists(filepath.Join(ws.Cwd, "build", "out.o")) {
				t.Fatal("the denied rm -rf ~ deleted something")
			}

			r = ch.Turn(s.SessionID, "clean the build")
			if r.Finished.Outcome != "completed" || r.Reply() != "cleaned" {
				t.Fatalf("run.finished %s, reply %q", r.Terminal(), r.Reply())
			}
			for _, ev := range r.Events {
				if ev.Name == protocol.EventApprovalRequested {
					t.Fatal("rm -rf ./build asked for approval")
				}
			}
			if clienttest.FileExists(filepath.Join(ws.Cwd, "build")) {
				t.Fatal("rm -rf ./build did not run")
			}
			wantContent(t, keep, "keep")
			ch.Shutdown()
		})
	}
}

// TestProtectionsInCode: the protections hold for calls from a program
// too. Under [tools.code_mode] approval = "auto", a program's write to
// .env is refused (a ToolError with code "failed" the program catches) and
// its `rm -rf ~` still asks for approval ("from code: "); denied, it is a
// ToolError "denied". The catch branches write markers; nothing is deleted.
func TestProtectionsInCode(t *testing.T) {
	t.Parallel()
	program := `const got = [];
try { tools.write_file({path: ".env", content: "TOKEN=1"}); got.push("env written"); }
catch (e) { got.push(e.name + " " + e.code); }
try { tools.shell({command: "rm -rf ~"}); got.push("rm ran"); }
catch (e) { got.push(e.name + " " + e.code); }
tools.shell({command: "rm -rf ./build"});
tools.write_file({path: "result.txt", content: got.join("\n")});
return "ok";`
	ws := newWorkspace(t, "",
		"[tools]\napproval = \"ask\"\n[tools.code_mode]\nenabled = true\napproval = \"auto\"\nallow = [\"write_file\", \"shell\"]\n",
		response(runCode(program)), response(text("done")))
	keep := filepath.Join(filepath.Dir(ws.Home), "keep.txt")
	ws.WriteFile(t, keep, "keep")
	ws.WriteFile(t, filepath.Join(ws.Cwd, "build", "out.o"), "obj")
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	runID, adm := ch.StartTurn(s.SessionID, "try from code")
	var evs []client.Event
	ev := ch.Until(&evs, runID, "approval.requested", clienttest.Named(protocol.EventApprovalRequested))
	var req clienttest.ApprovalRequested
	if err := ev.Decode(&req); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(req.Summary, "from code: ") || !strings.Contains(req.Summary, "rm -rf ~") {
		t.Fatalf("approval summary %q", req.Summary)
	}
	ch.Answer(s.SessionID, runID, req.ApprovalID, false)
	r := ch.Finish(s.SessionID, runID, adm, evs)
	if r.Finished.Outcome != "completed" || r.Reply() != "done" {
		t.Fatalf("run.finished %s, reply %q", r.Terminal(), r.Reply())
	}
	if n := strings.Count(strings.Join(eventNames(r), " "), protocol.EventApprovalRequested); n != 1 {
		t.Fatalf("%d approval requests; want 1 (the destructive command only)", n)
	}
	wantContent(t, filepath.Join(ws.Cwd, "result.txt"), "ToolError failed\nToolError denied")
	wantMissing(t, filepath.Join(ws.Cwd, ".env"))
	wantContent(t, keep, "keep")
	wantMissing(t, filepath.Join(ws.Cwd, "build"))
	ch.Shutdown()
}

func eventNames(r run) []string {
	var out []string
	for _, ev := range r.Events {
		out = append(out, ev.Name)
	}
	return out
}

// TestProjectProtectionsInvalid: a project settings file that sets any
// [tools.protections] key fails initialize with configuration_invalid (the
// keys are global-only); the same key in the global file is accepted.
func TestProjectProtectionsInvalid(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"allow_outside_cwd", "allow_git_internals", "allow_credential_files", "allow_destructive_shell"} {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, "", "")
			ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"), "[tools.protections]\n"+key+" = true\n")
			ch := &child{ws.Spawn(t, client.Options{})}
			r := ch.Call("initialize", map[string]any{"required_capabilities": clienttest.AllCapabilities})
			if r.Error == nil || r.Error.Code != "configuration_invalid" {
				t.Fatalf("initialize = %s %v; want configuration_invalid", r.Result, r.Error)
			}
			ch.Shutdown()

			global := newWorkspace(t, "", "[tools.protections]\n"+key+" = false\n")
			start(t, global, client.Options{}).Shutdown()
		})
	}
}

// TestDestructiveShellBypasses: through the built binary under approval =
// "auto", each spelling of deleting ~/canary (outside the workspace) asks
// with a fixed reason that does not quote the command; denied, the canary
// survives. One child, one turn per spelling.
func TestDestructiveShellBypasses(t *testing.T) {
	t.Parallel()
	cmds := []string{
		"rm -rf ~/canary",
		`bash -c "rm -rf {~/canary,/nonexistent}"`,
		`bash -c 'rm -rf $"$HOME/canary"'`,
		`bash -c "rm -rf <(true) ~/canary"`,
		`python3 -c 'import shutil, os; shutil.rmtree(os.path.expanduser("~/canary"))'`,
		`perl -MFile::Path=rmtree -e 'rmtree("$ENV{HOME}/canary")'`,
		`echo "$HOME/canary" | xargs rm -rf`,
		`f() { rm -rf "$1"; }; f ~/canary`,
		"find ~ -maxdepth 1 -name canary -exec rm -rf {} +",
		"chmod -R 777 ~/canary",
		"rm -rf 'unterminated",
	}
	var responses [][]step
	for _, cmd := range cmds {
		responses = append(responses, response(call("shell", map[string]any{"command": cmd})), response(text("denied")))
	}
	ws := newWorkspace(t, "", "[tools]\napproval = \"auto\"\n", responses...)
	canary := filepath.Join(filepath.Dir(ws.Home), "canary")
	ws.WriteFile(t, filepath.Join(canary, "keep.txt"), "keep")
	fi, err := os.Stat(canary)
	if err != nil {
		t.Fatal(err)
	}
	mode := fi.Mode().Perm()
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	for _, cmd := range cmds {
		runID, adm := ch.StartTurn(s.SessionID, "try")
		var evs []client.Event
		ev := ch.Until(&evs, runID, "approval.requested for "+cmd, clienttest.Named(protocol.EventApprovalRequested))
		var req clienttest.ApprovalRequested
		if err := ev.Decode(&req); err != nil {
			t.Fatal(err)
		}
		reason, found := "", false
		for _, r := range shell.Reasons() {
			if strings.Contains(req.Summary, string(r)) {
				reason, found = string(r), true
			}
		}
		if !found {
			t.Fatalf("%s: approval summary %q names no protection", cmd, req.Summary)
		}
		t.Logf("%s: %s", cmd, reason)
		ch.Answer(s.SessionID, runID, req.ApprovalID, false)
		if r := ch.Finish(s.SessionID, runID, adm, evs); r.Finished.Outcome != "completed" || r.Reply() != "denied" {
			t.Fatalf("%s: run.finished %s, reply %q", cmd, r.Terminal(), r.Reply())
		}
		if fi, err := os.Stat(canary); err != nil || fi.Mode().Perm() != mode {
			t.Fatalf("%s: the canary was deleted or changed (%v)", cmd, err)
		}
		wantContent(t, filepath.Join(canary, "keep.txt"), "keep")
	}
	ch.Shutdown()
}
