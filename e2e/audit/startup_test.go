package audit

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestStartupFailures: a failed admitted startup answers initialize with
// its startup code; "status ... Failure: state="failed", readiness equals
// safe startup error code"; session/history/turn commands "after startup
// failure ... return that safe failure code"; "Another initialization
// after admission, including failure, → already_initialized"; the child
// still shuts down cleanly. docs/protocol.md, Choices: "No provider configured is
// provider_unavailable".
func TestStartupFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		settings string
		env      []string
		code     string
	}{
		{"no settings", "", nil, "provider_unavailable"},
		{"no provider", "model = \"m\"\n", nil, "provider_unavailable"},
		{"broken TOML", "provider = \"fixture\"\nmodel = [\n", nil, "configuration_invalid"},
		{"unknown key type", "provider = \"fixture\"\nmodel = 7\n", nil, "configuration_invalid"},
		{"fixture script missing", clienttest.FixtureSettings + "[providers.fixture]\nscript = \"/nonexistent/audit/script.json\"\n", nil, "configuration_invalid"},
		{"openai without credential", "provider = \"openai\"\nmodel = \"gpt-x\"\n[providers.openai]\nbase_url = \"http://127.0.0.1:9/v1\"\napi_key_env = \"AUDIT_OPENAI_KEY\"\n", nil, "provider_unavailable"},
		{"failing MCP server", clienttest.FixtureSettings + "[mcp_servers.bad]\ncommand = \"/nonexistent/audit-mcp\"\nenabled = true\n", nil, "mcp_unavailable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := clienttest.NewWorkspace(t, tc.settings)
			if tc.code == "mcp_unavailable" {
				approve(t, ws, "bad")
			}
			ch := spawn(t, ws, client.Options{RecordFrames: true, IgnoreEvents: true})
			r := ch.Call("initialize", map[string]any{"required_capabilities": clienttest.AllCapabilities})
			if r.Error == nil || r.Error.Code != tc.code {
				t.Fatalf("initialize = %s; want error %s", r.Raw, tc.code)
			}
			st := ch.Status()
			if st.State != "failed" || st.Readiness != tc.code || st.SessionID != nil || st.RunID != nil {
				t.Errorf("status after failed startup = %+v; want state failed, readiness %s", st, tc.code)
			}
			ch.WantError("session.create", nil, protocol.Code(tc.code))
			ch.WantError("session.open", map[string]string{"session_id": "abc"}, protocol.Code(tc.code))
			ch.WantError("history.page", map[string]any{"session_id": "abc", "revision": "r", "cursor": nil}, protocol.Code(tc.code))
			ch.WantError("turn.start", map[string]string{"session_id": "abc", "prompt": "hi"}, protocol.Code(tc.code))
			ch.WantError("turn.cancel", map[string]string{"session_id": "abc", "run_id": "r"}, protocol.Code(tc.code))
			ch.WantError("approval.answer", map[string]any{"session_id": "abc", "run_id": "r", "approval_id": "a", "allow": true}, protocol.Code(tc.code))
			ch.WantError("initialize", map[string]any{"required_capabilities": []string{}}, "already_initialized")
			ch.Shutdown()
			for _, f := range ch.C.Frames() {
				if strings.Contains(string(f.Raw), "/nonexistent") || strings.Contains(string(f.Raw), ws.Home) {
					t.Errorf("frame discloses a path: %s", f.Raw)
				}
			}
		})
	}
}

// approve runs `magi-code mcp approve NAME` in ws's cwd with ws's MC_HOME.
func approve(t testing.TB, ws *clienttest.Workspace, name string) {
	t.Helper()
	cmd := exec.Command(clienttest.Binary(t), "mcp", "approve", name)
	cmd.Dir, cmd.Env = ws.Cwd, ws.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcp approve %s: %v\n%s", name, err, out)
	}
}

