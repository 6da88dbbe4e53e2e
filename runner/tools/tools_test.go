package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/internal/proctest"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func workdir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"a.txt":         "one\ntwo\nthree\n",
		"sub/b.go":      "package b\n\nfunc Hello() {}\n",
		"sub/c.txt":     "hello world\nHELLO\n",
		"big.txt":       strings.Repeat("x", 200),
		"dup.txt":       "same same\n",
		"bin.dat":       "hello\x00binary",
		".git/config":   "hello from git\n",
		"utf8.txt":      strings.Repeat("é", 60),
		"nolf.txt":      "last line",
		"edit.txt":      "alpha beta gamma\n",
		"sub/deep/d.md": "# hello\n",
	}
	writeTree(t, dir, files, nil)
	return dir
}

func TestTools(t *testing.T) {
	tests := []struct {
		name        string
		tool        string
		args        string
		wantText    string // exact, unless wantContains
		wantContain bool
		wantErr     bool
		wantSummary string
		check       func(t *testing.T, dir string)
	}{
		{name: "read", tool: "read_file", args: `{"path":"a.txt"}`, wantText: "one\ntwo\nthree\n", wantSummary: "read_file: 3 lines"},
		{name: "read no final LF", tool: "read_file", args: `{"path":"nolf.txt"}`, wantText: "last line", wantSummary: "read_file: 1 lines"},
		{name: "read truncated", tool: "read_file", args: `{"path":"big.txt"}`, wantText: strings.Repeat("x", 100-len(TruncatedMarker)) + TruncatedMarker, wantSummary: "read_file: 1 lines (truncated)"},
		{name: "read truncated utf8", tool: "read_file", args: `{"path":"utf8.txt"}`, wantText: strings.Repeat("é", (100-len(TruncatedMarker))/2) + TruncatedMarker, wantSummary: "read_file: 1 lines (truncated)"},
		{name: "read missing", tool: "read_file", args: `{"path":"nope/secret-name.txt"}`, wantText: "read_file: not found", wantErr: true, wantSummary: "read_file: not found"},
		{name: "read dir", tool: "read_file", args: `{"path":"sub"}`, wantText: "read_file: is a directory", wantErr: true, wantSummary: "read_file: is a directory"},
		{name: "read bad args", tool: "read_file", args: `{"path":7}`, wantText: "read_file: invalid arguments", wantErr: true, wantSummary: "read_file: invalid arguments"},
		{name: "read device", tool: "read_file", args: `{"path":"/dev/zero"}`, wantText: "read_file: not a regular file", wantErr: true, wantSummary: "read_file: not a regular file"},
		{
			name: "write creates dirs", tool: "write_file", args: `{"path":"new/dir/f.txt","content":"hi\n"}`,
			wantText: "write_file: 3 bytes written\n+ hi", wantSummary: "write_file: 3 bytes written",
			check: fileIs("new/dir/f.txt", "hi\n"),
		},
		{name: "write missing content", tool: "write_file", args: `{"path":"x"}`, wantText: "write_file: invalid arguments", wantErr: true, wantSummary: "write_file: invalid arguments"},
		{
			name: "edit", tool: "edit_file", args: `{"path":"edit.txt","old":"beta","new":"BETA"}`,
			wantText: "edit_file: 1 replacement\n- beta\n+ BETA", wantSummary: "edit_file: 1 replacement",
			check: fileIs("edit.txt", "alpha BETA gamma\n"),
		},
		{
			name: "edit to empty", tool: "edit_file", args: `{"path":"edit.txt","old":"beta ","new":""}`,
			wantText: "edit_file: 1 replacement\n- beta \n+ ", wantSummary: "edit_file: 1 replacement",
			check: fileIs("edit.txt", "alpha gamma\n"),
		},
		{name: "edit not found", tool: "edit_file", args: `{"path":"edit.txt","old":"delta","new":"x"}`, wantText: "edit_file: old text not found", wantErr: true, wantSummary: "edit_file: old text not found", check: fileIs("edit.txt", "alpha beta gamma\n")},
		{name: "edit ambiguous", tool: "edit_file", args: `{"path":"dup.txt","old":"same","new":"x"}`, wantText: "edit_file: old text occurs 2 times", wantErr: true, wantSummary: "edit_file: old text occurs 2 times"},
		{name: "edit missing file", tool: "edit_file", args: `{"path":"none.txt","old":"a","new":"b"}`, wantText: "edit_file: not found", wantErr: true, wantSummary: "edit_file: not found"},
		{name: "list", tool: "list_dir", args: `{"path":"sub"}`, wantText: "b.go\nc.txt\ndeep/\n", wantSummary: "list_dir: 3 entries"},
		{name: "list default", tool: "list_dir", args: `{}`, wantText: ".git/\na.txt\nbig.txt\nbin.dat\ndup.txt\nedit.txt\nnolf.txt\nsub/\nutf8.txt\n", wantSummary: "list_dir: 9 entries"},
		{name: "list missing", tool: "list_dir", args: `{"path":"zz"}`, wantText: "list_dir: not found", wantErr: true, wantSummary: "list_dir: not found"},
		{name: "list a file", tool: "list_dir", args: `{"path":"a.txt"}`, wantText: "list_dir: not a directory", wantErr: true, wantSummary: "list_dir: not a directory"},
		{
			name: "grep dir skips git and binary", tool: "grep", args: `{"pattern":"(?i)hello","path":"."}`,
			wantText: "sub/b.go:3:func Hello() {}\nsub/c.txt:1:hello world\nsub/c.txt:2:HELLO\nsub/deep/d.md:1:# hello\n", wantSummary: "grep: 4 matches",
		},
		{name: "grep file", tool: "grep", args: `{"pattern":"^t","path":"a.txt"}`, wantText: "a.txt:2:two\na.txt:3:three\n", wantSummary: "grep: 2 matches"},
		{name: "grep none", tool: "grep", args: `{"pattern":"zzz","path":"."}`, wantText: "no matches", wantSummary: "grep: 0 matches"},
		{name: "grep bad pattern", tool: "grep", args: `{"pattern":"(","path":"."}`, wantText: "grep: invalid pattern", wantErr: true, wantSummary: "grep: invalid pattern"},
		{name: "shell", tool: "shell", args: `{"command":"echo hi; echo err >&2"}`, wantText: "hi\nerr\n", wantSummary: "shell: exit 0"},
		{name: "shell cwd", tool: "shell", args: `{"command":"cat a.txt | wc -l | tr -d ' '"}`, wantText: "3\n", wantSummary: "shell: exit 0"},
		{name: "shell exit code", tool: "shell", args: `{"command":"echo no; exit 3"}`, wantText: "no\n\n[exit 3]", wantErr: true, wantSummary: "shell: exit 3"},
		{name: "shell no output", tool: "shell", args: `{"command":"true"}`, wantText: "[no output]", wantSummary: "shell: exit 0"},
		{name: "shell stdin empty", tool: "shell", args: `{"command":"wc -c"}`, wantText: "0\n", wantContain: true, wantSummary: "shell: exit 0"},
		{name: "shell truncated", tool: "shell", args: `{"command":"yes | head -c 100000"}`, wantText: TruncatedMarker, wantContain: true, wantSummary: "shell: exit 0"},
		{name: "shell bad args", tool: "shell", args: `{}`, wantText: "shell: invalid arguments", wantErr: true, wantSummary: "shell: invalid arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := workdir(t)
			// /dev is a read root: the device rows reach the type check.
			set := Builtin(Options{Cwd: dir, MaxOutput: 100, ReadRoots: []string{"/dev"}})
			tool, ok := set.Get(tc.tool)
			if !ok {
				t.Fatalf("no tool %q", tc.tool)
			}
			res := tool.Run(context.Background(), json.RawMessage(tc.args))
			textOK := res.Text == tc.wantText
			if tc.wantContain {
				textOK = strings.Contains(res.Text, tc.wantText)
			}
			if !textOK || res.IsError != tc.wantErr || res.Summary != tc.wantSummary {
				t.Errorf("%s(%s) = {%q, %v, %q}; want {%q, %v, %q}", tc.tool, tc.args,
					res.Text, res.IsError, res.Summary, tc.wantText, tc.wantErr, tc.wantSummary)
			}
			if len(res.Text) > 100 {
				t.Errorf("result is %d bytes; bound is 100", len(res.Text))
			}
			if tc.check != nil {
				tc.check(t, dir)
			}
		})
	}
}

