package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// run runs the builtin tool name in dir with args.
func run(t *testing.T, dir string, maxOutput int, name, args string) Result {
	t.Helper()
	tool, ok := Builtin(Options{Cwd: dir, MaxOutput: maxOutput}).Get(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return tool.Run(context.Background(), json.RawMessage(args))
}

// A chain of exactly maxLinks symbolic links resolves; one more is refused.
func TestRealPathLinkBound(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	prev := target
	for i := 1; i <= maxLinks+1; i++ {
		link := filepath.Join(dir, "l"+strconv.Itoa(i))
		if err := os.Symlink(prev, link); err != nil {
			t.Fatal(err)
		}
		prev = link
	}
	real, _ := filepath.EvalSymlinks(target)
	if got, err := realPath(filepath.Join(dir, "l"+strconv.Itoa(maxLinks))); err != nil || got != real {
		t.Errorf("realPath(%d links) = %q, %v; want %q", maxLinks, got, err, real)
	}
	if _, err := realPath(filepath.Join(dir, "l"+strconv.Itoa(maxLinks+1))); !errors.Is(err, errTooManyLinks) {
		t.Errorf("realPath(%d links) err = %v; want errTooManyLinks", maxLinks+1, err)
	}
}

// realOrSelf resolves a directory reached through a link; only what cannot
// be resolved stays as written.
func TestRealOrSelf(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(real)
	if got := realOrSelf(filepath.Join(dir, "link") + "/"); got != want {
		t.Errorf("realOrSelf(link/) = %q; want %q", got, want)
	}
	if got := realOrSelf(""); got != "" {
		t.Errorf("realOrSelf(\"\") = %q", got)
	}
}

// Options used without preparation still protect .git by its real path: a
// link in the workspace that points into .git is no way around it.
func TestWriteTargetUnpreparedOptions(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, ".git"), filepath.Join(dir, "innocent")); err != nil {
		t.Fatal(err)
	}
	if _, reason, bad := (Options{Cwd: dir}).writeTarget("innocent/config"); reason != RefusedGitInternals {
		t.Errorf("writeTarget(innocent/config) = reason %q, bad %q; want %q", reason, bad, RefusedGitInternals)
	}
	// A workspace whose own path has a .git component is judged inside
	// the workspace only.
	ws := filepath.Join(dir, ".git", "ws")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, reason, bad := (Options{Cwd: ws}).writeTarget("file.txt"); reason != "" || bad != "" {
		t.Errorf("writeTarget(file.txt) in %s = reason %q, bad %q; want it allowed", ws, reason, bad)
	}
}

// MinimalEnv passes PATH as it is, defaults an unset or empty PATH, and
// leaves out an unset HOME rather than inventing one.
func TestMinimalEnvPath(t *testing.T) {
	t.Setenv("PATH", "/custom/bin")
	t.Setenv("HOME", "")
	os.Unsetenv("HOME")
	env := strings.Join(MinimalEnv(), "\n")
	if !strings.Contains(env, "PATH=/custom/bin") || strings.Contains(env, "HOME=") {
		t.Errorf("MinimalEnv = %q; want PATH as set and no HOME", env)
	}
	t.Setenv("PATH", "")
	if env := strings.Join(MinimalEnv(), "\n"); !strings.Contains(env, "PATH=/usr/bin:/bin") {
		t.Errorf("MinimalEnv with an empty PATH = %q; want the default", env)
	}
}

// bound and clip keep text of exactly the limit as it is, and never cut
// before the first byte (a text of continuation bytes becomes empty).
func TestBoundAndClipAtTheLimit(t *testing.T) {
	if got := bound("abcdef", 6, "…"); got != "abcdef" {
		t.Errorf("bound(6 bytes, 6) = %q; want it whole", got)
	}
	if got := bound("\x80\x80\x80\x80", 2, ""); got != "" {
		t.Errorf("bound(continuation bytes, 2) = %q; want nothing", got)
	}
	if got, cut := clip("abcdef", 6, false); got != "abcdef" || cut {
		t.Errorf("clip(6 bytes, 6) = %q, %v; want it whole", got, cut)
	}
}

// An edit's description shows at most describeLines lines of each side and
// says how many more there are: exactly describeLines shows all, no note.
func TestDiffLines(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString("l" + strconv.Itoa(i) + "\n")
		}
		return b.String()
	}
	if got := diffLines("- ", lines(describeLines)); strings.Count(got, "\n") != describeLines-1 || strings.Contains(got, "more lines") {
		t.Errorf("diffLines(%d lines) = %q; want all of them and no note", describeLines, got)
	}
	if got := diffLines("- ", lines(describeLines+1)); !strings.HasSuffix(got, "- … 1 more lines") {
		t.Errorf("diffLines(%d lines) = %q; want a note of 1 more line", describeLines+1, got)
	}
}

