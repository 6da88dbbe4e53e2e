package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// The terminal commands for people: config show masks secrets and names
// each value's source; mcp list and mcp approve round-trip an approval.
func TestCLI(t *testing.T) {
	bin := clienttest.Binary(t)
	const secret = "sk-test-0123456789abcdefghijklmnopqrstuv"
	ws := clienttest.NewWorkspace(t, "provider = \"openai\"\nmodel = \"gpt-test\"\n[providers.openai]\napi_key_env = \"MY_KEY\"\n")
	ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"),
		"model = \"project-model\"\n[mcp_servers.proj]\ncommand = \"/bin/true\"\n")
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = ws.Cwd
		cmd.Env = append(ws.Env(), "MY_KEY="+secret)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run("config", "show")
	if err != nil {
		t.Fatalf("config show: %v\n%s", err, out)
	}
	if strings.Contains(out, secret) {
		t.Fatalf("config show printed the API key:\n%s", out)
	}
	for _, want := range []string{"project-model", "project", "global"} {
		if !strings.Contains(out, want) {
			t.Fatalf("config show lacks %q:\n%s", want, out)
		}
	}

	out, err = run("mcp", "list")
	if err != nil || !strings.Contains(out, "proj") {
		t.Fatalf("mcp list: %v\n%s", err, out)
	}
	before := out
	if out, err = run("mcp", "approve", "proj"); err != nil {
		t.Fatalf("mcp approve: %v\n%s", err, out)
	}
	if out, err = run("mcp", "list"); err != nil || out == before {
		t.Fatalf("mcp list after approve unchanged (%v):\n%s", err, out)
	}
	if out, err := run("mcp", "approve", "nosuch"); err == nil {
		t.Fatalf("approving an unknown server succeeded:\n%s", out)
	}
}

// TestSchemaCommand: `magi-code schema` prints exactly the checked-in
// protocol/schema.json, so the published document cannot drift from the
// file the tests validate frames against.
func TestSchemaCommand(t *testing.T) {
	out, err := exec.Command(clienttest.Binary(t), "schema").Output()
	if err != nil {
		t.Fatalf("magi-code schema: %v", err)
	}
	file, err := os.ReadFile(filepath.Join("..", "..", "protocol", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, file) {
		t.Fatalf("magi-code schema prints %d bytes that differ from protocol/schema.json (%d bytes)", len(out), len(file))
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Fatalf("magi-code schema: not a draft 2020-12 document (%v)", err)
	}
	// The README's command: magi-code schema | python3 -m json.tool.
	if py, err := exec.LookPath("python3"); err == nil {
		cmd := exec.Command(py, "-m", "json.tool")
		cmd.Stdin = bytes.NewReader(out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("python3 -m json.tool: %v\n%s", err, b)
		}
	}
}

// TestCLIWorkspaceTextIsShownNotObeyed: what mcp approve, mcp list and
// config show print of the workspace (a bound script's name, where a link
// leads) reaches the terminal with its control characters made visible:
// a repository cannot retitle the window or clear the screen through them.
func TestCLIWorkspaceTextIsShownNotObeyed(t *testing.T) {
	bin := clienttest.Binary(t)
	ws := clienttest.NewWorkspace(t, "provider = \"fixture\"\nmodel = \"fixture-model\"\n")
	const evil = "x\x1b]0;pwned\x07\x1b[2J"
	ws.WriteFile(t, filepath.Join(ws.Cwd, "tools", "mcp.sh"), "#!/bin/sh\n")
	if err := os.Symlink("mcp.sh", filepath.Join(ws.Cwd, "tools", evil)); err != nil {
		t.Fatal(err)
	}
	ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"),
		"[mcp_servers.proj]\ncommand = \"/bin/sh\"\nargs = [\"tools/"+strings.NewReplacer("\x1b", `\u001b`, "\x07", `\u0007`).Replace(evil)+"\"]\n")
	for _, args := range [][]string{{"mcp", "approve", "proj"}, {"mcp", "list"}, {"config", "show"}} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = ws.Cwd
		cmd.Env = ws.Env()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if args[1] == "approve" && !strings.Contains(string(out), "pwned") {
			t.Fatalf("%v does not name the bound file:\n%q", args, out)
		}
		if strings.ContainsAny(string(out), "\x1b\x07") {
			t.Errorf("%v wrote control characters from the workspace:\n%q", args, out)
		}
	}
}