// TestUnsupportedCapabilityNoEffects: "Unsupported required capability →
// unsupported_capability; no settings/auth reads or filesystem/startup
// effects" and "capability/parameter preflight failures allow corrected
// initialization": MC_HOME does not appear until the corrected initialize.
func TestUnsupportedCapabilityNoEffects(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home := filepath.Join(root, "mc-home")
	cwd := filepath.Join(root, "work")
	if err := os.Mkdir(cwd, 0o700); err != nil {
		t.Fatal(err)
	}
	ws := &clienttest.Workspace{Home: home, Cwd: cwd}
	ch := spawn(t, ws, client.Options{IgnoreEvents: true})
	ch.WantError("initialize", map[string]any{"required_capabilities": []string{"status", "history.search"}}, "unsupported_capability")
	ch.WantError("initialize", map[string]any{"required_capabilities": []string{"status"}, "extra": true}, "invalid_params")
	if _, err := os.Lstat(home); !os.IsNotExist(err) {
		t.Errorf("MC_HOME exists after rejected initializations (err %v)", err)
	}
	ch.WantError("status", nil, "not_initialized")
	// Corrected: admitted (no settings: provider_unavailable), which
	// creates the runtime directories.
	ch.WantError("initialize", map[string]any{"required_capabilities": []string{"status"}}, "provider_unavailable")
	if _, err := os.Stat(filepath.Join(home, "sessions")); err != nil {
		t.Errorf("admitted initialize did not create the runtime directories: %v", err)
	}
	ch.Shutdown()
}

// initStatus initializes a child started with opts in ws and returns the
// initialize result's status and the child's instance ID, then shuts it
// down.
func initStatus(t *testing.T, ws *clienttest.Workspace, opts client.Options) (statusResult, string) {
	t.Helper()
	ch := spawn(t, ws, opts)
	var res struct {
		Status statusResult `json:"status"`
	}
	ch.Result("initialize", map[string]any{"required_capabilities": []string{}}, &res)
	id := ch.C.InstanceID()
	ch.Shutdown()
	return res.Status, id
}

// TestContextIdentity: "Every child has a fresh UUID instance_id";
// "Context identity is an opaque SHA-256 digest of canonical cwd and
// canonical admitted storage-root paths"; "Equivalent storage-root aliases
// produce the same context identity for the same cwd; distinct real roots
// or cwd values produce different identities. It does not disclose those
// paths".
func TestContextIdentity(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "")
	root := filepath.Dir(ws.Home)
	homeAlias := filepath.Join(root, "home-alias")
	cwdAlias := filepath.Join(root, "work-alias")
	otherCwd := filepath.Join(root, "work2")
	for _, err := range []error{os.Symlink(ws.Home, homeAlias), os.Symlink(ws.Cwd, cwdAlias), os.Mkdir(otherCwd, 0o700)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	other := fixtureWorkspace(t, "", "") // another real MC_HOME
	envWith := func(home string) []string {
		return []string{"MC_HOME=" + home, "HOME=" + root, "PATH=" + os.Getenv("PATH")}
	}
	// A trailing slash and a dot segment are aliases too.
	base, id1 := initStatus(t, ws, client.Options{})
	cases := []struct {
		name string
		opts client.Options
		same bool
	}{
		{"MC_HOME through a symlink", client.Options{Env: envWith(homeAlias)}, true},
		{"MC_HOME with a trailing slash and dot", client.Options{Env: envWith(ws.Home + "/./")}, true},
		{"cwd through a symlink", client.Options{Dir: cwdAlias}, true},
		{"another cwd", client.Options{Dir: otherCwd}, false},
		{"another MC_HOME", client.Options{Env: other.Env()}, false},
	}
	ids := map[string]bool{id1: true}
	for _, tc := range cases {
		st, id := initStatus(t, ws, tc.opts)
		if ids[id] || !uuidRE.MatchString(id) {
			t.Errorf("%s: instance_id %q repeats or is not a UUID", tc.name, id)
		}
		ids[id] = true
		if st.ContextID == nil || base.ContextID == nil {
			t.Fatalf("%s: context_id null", tc.name)
		}
		if got := *st.ContextID == *base.ContextID; got != tc.same {
			t.Errorf("%s: same context_id = %v; want %v", tc.name, got, tc.same)
		}
		for _, p := range []string{ws.Home, ws.Cwd, root, "work", "home"} {
			if strings.Contains(*st.ContextID, p) {
				t.Errorf("%s: context_id %q discloses %q", tc.name, *st.ContextID, p)
			}
		}
	}
}

