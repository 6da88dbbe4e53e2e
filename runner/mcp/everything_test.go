package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/everything"
)

func TestServerEverything(t *testing.T) {
	checkLeaks(t)
	node, entry := everything.Entry(t)
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
