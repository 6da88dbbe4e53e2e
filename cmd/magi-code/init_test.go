package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// initAlloc runs this test binary again with GODEBUG=inittrace=1 and no
// test, and returns the bytes that each package's initialization
// allocated. The test binary links every package the magi-code binary
// links (this is package main), so it runs the same initializers. Bytes
// allocated are a property of the code, not of the machine's load, unlike
// the clock figures of the same trace (those belong to the benchmark
// program: go run ./bench -scenario startup).
func initAlloc(t *testing.T) map[string]int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("re-running the test binary: %v\n%s", err, stderr.Bytes())
	}
	return parseInitTrace(t, stderr.Bytes())
}

// parseInitTrace reads lines of the form
// "init PKG @0.5 ms, 0.01 ms clock, 1234 bytes, 5 allocs".
func parseInitTrace(t *testing.T, trace []byte) map[string]int {
	t.Helper()
	bytesOf := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(trace))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		bytesOf[f[1]] += n
	}
	if len(bytesOf) < 50 {
		t.Fatalf("inittrace listed %d packages; want the whole binary's:\n%s", len(bytesOf), trace)
	}
	return bytesOf
}

// TestPackageInitAllocations guards what every start of the binary pays
// before main, serve included (see docs/benchmarks.md, Start-up and idle
// memory): no package's initialization may build large tables.
func TestPackageInitAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("re-runs the test binary")
	}
	const (
		// The largest today are pprof's profile package (goja links it;
		// about 150 KB compiling 19 patterns) and openai-go's (about 150
		// KB); a package that builds a big table or compiles many patterns
		// in init goes past this. (The JSON Schema validator that mcp-go's
		// server package compiles 1.7 MB of meta-schemas with is not
		// linked: runner/mcp uses mcp-go's protocol types only.)
		perPackage = 256 << 10
		// About 1.0 MB today for the whole binary.
		total = 3 << 19
	)
	allocs := initAlloc(t)
	sum := 0
	for pkg, n := range allocs {
		sum += n
		if n > perPackage {
			t.Errorf("package %s allocates %d bytes in init; want at most %d: make the table lazy (sync.OnceValue), or do not link it", pkg, n, perPackage)
		}
	}
	if sum > total {
		t.Errorf("package initialization allocates %d bytes in all; want at most %d", sum, total)
	}
	t.Logf("%d packages allocate %d bytes in init", len(allocs), sum)
}

func TestParseInitTrace(t *testing.T) {
	var trace bytes.Buffer
	for i := range 60 {
		trace.WriteString("init p" + strconv.Itoa(i) + " @0.1 ms, 0.01 ms clock, 10 bytes, 1 allocs\n")
	}
	trace.WriteString("init big @2.0 ms, 9.0 ms clock, 1701000 bytes, 21283 allocs\nnot a trace line\n")
	got := parseInitTrace(t, trace.Bytes())
	if got["big"] != 1701000 || got["p0"] != 10 || len(got) != 61 {
		t.Fatalf("parseInitTrace = %d packages, big=%d, p0=%d; want 61, 1701000, 10", len(got), got["big"], got["p0"])
	}
}
