//go:build unix

package tools

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// recOutput records what a command wrote and how it ended.
type recOutput struct {
	b     bytes.Buffer
	exits []string
}

func (o *recOutput) Write(p []byte) (int, error) { return o.b.Write(p) }
func (o *recOutput) Exited(code int, signal string) {
	o.exits = append(o.exits, fmt.Sprintf("%d %q", code, signal))
}

// TestShellOutput: the shell writes its combined output to the context's
// Output as it comes (all of it, past the model's bound too), then says
// how it ended; the model's result is unchanged.
func TestShellOutput(t *testing.T) {
	for _, tc := range []struct {
		cmd, want, exit, result string
	}{
		{"echo out; echo err >&2; exit 3", "out\nerr\n", `3 ""`, "out\nerr\n\n[exit 3]"},
		{"printf partial", "partial", `0 ""`, "partial"},
		{"echo before; kill -9 $$", "before\n", `-1 "killed"`, "before\n\n[killed]"},
		{"head -c 100000 /dev/zero | tr '\\0' y", strings.Repeat("y", 100000), `0 ""`, ""},
	} {
		tool, _ := Builtin(Options{Cwd: t.TempDir(), MaxOutput: 1000}).Get("shell")
		if _, ok := tool.(Streaming); !ok {
			t.Fatal("the shell does not stream")
		}
		out := &recOutput{}
		res := tool.Run(WithOutput(context.Background(), out), []byte(`{"command":`+quote(tc.cmd)+`}`))
		if out.b.String() != tc.want || len(out.exits) != 1 || out.exits[0] != tc.exit {
			t.Errorf("%s: live %q exits %q; want %q [%s]", tc.cmd, out.b.String()[:min(out.b.Len(), 40)], out.exits, tc.want[:min(len(tc.want), 40)], tc.exit)
		}
		if tc.result != "" && res.Text != tc.result {
			t.Errorf("%s: result %q; want %q", tc.cmd, res.Text, tc.result)
		}
	}
	// Without an Output (or under WithOutput(nil)) the shell runs as ever.
	tool, _ := Builtin(Options{Cwd: t.TempDir()}).Get("shell")
	if res := tool.Run(WithOutput(context.Background(), nil), []byte(`{"command":"echo hi"}`)); res.Text != "hi\n" {
		t.Errorf("without an Output: %q", res.Text)
	}
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
