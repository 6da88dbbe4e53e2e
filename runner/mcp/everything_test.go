package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// everythingEntry finds an installed @modelcontextprotocol/server-everything
// without installing anything: $MAGI_MCP_EVERYTHING (the package directory),
// a node_modules above this directory, or npm's global root. It returns the
// package's JavaScript entry point, or a reason to skip.
func everythingEntry() (node, entry, skip string) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", "", "node not found"
	}
	var dirs []string
	if d := os.Getenv("MAGI_MCP_EVERYTHING"); d != "" {
		dirs = append(dirs, d)
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			dirs = append(dirs, filepath.Join(d, "node_modules", "@modelcontextprotocol", "server-everything"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if npm, err := exec.LookPath("npm"); err == nil {
		if out, err := exec.Command(npm, "root", "-g").Output(); err == nil {
			dirs = append(dirs, filepath.Join(strings.TrimSpace(string(out)), "@modelcontextprotocol", "server-everything"))
		}
	}
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		var pkg struct {
			Bin json.RawMessage `json:"bin"`
		}
		if json.Unmarshal(data, &pkg) != nil {
			continue
		}
		var one string
		var many map[string]string
		switch {
		case json.Unmarshal(pkg.Bin, &one) == nil && one != "":
		case json.Unmarshal(pkg.Bin, &many) == nil:
			for _, v := range many {
				one = v
				break
			}
		}
		if one != "" {
			return node, filepath.Join(dir, one), ""
		}
	}
	return "", "", "@modelcontextprotocol/server-everything is not installed (set MAGI_MCP_EVERYTHING to its package directory, or install it globally / in a node_modules above the repo; the test never installs it)"
}

func TestServerEverything(t *testing.T) {
	checkLeaks(t)
	node, entry, skip := everythingEntry()
	if skip != "" {
		t.Skip(skip)
	}
	m, err := Start(context.Background(), []ServerDef{{Name: "everything", Command: node, Args: []string{entry, "stdio"}}}, t.Logf)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer closeManager(t, m)
	var echo *Tool
	for _, tool := range m.Tools() {
		if tool.FullName == "mcp__everything__echo" {
			echo = &tool
		}
	}
	if echo == nil {
		t.Fatalf("no mcp__everything__echo in %d tools", len(m.Tools()))
	}
	text, isError, err := m.Call(context.Background(), echo.FullName, json.RawMessage(`{"message":"hello everything"}`), 1000)
	if err != nil || isError || !strings.Contains(text, "hello everything") {
		t.Fatalf("Call(echo) = %q, %v, %v", text, isError, err)
	}
}
