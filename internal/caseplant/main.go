// Command caseplant plants small bugs in the case clauses of Go files, one
// at a time, and runs the package's tests against each: the mutation tool
// (gremlins) never mutates a case expression, so these plants stand in for
// it. Each plant is passed to go test as an overlay (-overlay), so the
// working tree is never edited.
//
//	go run ./internal/caseplant [-list] [-only 3,17] [-timeout 5m] FILE.go...
//
// Each plant prints one line, "FILE:LINE KIND LABEL: RESULT", where RESULT
// is killed (with the first failing test), lived, no-compile or timed-out;
// a summary line per file follows. The plants are described in plants.
// `make caseplant FILES=...` runs it niced; docs/testing.md has the figures.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

func main() {
	list := flag.Bool("list", false, "list the plants without running them")
	only := flag.String("only", "", "run only these plant numbers (comma separated, as -list numbers them)")
	timeout := flag.Duration("timeout", 5*time.Minute, "go test's -timeout for one plant")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: caseplant [-list] [-only N,M] [-timeout D] FILE.go...")
		os.Exit(2)
	}
	pick, err := numbers(*only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "caseplant: -only:", err)
		os.Exit(2)
	}
	failed := false
	for _, name := range flag.Args() {
		if err := run(os.Stdout, name, *list, pick, *timeout); err != nil {
			fmt.Fprintf(os.Stderr, "caseplant: %s: %v\n", name, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// numbers reads "3,17" into a set; empty means all.
func numbers(s string) (map[int]bool, error) {
	if s == "" {
		return nil, nil
	}
	m := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		m[n] = true
	}
	return m, nil
}

// run plants every bug of one file in turn and tests its package.
func run(w io.Writer, name string, list bool, pick map[int]bool, timeout time.Duration) error {
	abs, err := filepath.Abs(name)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return err
	}
	ps, err := plants(abs, src)
	if err != nil {
		return err
	}
	base := filepath.Base(abs)
	if list {
		for i, p := range ps {
			fmt.Fprintf(w, "%d\t%s:%s\n", i, base, p)
		}
		return nil
	}
	tmp, err := os.MkdirTemp("", "caseplant")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	planted := filepath.Join(tmp, base)
	overlay := filepath.Join(tmp, "overlay.json")
	ov, err := json.Marshal(map[string]map[string]string{"Replace": {abs: planted}})
	if err != nil {
		return err
	}
	if err := os.WriteFile(overlay, ov, 0o600); err != nil {
		return err
	}
	counts := map[string]int{}
	for i, p := range ps {
		if pick != nil && !pick[i] {
			continue
		}
		if err := os.WriteFile(planted, p.src, 0o600); err != nil {
			return err
		}
		cmd := exec.Command("go", "test", "-count=1", "-failfast", "-overlay="+overlay, "-timeout="+timeout.String(), ".")
		cmd.Dir = filepath.Dir(abs)
		out, runErr := cmd.CombinedOutput()
		result := classify(out, runErr)
		counts[strings.Fields(result)[0]]++
		fmt.Fprintf(w, "%d\t%s:%s: %s\n", i, base, p, result)
	}
	fmt.Fprintf(w, "%s: %d plants, %d killed, %d lived, %d no-compile, %d timed-out\n", base,
		counts["killed"]+counts["lived"]+counts["no-compile"]+counts["timed-out"],
		counts["killed"], counts["lived"], counts["no-compile"], counts["timed-out"])
	return nil
}

var failLine = regexp.MustCompile(`--- FAIL: (\S+)`)

// classify reads one go test run: lived (it passed), no-compile, timed-out,
// or killed with the first failing test's name.
func classify(out []byte, err error) string {
	switch {
	case err == nil:
		return "lived"
	case bytes.Contains(out, []byte("[build failed]")), bytes.Contains(out, []byte("[setup failed]")):
		return "no-compile"
	case bytes.Contains(out, []byte("panic: test timed out")):
		return "timed-out"
	}
	if m := failLine.FindSubmatch(out); m != nil {
		return "killed (" + string(m[1]) + ")"
	}
	return "killed (no test named: a panic or a failed start)"
}