// TestSettingsPrecedenceAndSnapshot: "Global settings and exact-cwd
// project settings retain normal precedence" (docs/configuration.md: project settings for
// the exact cwd only override global ones); "Configuration and discovery
// are one admitted snapshot per child. External settings changes require
// child restart."
func TestSettingsPrecedenceAndSnapshot(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "")
	model := func(ch *child) string { return deref(ch.Status().Model) }

	// A parent directory's project settings do not apply.
	ws.WriteFile(t, filepath.Join(filepath.Dir(ws.Cwd), ".magi-code", "settings.toml"), "model = \"parent-model\"\n")
	ch := start(t, ws, client.Options{})
	if got := model(ch); got != "fixture-model" {
		t.Errorf("model with only a parent's project settings = %q; want fixture-model", got)
	}
	ch.Shutdown()

	ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"), "model = \"project-model\"\n")
	ch = start(t, ws, client.Options{})
	if got := model(ch); got != "project-model" {
		t.Errorf("model with project settings = %q; want project-model", got)
	}
	// Changed on disk after admission: this child keeps its snapshot.
	ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"), "model = \"changed-model\"\n")
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), "provider = \"nosuch\"\n")
	s := ch.Create()
	if got := model(ch); got != "project-model" {
		t.Errorf("model after settings changed on disk = %q; want the admitted project-model", got)
	}
	r := ch.Turn(s.SessionID, "still working?")
	if r.Finished.Outcome != "completed" {
		t.Errorf("turn after settings changed on disk: %+v", r.Finished)
	}
	ch.Shutdown()
}

// TestStatusNames: "Provider/model names are bounded to 256 bytes and
// omitted (null) if secret-like, redacted or control-bearing."
func TestStatusNames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, model string
		null        bool
	}{
		{"256 bytes", strings.Repeat("m", 256), false},
		{"257 bytes", strings.Repeat("m", 257), true},
		{"control character", "model\u0007x", true},
		{"secret-like", "sk-AUDITsecretKEY0123456789abcdefABCDEF", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := clienttest.NewWorkspace(t, "provider = \"fixture\"\nmodel = "+clienttest.Quote(tc.model)+"\n")
			ch := spawn(t, ws, client.Options{RecordFrames: true})
			var res struct {
				Status statusResult `json:"status"`
			}
			r := ch.Call("initialize", map[string]any{"required_capabilities": []string{}})
			if r.Error != nil {
				t.Logf("initialize: %s (a refused name is acceptable)", r.Error.Code)
			} else if err := json.Unmarshal(r.Result, &res); err != nil {
				t.Fatal(err)
			}
			st := ch.Status()
			if tc.null && st.Model != nil {
				t.Errorf("model %q reported as %q; want null", tc.model, *st.Model)
			}
			if !tc.null && (st.Model == nil || *st.Model != tc.model) {
				t.Errorf("model %q reported as %s", tc.model, deref(st.Model))
			}
			if tc.null {
				for _, f := range ch.C.Frames() {
					if strings.Contains(string(f.Raw), tc.model) {
						t.Errorf("frame carries the unsafe name: %.200s", f.Raw)
					}
				}
			}
			ch.Shutdown()
		})
	}
}

// TestMCPApprovalIsGlobal: "Global approval of the canonical definition
// source remains mandatory; project enabled=true cannot approve itself."
// A project-defined server that would fail startup is not started until
// `mcp approve` records it; then it is, and fails with mcp_unavailable
// ("One failed enabled server fails initialization").
func TestMCPApprovalIsGlobal(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "")
	ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"),
		"[mcp_servers.proj]\ncommand = \"/nonexistent/audit-mcp\"\nenabled = true\n")
	ch := start(t, ws, client.Options{})
	ch.Shutdown()
	approve(t, ws, "proj")
	ch = spawn(t, ws, client.Options{})
	ch.WantError("initialize", map[string]any{"required_capabilities": []string{}}, "mcp_unavailable")
	ch.Shutdown()
}
