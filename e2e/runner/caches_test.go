package runner

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// TestConfinedCachesUnderAuto: under approval = "auto", through serve
// --stdio, a confined shell command cannot change what the person's next
// unconfined build or commit runs: Go's build cache (whose entries the go
// command trusts), Go's extracted modules, Cargo's extracted crates and
// pre-commit's hook repositories keep their content, and so do the
// downloads that the toolchains extract later without checking them
// again: a Go module zip (the go command compares its .ziphash file with
// go.sum, not the zip) and a Cargo .crate file (checked against its
// checksum only as it is downloaded), Cargo's index (a cached entry the
// registry then answers 304 for chooses the versions and dependencies a
// later cargo update resolves) and npm's cache (its cached registry
// metadata, fresh for as long as its own stored headers say, chooses what
// a later npm install of an unpinned package installs).
// Nothing asks. Its own builds get a Go build cache and an npm cache of
// their own: GOCACHE and npm_config_cache name directories below
// ~/.cache/magi-code/go-build and ~/.cache/magi-code/npm that it can
// write. The scratch root is
// outside /tmp and TMPDIR, which the sandbox makes writable.
func TestConfinedCachesUnderAuto(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	cached := map[string]string{
		".cache/go-build/ab/abcd-d":                                  "COMPILED-PACKAGE\n",
		"go/pkg/mod/example.com/m@v1.0.0/x.go":                       "package m\n",
		".cargo/registry/src/index.crates.io-0/c-1.0/build.rs":       "fn main() {}\n",
		".cache/pre-commit/repo0/hook.sh":                            "#!/bin/sh\n",
		"go/pkg/mod/cache/download/example.com/m/@v/v1.0.1.zip":      "PK-MODULE-ZIP\n",
		".cargo/registry/cache/index.crates.io-0/c-1.0.1.crate":      "CRATE\n",
		".cargo/git/db/dep-0123/HEAD":                                "ref: refs/heads/main\n",
		".cargo/registry/index/index.crates.io-0/.cache/se/rd/serde": "INDEX\n",
		".npm/_cacache/index-v5/aa/bb/0123":                          "INDEX\n",
	}
	var cmds []string
	for name, content := range cached {
		p := filepath.Join(s.home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, "echo PWNED >> ~/"+name)
	}
	cmds = append(cmds, `echo built > "$GOCACHE/probe" && echo built > "$npm_config_cache/probe" && echo "GOCACHE=$GOCACHE" && echo "NPM=$npm_config_cache"`)
	reqs := s.confinedShells(t, "poison the caches", cmds)
	for name, content := range cached {
		if got := readFileOr(t, filepath.Join(s.home, name)); got != content {
			t.Errorf("~/%s, run later unconfined, became %q", name, got)
		}
	}
	out := strings.TrimSpace(lastToolResult(t, reqs[len(cmds)].Body))
	gocache, npm, _ := strings.Cut(out, "\n")
	gocache, ok := strings.CutPrefix(gocache, "GOCACHE=")
	if !ok || filepath.Dir(gocache) != filepath.Join(s.home, ".cache", "magi-code", "go-build") {
		t.Fatalf("the confined command's build cache: %q; want GOCACHE in ~/.cache/magi-code/go-build", out)
	}
	npm, ok = strings.CutPrefix(npm, "NPM=")
	if !ok || filepath.Dir(npm) != filepath.Join(s.home, ".cache", "magi-code", "npm") {
		t.Fatalf("the confined command's npm cache: %q; want npm_config_cache in ~/.cache/magi-code/npm", out)
	}
	for _, dir := range []string{gocache, npm} {
		if got := readFileOr(t, filepath.Join(dir, "probe")); got != "built\n" {
			t.Errorf("the confined command's cache %s holds %q", dir, got)
		}
	}
}

// TestNestedRepositoryReadOnlyUnderAuto: a repository nested in the
// workspace (a vendored clone, a workspace holding several) keeps its
// .git read-only to confined commands, as the workspace's own: its hooks
// and configuration, which the person's next git command there runs
// unconfined, keep their content and the directory stays; the rest of the
// nested checkout is written as usual. Nothing asks.
func TestNestedRepositoryReadOnlyUnderAuto(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	inner := filepath.Join(s.ws, "vendor", "inner")
	for _, d := range []string{".git/hooks", "src"} {
		if err := os.MkdirAll(filepath.Join(inner, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := "[core]\n\tbare = false\n"
	if err := os.WriteFile(filepath.Join(inner, ".git", "config"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds := []string{
		`printf '#!/bin/sh\ntouch ~/pwned\n' > vendor/inner/.git/hooks/pre-commit`,
		`printf '[core]\n\tfsmonitor = touch ~/pwned\n' >> vendor/inner/.git/config`,
		`python3 -c "import os; os.rename('vendor/inner/.git', 'vendor/inner/g')" || perl -e 'rename "vendor/inner/.git", "vendor/inner/g" or die'`,
		`echo ok > vendor/inner/src/new.txt`,
	}
	s.confinedShells(t, "plant a hook", cmds)
	if got := readFile(t, filepath.Join(inner, ".git", "config")); got != config {
		t.Errorf("the nested repository's config became %q", got)
	}
	if _, err := os.Stat(filepath.Join(inner, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a hook was planted in the nested repository")
	}
	if _, err := os.Stat(filepath.Join(inner, "g")); err == nil {
		t.Error("the nested repository's .git was renamed")
	}
	if got := readFile(t, filepath.Join(inner, "src", "new.txt")); got != "ok\n" {
		t.Errorf("the nested checkout's src/new.txt = %q; want it written", got)
	}
}

// confinedShells runs one turn under approval = "auto" in s's workspace
// whose model calls shell with each of cmds in turn, then answers "done".
// It skips the test where there is no OS sandbox and fails it on an
// approval request (none may come under auto). It returns the model's
// requests, len(cmds)+1 of them: request i+1 holds the result of cmds[i].
func (s *readScene) confinedShells(t *testing.T, prompt string, cmds []string) []llmRequest {
	t.Helper()
	var answers []http.HandlerFunc
	for i, c := range cmds {
		answers = append(answers, oaCall(fmt.Sprintf("call_%d", i), "shell", map[string]any{"command": c}))
	}
	llm := newLLMServer(t, append(answers, sseAnswer(false, oaTextResponse("done")...))...)
	ch := s.start(t, openaiFormat.settings(llm.srv.URL)+"\n[tools]\napproval = \"auto\"\n")
	var st struct {
		Sandbox string `json:"sandbox"`
	}
	if ch.Result("status", nil, &st); st.Sandbox != "workspace-write" {
		ch.Shutdown()
		t.Skipf("no OS sandbox here (status sandbox %q)", st.Sandbox)
	}
	r := ch.Turn(ch.Create().SessionID, prompt)
	r.WantOutcome(t, "completed", "")
	if n := r.Count(protocol.EventApprovalRequested); n != 0 {
		t.Errorf("%d approval requests under auto; want 0", n)
	}
	ch.Shutdown()
	reqs := llm.recorded()
	if len(reqs) != len(cmds)+1 {
		t.Fatalf("%d model requests; want %d", len(reqs), len(cmds)+1)
	}
	return reqs
}
