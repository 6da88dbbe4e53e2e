// Package everything finds, or installs, the reference MCP server
// @modelcontextprotocol/server-everything for tests, the same way for every
// test that runs it: $MAGI_MCP_EVERYTHING (its package directory) when set,
// else the module's .tools directory, where `make test` installs it (or, in a
// linked git worktree, the main worktree's); when it is missing there and npm
// exists, Entry installs the version the Makefile
// pins (EVERYTHING_VERSION) into .tools itself, so that a plain `go test`
// runs the same tests as `make test`. Without node, or when the install
// fails (offline), the test is skipped with the reason.
package everything

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// installTimeout bounds the npm install (an unreachable registry otherwise
// hangs the test until go test's own timeout).
const installTimeout = 3 * time.Minute

// Entry returns node and the server's JavaScript entry point, installing the
// pinned package into <module root>/.tools when needed; it skips t when
// either cannot be had. Safe for concurrent use by several test processes:
// installs are serialized by a lock file in .tools.
func Entry(t testing.TB) (node, entry string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found: the reference MCP server cannot run")
	}
	if dir := os.Getenv("MAGI_MCP_EVERYTHING"); dir != "" {
		entry, err := entryOf(dir)
		if err != nil {
			t.Fatalf("MAGI_MCP_EVERYTHING=%s: %v", dir, err)
		}
		return node, entry
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	tools := filepath.Join(root, ".tools")
	dir := filepath.Join(tools, "node_modules", "@modelcontextprotocol", "server-everything")
	if entry, err := entryOf(dir); err == nil {
		return node, entry
	}
	// In a linked git worktree, the main worktree's .tools will do.
	if main := mainWorktree(root); main != "" {
		if entry, err := entryOf(filepath.Join(main, ".tools", "node_modules", "@modelcontextprotocol", "server-everything")); err == nil {
			return node, entry
		}
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("@modelcontextprotocol/server-everything is not in .tools and npm is not found (make test installs it)")
	}
	version, err := pinnedVersion(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := lock(filepath.Join(tools, ".install.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	// Another test process may have installed it while we waited.
	if entry, err := entryOf(dir); err == nil {
		return node, entry
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--silent", "--no-audit", "--no-fund", "--save-exact",
		"--prefix", tools, "@modelcontextprotocol/server-everything@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm install @modelcontextprotocol/server-everything@%s failed (offline?): %v\n%s", version, err, out)
	}
	entry, err = entryOf(dir)
	if err != nil {
		t.Fatalf("after npm install: %v", err)
	}
	return node, entry
}

// entryOf reads the package's bin entry from its package.json.
func entryOf(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct {
		Bin json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "", err
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
	if one == "" {
		return "", errors.New("package.json has no bin entry")
	}
	return filepath.Join(dir, one), nil
}

// moduleRoot is the nearest directory above the working directory (a test
// runs in its package's directory) that holds go.mod.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above " + wd)
		}
	}
}

// mainWorktree returns the main worktree's directory when root is a linked
// git worktree (its .git is a file "gitdir: MAIN/.git/worktrees/NAME"), or "".
func mainWorktree(root string) string {
	b, err := os.ReadFile(filepath.Join(root, ".git"))
	if err != nil {
		return ""
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return ""
	}
	common := filepath.Dir(filepath.Dir(gitdir)) // MAIN/.git
	if filepath.Base(common) != ".git" {
		return ""
	}
	return filepath.Dir(common)
}

// pinnedVersion reads `EVERYTHING_VERSION := X` from the Makefile, the one
// place the version is written.
func pinnedVersion(makefile string) (string, error) {
	f, err := os.Open(makefile)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":=")
		if ok && strings.TrimSpace(name) == "EVERYTHING_VERSION" {
			return strings.TrimSpace(value), nil
		}
	}
	return "", errors.New("EVERYTHING_VERSION not found in " + makefile)
}
