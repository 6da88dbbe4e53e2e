package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/magi-code/magi-code"

// Layers, lowest first.
const (
	support    = iota // test helpers: import nothing of ours
	foundation        // protocol vocabulary, JSON encoding, the diagnostic log, redaction, chunking, queues
	middle            // the runner and the session store
	stage             // the pipeline stages
	top               // programs and the client side: anything
)

var layerNames = []string{"support", "foundation", "runner/history", "stage", "top"}

// layerOf places a package (path relative to the module) in its layer;
// false for a package nobody placed yet.
func layerOf(p string) (int, bool) {
	under := func(prefixes ...string) bool {
		for _, pre := range prefixes {
			if p == pre || strings.HasPrefix(p, pre+"/") {
				return true
			}
		}
		return false
	}
	switch {
	case under("internal/archtest", "internal/benchcpu", "internal/caseplant", "internal/everything", "internal/logtest", "internal/ostest", "internal/proctest"):
		return support, true
	case under("protocol", "internal/jsonenc", "internal/diaglog", "internal/filelock", "internal/gorelease", "redact", "chunk", "backpressure"):
		return foundation, true
	case under("runner", "history"):
		return middle, true
	case under("stages", "acp"):
		return stage, true
	case under("cmd", "client", "conformance", "bench", "e2e"):
		return top, true
	}
	return 0, false
}

// frontDoor reports the stage packages that hold a front door's sessions
// and turns: serve's workers and the ACP agent. Only they reach the runner
// (through package runner) and the session store.
func frontDoor(p string) bool { return p == "stages/worker" || p == "acp" }

// pkg is one package of the module and its non-test imports of the
// module, both relative to the module path.
type pkg struct {
	Path    string
	Imports []string
}

// violations lists every import that breaks a rule of the package doc.
func violations(pkgs []pkg) []string {
	var out []string
	bad := func(from, to, why string) { out = append(out, from+" imports "+to+": "+why) }
	for _, p := range pkgs {
		from, ok := layerOf(p.Path)
		if !ok {
			out = append(out, p.Path+": in no layer (place it in layerOf and docs/architecture.md's package table)")
			continue
		}
		for _, imp := range p.Imports {
			to, ok := layerOf(imp)
			switch {
			case !ok:
				bad(p.Path, imp, "a package in no layer")
			case from == support:
				bad(p.Path, imp, "test helpers import nothing of ours")
			case to > from:
				bad(p.Path, imp, "a "+layerNames[from]+" package may not import a "+layerNames[to]+" package")
			case from == stage && to == middle && !(frontDoor(p.Path) && (imp == "runner" || imp == "history")):
				bad(p.Path, imp, "only stages/worker and acp reach the runner, through package runner alone, and the session store")
			case strings.HasPrefix(p.Path, "history") && (imp == "runner" || strings.HasPrefix(imp, "runner/")):
				bad(p.Path, imp, "the session store does not depend on the runner")
			case (strings.HasPrefix(p.Path, "client") || p.Path == "conformance" || strings.HasPrefix(p.Path, "conformance/")) &&
				to != foundation && !strings.HasPrefix(imp, "client") && !strings.HasPrefix(imp, "conformance"):
				bad(p.Path, imp, "the client side imports only foundations")
			}
		}
	}
	slices.Sort(out)
	return out
}

var (
	graphOnce sync.Once
	graph     []pkg
	graphErr  error
)

// moduleGraph lists the module's packages with `go list`.
func moduleGraph(t *testing.T) []pkg {
	t.Helper()
	graphOnce.Do(func() { graph, graphErr = list() })
	if graphErr != nil {
		t.Fatal(graphErr)
	}
	return graph
}

func list() ([]pkg, error) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, errors.New("go list: " + err.Error() + ": " + stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		q := pkg{Path: strings.TrimPrefix(p.ImportPath, module+"/")}
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				q.Imports = append(q.Imports, rel)
			} else if imp == module {
				q.Imports = append(q.Imports, "")
			}
		}
		pkgs = append(pkgs, q)
	}
	if len(pkgs) < 20 {
		return nil, errors.New("go list found too few packages: is this the module?")
	}
	return pkgs, nil
}

