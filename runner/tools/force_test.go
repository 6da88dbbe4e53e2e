package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestShellForceApproval(t *testing.T) {
	dir := t.TempDir()
	set := Builtin(Options{Cwd: dir, Env: []string{"PATH=/usr/bin:/bin", "HOME=/home/user"}})
	tool, _ := set.Get("shell")
	fa, ok := tool.(ForceApprover)
	if !ok {
		t.Fatal("shell does not implement ForceApprover")
	}
	tests := []struct {
		args string
		want bool
		why  string
	}{
		{`{"command":"rm -rf ~"}`, true, "recursive delete outside the workspace"},
		{`{"command":"rm -rf ~/canary"}`, true, "recursive delete outside the workspace"},
		{`{"command":"rm -rf ` + dir + `"}`, true, "recursive delete of the workspace"},
		{`{"command":"rm -rf *"}`, true, "recursive delete of the workspace"},
		{`{"command":"rm -rf 'x"}`, true, "command could not be parsed"},
		{`{"command":"rm -rf build"}`, false, ""},
		{`{"command":""}`, false, ""},
		{`{"command":7}`, false, ""},
		{`not json`, false, ""},
	}
	for _, tc := range tests {
		if got, why := fa.ForceApproval(json.RawMessage(tc.args)); got != tc.want || why != tc.why {
			t.Errorf("ForceApproval(%s) = %v, %q; want %v, %q", tc.args, got, why, tc.want, tc.why)
		}
	}
	off := Builtin(Options{Cwd: dir, NoForceApproval: true})
	tool, _ = off.Get("shell")
	if got, _ := tool.(ForceApprover).ForceApproval(json.RawMessage(`{"command":"rm -rf /"}`)); got {
		t.Error("ForceApproval with NoForceApproval = true")
	}
}

func TestShellForceApprovalResolvedCwd(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	tool, _ := Builtin(Options{Cwd: link}).Get("shell")
	for _, cmd := range []string{"rm -rf " + link, "rm -rf " + real, "rm -rf " + filepath.Dir(real)} {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		if got, _ := tool.(ForceApprover).ForceApproval(args); !got {
			t.Errorf("ForceApproval(%q) = false with cwd %s -> %s", cmd, link, real)
		}
	}
}
