//go:build unix

package mission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// sleepy is a fixture whose first reply streams a line, then waits until
// cancelled. The line is followed by more than the 256 bytes the streaming
// redaction may hold back, so that it is on the screen during the wait.
func sleepy(t *testing.T) *clienttest.Workspace {
	text := "working on it. " + strings.Repeat("more words ", 40)
	return clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
		Responses: [][]clienttest.Step{clienttest.Response(clienttest.Text(text), clienttest.SleepMs(600_000))},
	})
}

// Ctrl-C cancels the running turn and the app stays; once it ended,
// Ctrl-C twice on the empty input leaves with 0.
func TestCtrlCCancelsTheTurnThenLeaves(t *testing.T) {
	tm := start(t, sleepy(t))
	tm.waitFor("fixture-model")
	tm.typeText("take your time\r")
	tm.waitFor("working on it")
	tm.typeText("\x03")
	tm.waitFor("turn cancelled")
	tm.typeText("/help\r") // still running
	tm.waitFor("commands:")
	tm.typeText("\x03\x03")
	if code := tm.exit(); code != 0 {
		t.Fatalf("exit %d after the second Ctrl-C:\n%s", code, tm.screen())
	}
}

// Two Ctrl-C during a turn: the first cancels it, the second leaves at
// once, without waiting for the turn's end; the in-process backend still
// drains (exit 0).
func TestDoubleCtrlCLeavesDuringATurn(t *testing.T) {
	tm := start(t, sleepy(t))
	tm.waitFor("fixture-model")
	tm.typeText("take your time\r")
	tm.waitFor("working on it")
	tm.typeText("\x03\x03")
	if code := tm.exit(); code != 0 {
		t.Fatalf("exit %d after two Ctrl-C:\n%s", code, tm.screen())
	}
}

// --prompt whose turn is cancelled with Ctrl-C exits 1.
func TestPromptCancelledExits1(t *testing.T) {
	tm := start(t, sleepy(t), "--prompt", "take your time")
	tm.waitFor("working on it")
	tm.typeText("\x03")
	tm.waitFor("turn cancelled")
	if code := tm.exit(); code != 1 {
		t.Fatalf("cancelled turn: exit %d; want 1:\n%s", code, tm.screen())
	}
}

func readAuth(t *testing.T, home string) map[string]map[string]any {
	t.Helper()
	path := filepath.Join(home, "auth.json")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json mode %v; want 0600", st.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]map[string]any
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	return all
}

// logout NAME removes that provider's entry and keeps the others (an OAuth
// entry the runner refreshes included); auth.json stays 0600.
func TestLogoutRemovesOnlyThatEntry(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	const oauth = `{"anthropic": {"type": "oauth", "access_token": "at-kept", "refresh_token": "rt-kept", "expires_at": "2030-01-01T00:00:00Z"}}`
	ws.WriteFile(t, filepath.Join(ws.Home, "auth.json"), oauth)
	const key = "sk-logout-test-0123456789abcdef"
	login := start(t, ws, "login", "openai")
	login.waitFor("openai API key (not shown)")
	login.typeText(key + "\r")
	if code := login.exit(); code != 0 {
		t.Fatalf("login exit %d:\n%s", code, login.screen())
	}
	if all := readAuth(t, ws.Home); all["openai"]["key"] != key || all["anthropic"]["refresh_token"] != "rt-kept" {
		t.Fatalf("after login: %v", all)
	}
	out := start(t, ws, "logout", "openai")
	out.waitFor("removed the stored openai credential")
	if code := out.exit(); code != 0 {
		t.Fatalf("logout exit %d:\n%s", code, out.screen())
	}
	all := readAuth(t, ws.Home)
	if _, ok := all["openai"]; ok {
		t.Fatalf("the openai entry is still there: %v", all)
	}
	want := map[string]any{"type": "oauth", "access_token": "at-kept", "refresh_token": "rt-kept", "expires_at": "2030-01-01T00:00:00Z"}
	if got, _ := json.Marshal(all["anthropic"]); string(got) != mustJSON(want) {
		t.Fatalf("the other entry changed: %s", got)
	}
	again := start(t, ws, "logout", "openai")
	again.waitFor("no stored credential for openai")
	if code := again.exit(); code != 1 {
		t.Fatalf("a second logout: exit %d; want 1", code)
	}
	for _, s := range []string{login.screen(), out.screen(), again.screen()} {
		if strings.Contains(s, key[:12]) || strings.Contains(s, "rt-kept") {
			t.Fatalf("a secret appeared on the screen:\n%s", s)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// commented is a global settings file with comments and a table; model
// and provider are edited in place, nothing else changes.
const commented = `# my settings: keep this comment
schema_version = 2
provider = "fixture"   # the offline one
# the model comes next
model = "fixture-model"

[tools]
approval = "ask" # ask me
`

// settingsLines returns the global settings' lines, with the provider and
// model lines apart.
func settingsLines(t *testing.T, ws *clienttest.Workspace) (other []string, provider, model string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws.Home, "settings.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "provider ="):
			provider = l
		case strings.HasPrefix(l, "model ="):
			model = l
		default:
			other = append(other, l)
		}
	}
	return other, provider, model
}

func wantSettings(t *testing.T, ws *clienttest.Workspace, provider, model string) {
	t.Helper()
	other, p, m := settingsLines(t, ws)
	var orig []string
	for _, l := range strings.Split(commented, "\n") {
		if !strings.HasPrefix(l, "provider =") && !strings.HasPrefix(l, "model =") {
			orig = append(orig, l)
		}
	}
	if strings.Join(other, "\n") != strings.Join(orig, "\n") {
		t.Fatalf("other lines of settings.toml changed:\n%s\nwant:\n%s", strings.Join(other, "\n"), strings.Join(orig, "\n"))
	}
	if !strings.Contains(p, `"`+provider+`"`) || m != `model = "`+model+`"` {
		t.Fatalf("settings.toml: %q %q; want provider %s, model %s", p, m, provider, model)
	}
}

// magi-code model NAME stores the model in the global settings, editing
// that line only (comments kept), and prints the selection and readiness.
func TestModelCommandKeepsComments(t *testing.T) {
	ws := clienttest.NewWorkspace(t, commented)
	tm := start(t, ws, "model", "fixture-two")
	tm.waitFor("model fixture-two (global): ready")
	if code := tm.exit(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, tm.screen())
	}
	wantSettings(t, ws, "fixture", "fixture-two")
}