func TestImportDirections(t *testing.T) {
	for _, v := range violations(moduleGraph(t)) {
		t.Error(v)
	}
}

// Each planted import breaks exactly one rule: the check sees it (and
// nothing else changes).
func TestPlantedImportsCaught(t *testing.T) {
	real := moduleGraph(t)
	base := violations(real)
	added := func(got []string) []string {
		var out []string
		for _, v := range got {
			if !slices.Contains(base, v) {
				out = append(out, v)
			}
		}
		return out
	}
	planted := []struct{ from, to string }{
		{"history", "stages/wire"},         // the store reaching up into the pipeline
		{"runner/provider", "stages/wire"}, // a runner part reaching up
		{"protocol", "history"},            // a foundation reaching up
		{"redact", "runner/config"},
		{"chunk", "stages/wire"},
		{"backpressure", "stages/wire"},
		{"internal/jsonenc", "protocol"},  // allowed: same layer (not a violation; see below)
		{"stages/worker", "runner/agent"}, // around the entry point
		{"stages/worker", "runner/config"},
		{"stages/dispatch", "runner"}, // a stage other than worker
		{"acp/jsonrpc", "runner"},     // the ACP JSON-RPC layer is not the front door's sessions
		{"acp", "runner/agent"},       // around the entry point
		{"acp", "cmd/magi-code"},
		{"stages/writer", "history"},
		{"history", "runner"},
		{"stages/worker", "cmd/magi-code"},
		{"runner", "stages/worker"},
		{"client", "stages/wire"},
		{"internal/proctest", "protocol"},
	}
	for _, pl := range planted {
		graph := make([]pkg, len(real))
		found := false
		for i, p := range real {
			graph[i] = pkg{Path: p.Path, Imports: slices.Clone(p.Imports)}
			if p.Path == pl.from {
				graph[i].Imports = append(graph[i].Imports, pl.to)
				found = true
			}
		}
		if !found {
			t.Fatalf("no package %s", pl.from)
		}
		got := added(violations(graph))
		want := 1
		if pl.from == "internal/jsonenc" {
			want = 0
		}
		if len(got) != want {
			t.Errorf("planting %s -> %s: %d violations %q; want %d", pl.from, pl.to, len(got), got, want)
		}
	}
	// A new package nobody placed in a layer is reported too.
	if got := added(violations(append(slices.Clone(real), pkg{Path: "newthing"}))); len(got) != 1 {
		t.Errorf("an unplaced package: %q", got)
	}
}

// notLinked are packages the magi-code binary must not link: mcp-go's
// client and server (runner/mcp speaks the protocol itself over mcp-go's
// types; the client package links the server for its in-process
// transport), and the JSON Schema validator the server compiles five
// meta-schemas with in init, at every start of serve (docs/benchmarks.md,
// Start-up and idle memory).
var notLinked = []string{
	"github.com/mark3labs/mcp-go/client",
	"github.com/mark3labs/mcp-go/client/transport",
	"github.com/mark3labs/mcp-go/server",
	"github.com/santhosh-tekuri/jsonschema/v6",
}

// linkedAnyway returns the packages of deps that notLinked names.
func linkedAnyway(deps []string) []string {
	var out []string
	for _, d := range deps {
		if slices.Contains(notLinked, d) {
			out = append(out, d)
		}
	}
	return out
}

func TestBinaryLeavesOut(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/cmd/magi-code").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/mark3labs/mcp-go/mcp") {
		t.Fatalf("go list -deps did not list mcp-go's protocol types: is this the binary?")
	}
	for _, p := range linkedAnyway(deps) {
		t.Errorf("the binary links %s", p)
	}
	// Planted: each is caught alone.
	for _, p := range notLinked {
		if got := linkedAnyway(append(slices.Clone(deps), p)); !slices.Equal(got, []string{p}) {
			t.Errorf("planting %s: caught %q", p, got)
		}
	}
}