// grep treats a file whose first byte is NUL as binary, and accepts a
// pattern of exactly maxPatternBytes.
func TestGrepEdges(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "nul.bin"), []byte("\x00hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "text.txt"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := run(t, dir, 1000, "grep", `{"pattern":"hello","path":"."}`); res.Text != "text.txt:1:hello\n" {
		t.Errorf("grep = %q; want only the text file", res.Text)
	}
	exact := strings.Repeat("a", maxPatternBytes-len("hello|")) // "hello|aaa..." is exactly the bound
	if res := run(t, dir, 1000, "grep", `{"pattern":"hello|`+exact+`","path":"text.txt"}`); res.IsError {
		t.Errorf("grep with a %d-byte pattern = %q; want it accepted", maxPatternBytes, res.Text)
	}
	if res := run(t, dir, 1000, "grep", `{"pattern":"hello|`+exact+`a","path":"text.txt"}`); !res.IsError {
		t.Errorf("grep with a %d-byte pattern = %q; want invalid arguments", maxPatternBytes+1, res.Text)
	}
}

// write_file's description counts the content's bytes.
func TestWriteFileDescribeCounts(t *testing.T) {
	tool, _ := Builtin(Options{Cwd: t.TempDir(), MaxOutput: 1000}).Get("write_file")
	if got := tool.Describe(json.RawMessage(`{"path":"f.txt","content":"hi\n"}`)); !strings.HasPrefix(got, "write_file: f.txt (3 bytes)\n+ hi") {
		t.Errorf("Describe = %q; want the path, 3 bytes and the content", got)
	}
	if got := tool.Describe(json.RawMessage(`{"path":"f.txt"}`)); got != "write_file: f.txt (0 bytes)" {
		t.Errorf("Describe without content = %q", got)
	}
}

// grep does not descend into a credential directory of the workspace, and
// an empty pattern match at the end of a file is no extra line.
func TestGrepSkipsCredentialDirsAndEOF(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{".ssh/id_ed25519": "hello secret\n", "a.txt": "hello\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if res := run(t, dir, 1000, "grep", `{"pattern":"hello","path":"."}`); res.Text != "a.txt:1:hello\n" {
		t.Errorf("grep = %q; want only a.txt (not .ssh)", res.Text)
	}
	if res := run(t, dir, 1000, "grep", `{"pattern":"^$","path":"a.txt"}`); res.Text != "no matches" {
		t.Errorf("grep ^$ = %q; want no matches (the end of the file is no line)", res.Text)
	}
}

// edit_file edits a file of exactly MaxEditBytes and refuses a larger one
// without touching it.
func TestEditFileSizeBound(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat("x", MaxEditBytes-len("old\n")) + "old\n"
	for _, tc := range []struct {
		name, content string
		ok            bool
	}{{"exact.txt", body, true}, {"over.txt", body + "y", false}} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		res := run(t, dir, 1000, "edit_file", `{"path":"`+tc.name+`","old":"old","new":"new"}`)
		got, _ := os.ReadFile(p)
		if tc.ok && (res.IsError || len(got) != len(tc.content) || !strings.HasSuffix(string(got), "new\n")) {
			t.Errorf("%s (%d bytes): %q, file %d bytes; want it edited", tc.name, len(tc.content), res.Text, len(got))
		}
		if !tc.ok && (res.Text != "edit_file: file too large" || string(got) != tc.content) {
			t.Errorf("%s (%d bytes): %q, file %d bytes; want file too large and the file unchanged", tc.name, len(tc.content), res.Text, len(got))
		}
	}
}

