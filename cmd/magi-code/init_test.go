package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/santhosh-tekuri/jsonschema/v6"
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
// before main, serve included (see docs/benchmarks.md): no package's
// initialization may build large tables, and the JSON Schema validator that
// mcp-go's client links compiles its meta-schemas on first use, not in
// init (third_party/santhosh-tekuri/jsonschema, PATCHED.md).
func TestPackageInitAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("re-runs the test binary")
	}
	// Patched copies in third_party (see PATCHED.md there) whose
	// initializers used to allocate much more: the schema validator
	// 1.7 MB compiling the meta-schemas of five drafts, pprof's profile
	// package 150 KB compiling 19 patterns.
	lazy := map[string]int{
		"github.com/santhosh-tekuri/jsonschema/v6": 16 << 10,
		"github.com/google/pprof/profile":          32 << 10,
	}
	const (
		// The largest today are openai-go's (about 150 KB); a package
		// that builds a big table or compiles many patterns in init goes
		// past this.
		perPackage = 256 << 10
		// About 0.9 MB today for the whole binary.
		total = 2 << 20
	)
	allocs := initAlloc(t)
	for pkg, budget := range lazy {
		n, ok := allocs[pkg]
		if !ok {
			t.Errorf("%s is no longer initialized: update this test and docs/benchmarks.md, Start-up and idle memory", pkg)
		}
		if n > budget {
			t.Errorf("%s allocates %d bytes in init; want at most %d (is the replace in go.mod in effect?)", pkg, n, budget)
		}
	}
	sum := 0
	for pkg, n := range allocs {
		sum += n
		if n > perPackage {
			t.Errorf("package %s allocates %d bytes in init; want at most %d: make the table lazy (sync.OnceValue)", pkg, n, perPackage)
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

// TestSchemaValidatorLazyDrafts checks the patched validator still holds
// schemas to their draft's meta-schema when the drafts are compiled on
// first use (mcp-go's server validates tool input with it), also when the
// first compilers are made concurrently.
func TestSchemaValidatorLazyDrafts(t *testing.T) {
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			c := jsonschema.NewCompiler()
			bad, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":5}`))
			if err != nil {
				t.Error(err)
				return
			}
			if err := c.AddResource("bad.json", bad); err != nil {
				t.Error(err)
				return
			}
			if _, err := c.Compile("bad.json"); err == nil {
				t.Error(`a schema whose "type" is 5 compiles: the meta-schema was not applied`)
			}
		})
	}
	wg.Wait()
	c := jsonschema.NewCompiler()
	good, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"type":"object","required":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("good.json", good); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("good.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.Validate(map[string]any{"a": 1.0}) != nil || s.Validate(map[string]any{}) == nil {
		t.Fatal("the compiled schema does not validate as written")
	}
}

// TestProfileLegacyPatterns checks the patched pprof profile package (goja
// links it) still parses a legacy text profile with its patterns compiled
// on first use.
func TestProfileLegacyPatterns(t *testing.T) {
	const legacy = "heap profile: 1: 2048 [3: 4096] @ heap/1048576\n" +
		"1: 2048 [3: 4096] @ 0x1000 0x2000\n" +
		"\nMAPPED_LIBRARIES:\n" +
		"00400000-00452000 r-xp 00000000 08:01 123 /bin/server\n"
	p, err := profile.ParseData([]byte(legacy))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != 1 || len(p.Sample[0].Location) != 2 || len(p.Mapping) == 0 || p.Mapping[0].File != "/bin/server" {
		t.Fatalf("parsed %d samples, %d mappings: %v", len(p.Sample), len(p.Mapping), p)
	}
}