// /model in the running app stores the selection (comments kept) and
// restarts the in-process backend, which uses it from the next turn; once
// the session has a turn on disk it is reopened and keeps its own model.
func TestModelInsideTheAppRestarts(t *testing.T) {
	ws := clienttest.NewWorkspace(t, commented)
	tm := start(t, ws)
	tm.waitFor("fixture-model")
	tm.typeText("/model fixture fixture-three\r")
	tm.waitFor("backend restarted: fixture · fixture-three · ready")
	wantSettings(t, ws, "fixture", "fixture-three")
	tm.typeText("hello\r")
	tm.waitFor("echo: hello")
	tm.waitFor("turn completed")
	tm.typeText("/model fixture-four\r")
	tm.waitFor("this session keeps the model it was started with (fixture-three); /new starts a session with fixture-four")
	wantSettings(t, ws, "fixture", "fixture-four")
	tm.typeText("again\r")
	tm.waitFor("echo: again")
	// The reply's text comes before the turn ends; /new typed in between
	// is refused while the turn runs ("new: a turn is running"), so the screen
	// would never say "new session".
	tm.waitForNth("turn completed", 2)
	tm.typeText("/new\r")
	tm.waitFor("new session: fixture · fixture-four · ready")
	tm.typeText("/quit\r")
	if code := tm.exit(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, tm.screen())
	}
	if strings.Count(tm.screen(), "you› hello") != 1 {
		t.Fatalf("the reopened session's history was shown twice:\n%s", tm.screen())
	}
}

// A new user without a credential: the app says so in words;
// /login stores the key and the restarted backend is ready at once.
func TestLoginInsideTheAppMakesItReady(t *testing.T) {
	ws := clienttest.NewWorkspace(t, "provider = \"openai\"\nmodel = \"gpt-test\"\n[providers.openai]\nbase_url = \"http://127.0.0.1:9/v1\"\n")
	const key = "sk-inapp-login-0123456789abcdef"
	tm := start(t, ws)
	tm.waitFor("no API key or model")
	tm.typeText("/login openai\r")
	tm.waitFor("openai API key (not shown)")
	tm.typeText(key + "\r")
	tm.waitFor("backend restarted: openai · gpt-test · ready")
	if all := readAuth(t, ws.Home); all["openai"]["key"] != key {
		t.Fatalf("auth.json: %v", all)
	}
	tm.typeText("/quit\r")
	if code := tm.exit(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, tm.screen())
	}
	if strings.Contains(tm.screen(), key[:12]) {
		t.Fatalf("the key appeared on the screen:\n%s", tm.screen())
	}
}
