package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"
	"time"
)

// TestToolFilters: enabled_tools is an allow list of the server's tool
// names (set to [] it offers none), disabled_tools is removed after it;
// names the server does not list change nothing.
func TestToolFilters(t *testing.T) {
	checkLeaks(t)
	allow, _ := testDef(t, "allow", "good")
	allow.EnabledTools = []string{"echo", "write", "hang", "not-listed"}
	allow.DisabledTools = []string{"write"}
	deny, _ := testDef(t, "deny", "good")
	deny.DisabledTools = []string{"echo", "odd.name/with spaces"}
	none, _ := testDef(t, "none", "good")
	none.EnabledTools = []string{}
	m, err := Start(context.Background(), []ServerDef{allow, deny, none}, t.Logf)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer closeManager(t, m)
	offered := map[string][]string{}
	for _, tool := range m.Tools() {
		offered[tool.Server] = append(offered[tool.Server], tool.Name)
	}
	if got, want := offered["allow"], []string{"echo", "hang"}; !slices.Equal(got, want) {
		t.Errorf("allow offers %q; want %q", got, want)
	}
	if got := offered["deny"]; slices.Contains(got, "echo") || slices.Contains(got, "odd.name/with spaces") || !slices.Contains(got, "write") {
		t.Errorf("deny offers %q; want all but echo and the odd name", got)
	}
	if got := offered["none"]; len(got) != 0 {
		t.Errorf("enabled_tools = [] offers %q; want nothing", got)
	}
	// A filtered tool cannot be called by its full name either.
	if _, _, err := m.Call(context.Background(), "mcp__allow__write", json.RawMessage(`{"text":"x"}`), 100); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("Call of a disabled tool = %v; want ErrUnknownTool", err)
	}
}

// TestStartupTimeout: a server that does not finish its handshake within
// StartupTimeout fails the start with ErrStartupTimeout (not the "server
// closed" of its killing), and its process group is gone.
func TestStartupTimeout(t *testing.T) {
	checkLeaks(t)
	hang, marker := testDef(t, "hang", "hang")
	hang.StartupTimeout = 50 * time.Millisecond
	m, err := Start(context.Background(), []ServerDef{hang}, t.Logf)
	if m != nil || !errors.Is(err, ErrStartupTimeout) {
		t.Fatalf("Start = %v, %v; want nil, ErrStartupTimeout", m, err)
	}
	var serr *StartError
	if !errors.As(err, &serr) || serr.Server != "hang" {
		t.Errorf("Start error = %#v; want a *StartError of server hang", err)
	}
	// The server may be killed before it ran far enough to write its
	// marker (a slow start is what the bound is for); if it did, it and
	// its child are gone.
	if _, err := os.Stat(marker); err == nil {
		pid, child := readMarker(t, marker)
		requireGone(t, pid, child)
	}
}

// TestToolTimeout: a call that outlives the server's ToolTimeout ends with
// ErrToolTimeout (the caller's context still alive), and the server stays
// usable.
func TestToolTimeout(t *testing.T) {
	checkLeaks(t)
	def, _ := testDef(t, "good", "good")
	def.ToolTimeout = 50 * time.Millisecond
	m, err := Start(context.Background(), []ServerDef{def}, t.Logf)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer closeManager(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	defer cancel()
	if _, _, err := m.Call(ctx, "mcp__good__hang", nil, 100); !errors.Is(err, ErrToolTimeout) || ctx.Err() != nil {
		t.Fatalf("Call(hang) = %v (caller's ctx %v); want ErrToolTimeout", err, ctx.Err())
	}
	if text, _, err := m.Call(ctx, "mcp__good__echo", json.RawMessage(`{"text":"after"}`), 100); err != nil || text != "after" {
		t.Fatalf("Call(echo) after a timeout = %q, %v", text, err)
	}
}