func fileIs(name, want string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestSetAndSpecs(t *testing.T) {
	set := Builtin(Options{Cwd: t.TempDir()})
	want := []struct {
		name     string
		mutating bool
	}{{"read_file", false}, {"write_file", true}, {"edit_file", true}, {"list_dir", false}, {"grep", false}, {"shell", true}}
	all := set.All()
	if len(all) != len(want) {
		t.Fatalf("%d tools; want %d", len(all), len(want))
	}
	for i, w := range want {
		if all[i].Name() != w.name || all[i].Mutating() != w.mutating {
			t.Errorf("tool %d = %s mutating=%v; want %s %v", i, all[i].Name(), all[i].Mutating(), w.name, w.mutating)
		}
		var schema map[string]any
		if err := json.Unmarshal(all[i].Schema(), &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s schema invalid: %v", w.name, err)
		}
	}
	if _, ok := set.Get("nope"); ok {
		t.Error("Get(nope) found a tool")
	}
}

func TestDescribeBounded(t *testing.T) {
	set := Builtin(Options{Cwd: t.TempDir()})
	tool, _ := set.Get("shell")
	long := strings.Repeat("a", 2000)
	args, _ := json.Marshal(map[string]string{"command": "echo " + long})
	if d := tool.Describe(args); len(d) > DescribeBytes || !strings.HasPrefix(d, "shell: echo aaa") {
		t.Errorf("Describe = %d bytes %q...", len(d), d[:20])
	}
}

func TestShellEnvIsMinimal(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak-0123456789")
	set := Builtin(Options{Cwd: t.TempDir()})
	tool, _ := set.Get("shell")
	res := tool.Run(context.Background(), json.RawMessage(`{"command":"env"}`))
	if strings.Contains(res.Text, "sk-must-not-leak") || !strings.Contains(res.Text, "PATH=") {
		t.Errorf("env = %q", res.Text)
	}
	for _, line := range strings.Split(strings.TrimSpace(res.Text), "\n") {
		k, _, _ := strings.Cut(line, "=")
		switch k {
		case "PATH", "HOME", "LANG", "TERM", "PWD", "SHLVL", "_", "OLDPWD":
		default:
			t.Errorf("unexpected variable %q", k)
		}
	}
}

// TestShellTimeout: a command past the shell timeout is killed with its
// group, and the result says so. The output it wrote before is kept: the
// long timeout leaves sh ample time to start and print under any load, and
// the short one asserts only what does not depend on sh having started.
func TestShellTimeout(t *testing.T) {
	for _, tc := range []struct {
		timeout    time.Duration
		keepsStart bool
	}{
		{50 * time.Millisecond, false},
		{2 * time.Second, true},
	} {
		t.Run(tc.timeout.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			set := Builtin(Options{Cwd: dir, ShellTimeout: tc.timeout})
			tool, _ := set.Get("shell")
			res := tool.Run(context.Background(), json.RawMessage(`{"command":"echo $$ > pgid; echo started; : > wrote; sleep 30"}`))
			outcome := "timed out after " + tc.timeout.String()
			if !res.IsError || res.Summary != "shell: "+outcome || !strings.HasSuffix(res.Text, "["+outcome+"]") {
				t.Errorf("= %+v; want an error result that says %q", res, outcome)
			}
			// "wrote" exists only if the echo finished before the kill (a
			// machine slow enough may not get there in time; then there
			// is no output to keep).
			if tc.keepsStart && fileExists(filepath.Join(dir, "wrote")) && !strings.HasPrefix(res.Text, "started\n") {
				t.Errorf("text %q; want the output written before the timeout", res.Text)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "pgid")); err == nil && strings.HasSuffix(string(b), "\n") {
				pgid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				groupGone(t, pgid) // the sleep was killed with its shell
			}
		})
	}
}

