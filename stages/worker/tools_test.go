package worker

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/provider"
)

func toolNames(req provider.Request) []string {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	return names
}

// lastToolText is the text of the last tool message of a request.
func lastToolText(req provider.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == provider.RoleTool {
			return req.Messages[i].Text
		}
	}
	return ""
}

func toolCall(name string, args any) string {
	a, _ := json.Marshal(args)
	return `{"tool_call":{"name":"` + name + `","arguments":` + string(a) + `}}`
}

// docs/protocol.md, initialize: "Direct and Code Mode tool permissions stay independent."
func TestCodeModePermissionsIndependent(t *testing.T) {
	program := `let out = [];
		out.push(tools.read_file({path: "a.txt"}).trim());
		try { tools.write_file({path: "b.txt", content: "x"}); out.push("wrote") } catch (e) { out.push(e.name) }
		return out.join(",")`
	script := `{"responses":[
		{"steps":[` + toolCall("run_code", map[string]string{"code": program}) + `]},
		{"steps":[` + toolCall("read_file", map[string]string{"path": "a.txt"}) + `]},
		{"steps":[{"text":"done"}]}]}`
	settings := "[tools]\napproval = \"auto\"\ndisabled = [\"read_file\"]\n[tools.code_mode]\nenabled = true\nallow = [\"read_file\"]\napproval = \"auto\"\n"
	p, events, sid, rec := agentPool(t, script, settings, map[string]string{})
	if err := os.WriteFile(filepath.Join(p.runtime().runner.Cwd(), "a.txt"), []byte("alpha\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	evs := runTurn(t, p, events, sid, "go")
	if last := evs[len(evs)-1]; last.Outcome != "completed" {
		t.Fatalf("run.finished = %+v", last)
	}
	names := toolNames(rec.reqs[0])
	if slices.Contains(names, "read_file") || !slices.Contains(names, "run_code") || !slices.Contains(names, "write_file") {
		t.Fatalf("direct tools = %v; want run_code and write_file, not the disabled read_file", names)
	}
	// In code: read_file (allowed there) works, write_file (direct only) is
	// not even defined.
	if got := lastToolText(rec.reqs[1]); got != "alpha,TypeError" {
		t.Fatalf("program result = %q; want alpha,TypeError", got)
	}
	if _, err := os.Stat(filepath.Join(p.runtime().runner.Cwd(), "b.txt")); !os.IsNotExist(err) {
		t.Fatal("a program wrote through a tool it was not allowed")
	}
	// Directly: read_file (allowed only in code) is refused.
	if got := lastToolText(rec.reqs[2]); got != "unknown tool" {
		t.Fatalf("direct call of a code-only tool = %q; want unknown tool", got)
	}
	// One activity for the program, one for its inner read.
	acts := strings.Join(activities(evs), "|")
	if !strings.Contains(acts, "tool run_code started") || !strings.Contains(acts, "tool read_file completed") {
		t.Fatalf("activities = %s", acts)
	}
}

func TestHookBlocksToolCall(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	script := `{"responses":[{"steps":[` + toolCall("shell", map[string]string{"command": "touch " + marker}) + `]},{"steps":[{"text":"ok"}]}]}`
	settings := "[tools]\napproval = \"auto\"\n[[hooks]]\nevent = \"pre_tool_use\"\nmatcher = \"shell\"\ncommand = \"echo 'no shell today' >&2; exit 2\"\n"
	p, events, sid, rec := agentPool(t, script, settings, map[string]string{})
	evs := runTurn(t, p, events, sid, "go")
	if last := evs[len(evs)-1]; last.Outcome != "completed" {
		t.Fatalf("run.finished = %+v", last)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatal("a blocked shell command ran")
	}
	if got := lastToolText(rec.reqs[1]); !strings.Contains(got, "no shell today") {
		t.Fatalf("the model saw %q; want the hook's reason", got)
	}
}

func TestProtectionsWired(t *testing.T) {
	script := `{"responses":[{"steps":[` + toolCall("write_file", map[string]string{"path": ".git/config", "content": "x"}) + `]},{"steps":[{"text":"ok"}]}]}`
	p, events, sid, rec := agentPool(t, script, "[tools]\napproval = \"auto\"\n", map[string]string{})
	runTurn(t, p, events, sid, "go")
	if got := lastToolText(rec.reqs[1]); !strings.HasPrefix(got, "refused:") {
		t.Fatalf("write into .git = %q; want refused", got)
	}
	if _, err := os.Stat(filepath.Join(p.runtime().runner.Cwd(), ".git", "config")); !os.IsNotExist(err) {
		t.Fatal(".git/config was written")
	}
}

func TestActivityNameUntrusted(t *testing.T) {
	for in, want := range map[string]string{
		"read_file":             "read_file",
		"mcp__srv__lookup":      "mcp__srv__lookup",
		"":                      "unknown",
		"rm -rf /":              "unknown",
		strings.Repeat("a", 65): "unknown",
		"sk-\x00secret":         "unknown",
	} {
		if got := activityName(in); got != want {
			t.Errorf("activityName(%q) = %q; want %q", in, got, want)
		}
	}
}

// A model that calls a tool by a made-up name never puts that name on the
// wire.
func TestUnknownToolNameNotEchoed(t *testing.T) {
	name := strings.Repeat("bogus tool name ", 10)
	script := `{"responses":[{"steps":[` + toolCall(name, map[string]string{}) + `]},{"steps":[{"text":"ok"}]}]}`
	p, events, sid, _ := agentPool(t, script, "", map[string]string{})
	for _, e := range runTurn(t, p, events, sid, "go") {
		if strings.Contains(e.ToolName, "bogus") || strings.Contains(e.Summary, "bogus") {
			t.Fatalf("%s echoes the model's tool name: %+v", e.Name, e)
		}
	}
}
