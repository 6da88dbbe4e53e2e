//go:build linux

package acpinterop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/everything"
)

// interopDir is the node project of the interop suite.
func interopDir(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "interop", "acp")
}

// testDecl matches one test of the node suite: a line that starts with
// test( (the suite declares each test so, none in a loop).
var testDecl = regexp.MustCompile(`(?m)^test\(`)

// countTests counts the node suite's tests without node, for the skip
// message.
func countTests(t *testing.T, dir string) int {
	files, _ := filepath.Glob(filepath.Join(dir, "test", "*.test.js"))
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n += len(testDecl.FindAll(b, -1))
	}
	return n
}

// installTimeout bounds npm ci (an unreachable registry otherwise hangs
// the test until go test's own timeout).
const installTimeout = 3 * time.Minute

// ensureDeps installs the suite's pinned dependencies (package-lock.json)
// with npm ci when node_modules does not hold them; it skips t when npm is
// missing or the install fails (offline).
func ensureDeps(t *testing.T, dir string, count int) {
	want, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	// npm ci writes node_modules/.package-lock.json; the same pins mean the
	// same install.
	if have, err := os.ReadFile(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil && samePins(have, want) {
		return
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("npm not found: the %d ACP interop tests are skipped", count)
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--prefer-offline", "--no-audit", "--no-fund", "--silent")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm ci failed (%v): the %d ACP interop tests are skipped\n%s", err, count, out)
	}
}

// samePins reports whether two lock files pin the same packages at the same
// versions.
func samePins(a, b []byte) bool {
	var la, lb struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	if json.Unmarshal(a, &la) != nil || json.Unmarshal(b, &lb) != nil {
		return false
	}
	for k, p := range lb.Packages {
		if k == "" {
			continue
		}
		if la.Packages[k].Version != p.Version {
			return false
		}
	}
	return len(lb.Packages) > 1
}

// tapLine is one top-level result line of node's TAP reporter.
var tapLine = regexp.MustCompile(`^(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO)\b ?(.*))?$`)

// TestInterop runs the node interop suite (interop/acp: the ACP SDK's
// client, a tap on both directions, every frame validated against the v1
// schema) against the binary, one Go subtest per node test. Without node
// it is skipped, with the number of tests it would have run.
func TestInterop(t *testing.T) {
	dir := interopDir(t)
	count := countTests(t, dir)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node not found: the %d ACP interop tests are skipped", count)
	}
	ensureDeps(t, dir, count)
	bin := clienttest.Binary(t)
	// The reference MCP server, for the client's HTTP MCP server scenario
	// (skipped there when it cannot be had).
	var everythingEntry string
	t.Run("find the reference MCP server", func(t *testing.T) { _, everythingEntry = everything.Entry(t) })
	cmd := exec.Command(node, "--test", "--test-reporter=tap", "--test-concurrency=1", "test/")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MAGI_CODE_BIN="+bin, "MAGI_DEMO_MCP_BIN="+demoMCP, "MAGI_MCP_EVERYTHING_ENTRY="+everythingEntry)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	runErr := cmd.Run()
	results := 0
	var block []string
	// A top-level result line comes after its indented details; the
	// details of each test are printed with it.
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		m := tapLine.FindStringSubmatch(line)
		if m == nil {
			block = append(block, line)
			continue
		}
		results++
		details := strings.Join(block, "\n")
		block = nil
		name := m[2]
		t.Run(name, func(t *testing.T) {
			switch {
			case m[3] == "SKIP":
				t.Skip(m[4])
			case m[3] == "TODO" && m[1] == "ok":
				t.Logf("listed in interop/acp/known-failures.json but passes: remove it (%s)", m[4])
			case m[3] == "TODO":
				t.Skip(m[4] + "\n" + details)
			case m[1] == "not ok":
				t.Fatal(details)
			}
		})
	}
	if results == 0 {
		t.Fatalf("the node suite reported no test (%v):\n%s", runErr, out.String())
	}
	if runErr != nil && !t.Failed() {
		t.Fatalf("node --test failed (%v) with no failing test:\n%s", runErr, out.String())
	}
}