// groupGone waits (bounded) until no process of group pgid runs. Killed
// orphans may stay zombies (nobody reaps them when the test is PID 1 of its
// namespace), so a zombie counts as gone.
func groupGone(t *testing.T, pgid int) {
	t.Helper()
	proctest.WaitGroupGone(t, pgid)
}

func readPgid(t *testing.T, p string) int {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if b, err := os.ReadFile(p); err == nil && strings.HasSuffix(string(b), "\n") {
			n, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("shell never started")
	return 0
}

func TestShellCancelKillsGroup(t *testing.T) {
	dir := t.TempDir()
	set := Builtin(Options{Cwd: dir})
	tool, _ := set.Get("shell")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result)
	go func() {
		done <- tool.Run(ctx, json.RawMessage(`{"command":"sleep 1000 & sleep 1000 & echo $$ > pgid; wait"}`))
	}()
	pgid := readPgid(t, filepath.Join(dir, "pgid"))
	cancel()
	res := <-done
	if !res.IsError || res.Summary != "shell: cancelled" {
		t.Errorf("= %+v", res)
	}
	groupGone(t, pgid)
}

func TestShellBackgroundChildKilledAfterExit(t *testing.T) {
	dir := t.TempDir()
	set := Builtin(Options{Cwd: dir})
	tool, _ := set.Get("shell")
	// The background sleep keeps the output pipe open: Run must still return.
	res := tool.Run(context.Background(), json.RawMessage(`{"command":"sleep 1000 & echo $$ > pgid; echo done"}`))
	if res.IsError || res.Text != "done\n" {
		t.Errorf("= %+v", res)
	}
	groupGone(t, readPgid(t, filepath.Join(dir, "pgid")))
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// An edit's and a write's approval description shows the change, each
// side bounded, and the whole within DescribeBytes.
func TestDescribeShowsTheChange(t *testing.T) {
	set := Builtin(Options{Cwd: t.TempDir()})
	edit, _ := set.Get("edit_file")
	write, _ := set.Get("write_file")
	args, _ := json.Marshal(map[string]any{"path": "main.go", "old": "x := 1\ny := 2", "new": "x := 10\ny := 20"})
	d := edit.Describe(args)
	for _, want := range []string{"edit_file: main.go", "- x := 1", "- y := 2", "+ x := 10", "+ y := 20"} {
		if !strings.Contains(d, want) {
			t.Fatalf("the edit's description lacks %q:\n%s", want, d)
		}
	}
	long := strings.Repeat("a line of the new file\n", 200)
	args, _ = json.Marshal(map[string]any{"path": "big.txt", "old": "a", "new": long})
	if d := edit.Describe(args); len(d) > DescribeBytes || !strings.Contains(d, "+ … 192 more lines") {
		t.Fatalf("a long change is not bounded (%d bytes):\n%s", len(d), d)
	}
	args, _ = json.Marshal(map[string]any{"path": "new.txt", "content": "hello\nworld\n"})
	if d := write.Describe(args); !strings.Contains(d, "+ hello\n+ world") {
		t.Fatalf("the write's description lacks its content:\n%s", d)
	}
}

// writeTree writes files (path below root -> content, mode 0644, parent
// directories made) and links (path below root -> symlink target) under
// root.
func writeTree(t *testing.T, root string, files, links map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
}
