// Command bench measures a magi-code binary through real pipes, the way a
// frontend or a load test drives it, and prints one `name value unit` line
// per figure: the median over repeated runs, plus `name.min` and `name.max`
// lines where the spread matters. Lines starting with '#' are notes (what a
// figure approximates, failed checks).
//
//	go run ./bench -bin bin/magi-code                  every scenario
//	go run ./bench -bin bin/magi-code -scenario stall  one scenario
//	go run ./bench -bin A -compare B -runs 5           A B A B ..., then B/A
//
// Every run starts fresh children in a temporary MC_HOME with the fixture
// provider. Hot figures (roundtrip, pipelined, flood, stall) drive the pipes
// directly with minimal parsing, so that the CPU measured is the child's.
// The Go micro-benchmarks (framing, validate, wire encoding, chunk, redact,
// writer, history) live in their packages; `make bench` runs them first.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// figure is one measured value of one run.
type figure struct {
	name  string
	value float64
	unit  string
	// spread asks for min and max lines beside the median.
	spread bool
}

// result is what one run of a scenario produced: figures, and notes for
// checks that failed or figures that need explaining.
type result struct {
	figures []figure
	notes   []string
}

func (r *result) add(name string, value float64, unit string) {
	r.figures = append(r.figures, figure{name: name, value: value, unit: unit})
}

func (r *result) addSpread(name string, value float64, unit string) {
	r.figures = append(r.figures, figure{name: name, value: value, unit: unit, spread: true})
}

func (r *result) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// scenario is one benchmark; run measures bin once.
type scenario struct {
	name string
	runs int // default repetitions (keeps `make bench` within minutes)
	run  func(bin string) (*result, error)
}

// cleanups run before the program exits (shared fixtures of several runs).
var cleanups []func()

var scenarios = []scenario{
	{"startup", 5, runStartup},
	{"roundtrip", 5, runRoundtrip},
	{"pipelined", 5, runPipelined},
	{"flood", 5, runFlood},
	{"floodfast", 9, runFloodFast},
	{"stall", 3, runStall},
	{"history", 3, runHistory},
	{"turns", 1, runTurns},
	{"latency", 1, runLatency},
	{"acp", 3, runACP},
}

func main() {
	bin := flag.String("bin", "bin/magi-code", "the magi-code binary to measure (A)")
	other := flag.String("compare", "", "a second binary (B): run A B A B ... and print B/A")
	only := flag.String("scenario", "", "run only this scenario: "+names())
	runs := flag.Int("runs", 0, "repetitions per scenario (0: each scenario's default)")
	flag.StringVar(&acpPeers, "acp-peers", acpPeers, "the acp scenario's other agents: a node_modules/.bin holding "+strings.Join(acpPeerNames, " and "))
	flag.Parse()

	bins := []string{*bin}
	if *other != "" {
		bins = append(bins, *other)
	}
	for i, b := range bins {
		abs, err := filepath.Abs(b)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: binary %s: %v\n", b, err)
			os.Exit(2)
		}
		bins[i] = abs
	}
	failed := false
	found := false
	for _, s := range scenarios {
		if *only != "" && s.name != *only {
			continue
		}
		found = true
		n := s.runs
		if *runs > 0 {
			n = *runs
		}
		if !measure(s, bins, n) {
			failed = true
		}
	}
	for _, f := range cleanups {
		f()
	}
	if !found {
		fmt.Fprintf(os.Stderr, "bench: unknown scenario %q (have %s)\n", *only, names())
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

func names() string {
	var n []string
	for _, s := range scenarios {
		n = append(n, s.name)
	}
	return strings.Join(n, ", ")
}

// measure runs s n times per binary, alternating binaries within each
// repetition, and prints the aggregated figures. It reports false when a
// run failed outright.
func measure(s scenario, bins []string, n int) bool {
	values := make([]map[string][]float64, len(bins))
	var order []figure // first appearance order, for stable output
	seen := map[string]bool{}
	notes := map[string]bool{}
	ok := true
	start := time.Now()
	for i := range bins {
		values[i] = map[string][]float64{}
	}
	for range n {
		for i, b := range bins {
			r, err := s.run(b)
			if err != nil {
				fmt.Printf("# %s[%s]: run failed: %v\n", s.name, label(i, len(bins)), err)
				ok = false
				continue
			}
			for _, f := range r.figures {
				values[i][f.name] = append(values[i][f.name], f.value)
				if !seen[f.name] {
					seen[f.name] = true
					order = append(order, f)
				}
			}
			for _, t := range r.notes {
				key := label(i, len(bins)) + t
				if !notes[key] {
					notes[key] = true
					fmt.Printf("# %s[%s]: %s\n", s.name, label(i, len(bins)), t)
				}
			}
		}
	}
	for _, f := range order {
		med := make([]float64, len(bins))
		for i := range bins {
			v := values[i][f.name]
			med[i] = median(v)
			suffix := ""
			if len(bins) > 1 {
				suffix = "@" + label(i, len(bins))
			}
			fmt.Printf("%s%s %s %s\n", f.name, suffix, format(med[i]), f.unit)
			if f.spread && len(v) > 1 {
				fmt.Printf("%s.min%s %s %s\n", f.name, suffix, format(slices.Min(v)), f.unit)
				fmt.Printf("%s.max%s %s %s\n", f.name, suffix, format(slices.Max(v)), f.unit)
			}
		}
		if len(bins) > 1 {
			ratio := "NaN"
			if med[0] != 0 {
				ratio = format(med[1] / med[0])
			}
			fmt.Printf("%s@B/A %s ratio\n", f.name, ratio)
		}
	}
	fmt.Printf("# %s: %d run(s) per binary in %.1f s\n", s.name, n, time.Since(start).Seconds())
	return ok
}

func label(i, n int) string {
	if n == 1 {
		return "A"
	}
	return string(rune('A' + i))
}

// median of v (NaN when empty).
func median(v []float64) float64 {
	if len(v) == 0 {
		return nanValue()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// percentile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	k := int(p*float64(len(sorted))+0.999999) - 1
	return sorted[max(0, min(k, len(sorted)-1))]
}

func nanValue() float64 {
	var zero float64
	return zero / zero
}

// format prints a value with about four significant digits.
func format(v float64) string {
	switch {
	case v != v:
		return "NaN"
	case v == float64(int64(v)) && v < 1e15 && v > -1e15:
		return fmt.Sprintf("%d", int64(v))
	case v >= 100 || v <= -100:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.4g", v)
	}
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