// list_dir: an empty directory has 0 entries; MaxDirEntries entries are not
// truncated, one more is; names that fill the output exactly all show.
func TestListDirBounds(t *testing.T) {
	mk := func(n int, width int) string {
		dir := t.TempDir()
		for i := range n {
			name := strconv.Itoa(i)
			name = strings.Repeat("f", max(0, width-len(name))) + name
			if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	if res := run(t, mk(0, 0), 100, "list_dir", `{}`); res.IsError || res.Text != "" || res.Summary != "list_dir: 0 entries" {
		t.Errorf("empty dir: %+v", res)
	}
	if res := run(t, mk(10, 9), 100, "list_dir", `{}`); len(res.Text) != 100 || strings.Contains(res.Summary, "truncated") {
		t.Errorf("ten 9-byte names in 100 bytes: %q, %q; want all, not truncated", res.Text, res.Summary)
	}
	big := mk(MaxDirEntries, 0)
	if res := run(t, big, 1<<20, "list_dir", `{}`); res.Summary != "list_dir: 10000 entries" {
		t.Errorf("%d entries: %q; want them all, not truncated", MaxDirEntries, res.Summary)
	}
	if err := os.WriteFile(filepath.Join(big, "one-more"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if res := run(t, big, 1<<20, "list_dir", `{}`); res.Summary != "list_dir: 10000 entries (truncated)" {
		t.Errorf("%d entries: %q; want 10000 shown and truncated", MaxDirEntries+1, res.Summary)
	}
}

// grep output of exactly MaxOutput bytes is whole, not marked truncated;
// one byte less of room truncates it.
func TestGrepOutputOfExactlyItsLimit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\nworld\nhello again\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "a.txt:1:hello\na.txt:3:hello again\n"
	res := run(t, dir, len(want), "grep", `{"pattern":"hello","path":"."}`)
	if res.Text != want || res.Summary != "grep: 2 matches" {
		t.Errorf("grep with MaxOutput %d = %q (%q); want %q whole (grep: 2 matches)", len(want), res.Text, res.Summary, want)
	}
	res = run(t, dir, len(want)-1, "grep", `{"pattern":"hello","path":"."}`)
	if !strings.HasSuffix(res.Text, TruncatedMarker) || !strings.HasSuffix(res.Summary, "(truncated)") {
		t.Errorf("grep with MaxOutput %d = %q (%q); want it truncated", len(want)-1, res.Text, res.Summary)
	}
}

// grep enters directories down to maxGrepDepth levels below its root, not
// one more: a match at that depth is found, one a level deeper is not.
func TestGrepDepthBound(t *testing.T) {
	dir := t.TempDir()
	p := dir
	for range maxGrepDepth + 1 {
		p = filepath.Join(p, "d")
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "f"), []byte("needle\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, dir, 1<<20, "grep", `{"pattern":"needle","path":"."}`)
	if res.Summary != "grep: "+strconv.Itoa(maxGrepDepth)+" matches" {
		t.Errorf("grep over %d levels = %q; want the %d down to maxGrepDepth", maxGrepDepth+1, res.Summary, maxGrepDepth)
	}
}

// A grep whose context ends during the walk reports that it was
// cancelled, not a file system error.
func TestGrepCancelled(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tool, _ := Builtin(Options{Cwd: dir, MaxOutput: 1000}).Get("grep")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := tool.Run(ctx, json.RawMessage(`{"pattern":"hello","path":"."}`)); !res.IsError || res.Text != "grep: cancelled" {
		t.Errorf("grep with a cancelled context = %+v; want grep: cancelled", res)
	}
}

// fsError names each class of file system error, and never the error's
// text (which quotes the path).
func TestFSError(t *testing.T) {
	path := func(err error) error { return &fs.PathError{Op: "open", Path: "/secret/path", Err: err} }
	for _, tc := range []struct {
		err  error
		want string
	}{
		{path(syscall.ENOENT), "not found"},
		{path(syscall.EACCES), "permission denied"},
		{path(syscall.EPERM), "permission denied"},
		{path(syscall.EEXIST), "already exists"},
		{path(syscall.ENOTDIR), "not a directory"},
		{errNotDir, "not a directory"},
		{fmt.Errorf("walk: %w", errNotRegular), "not a regular file"},
		{path(syscall.ELOOP), "too many symbolic links"},
		{errTooManyLinks, "too many symbolic links"},
		{path(syscall.EIO), "i/o error"},
	} {
		if got := fsError(tc.err); got != tc.want {
			t.Errorf("fsError(%v) = %q; want %q", tc.err, got, tc.want)
		}
	}
}

// A path whose resolution fails (a link loop, a file used as a directory)
// is that error, named, for each reading tool: never read through, never
// taken for a path outside.
func TestReadOfAnUnresolvablePath(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("loop", filepath.Join(dir, "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, args, want string }{
		{"read_file", `{"path":"loop/x"}`, "read_file: too many symbolic links"},
		{"grep", `{"pattern":"x","path":"loop/x"}`, "grep: too many symbolic links"},
		{"list_dir", `{"path":"loop/x"}`, "list_dir: too many symbolic links"},
		{"read_file", `{"path":"file/x"}`, "read_file: not a directory"},
	} {
		if res := run(t, dir, 1000, tc.tool, tc.args); !res.IsError || res.Text != tc.want {
			t.Errorf("%s %s = %+v; want %q", tc.tool, tc.args, res, tc.want)
		}
	}
}
