package codemode

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/magi-code/magi-code/runner/tools"
)

// reportMedian reports the median of ds in microseconds.
func reportMedian(b *testing.B, ds []time.Duration, unit string) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds())/1e3, unit)
	b.ReportMetric(float64(ds[len(ds)-1].Nanoseconds())/1e3, "max-"+unit)
}

// BenchmarkStopTimeLimit measures how long after the time limit an
// infinite loop's Run returns (an upper bound: it includes the runtime
// setup, see BenchmarkRunTrivial).
func BenchmarkStopTimeLimit(b *testing.B) {
	const limit = 20 * time.Millisecond
	tl := New(Options{Timeout: limit})
	args, _ := json.Marshal(map[string]string{"code": `for (;;) {}`})
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		res := tl.Run(context.Background(), args)
		ds = append(ds, time.Since(start)-limit)
		if res.Summary != "run_code: time limit" {
			b.Fatalf("result %+v", res)
		}
	}
	reportMedian(b, ds, "stop-µs")
}

// BenchmarkStopCancel measures from cancel() to Run's return for a program
// in an infinite loop.
func BenchmarkStopCancel(b *testing.B) {
	ready := make(chan struct{})
	signal := &fakeTool{name: "ready", run: func(context.Context, json.RawMessage) tools.Result {
		ready <- struct{}{}
		return tools.Result{Text: "go"}
	}}
	tl := New(Options{Tools: []tools.Tool{signal}})
	args, _ := json.Marshal(map[string]string{"code": `tools.ready(); for (;;) {}`})
	var ds []time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan tools.Result)
		go func() { done <- tl.Run(ctx, args) }()
		<-ready
		start := time.Now()
		cancel()
		res := <-done
		ds = append(ds, time.Since(start))
		if res.Summary != "run_code: cancelled" {
			b.Fatalf("result %+v", res)
		}
	}
	reportMedian(b, ds, "stop-µs")
}

// BenchmarkRunTrivial is the fixed cost of one program: a fresh runtime,
// the guards, compile, run.
func BenchmarkRunTrivial(b *testing.B) {
	tl := New(Options{Tools: tools.Builtin(tools.Options{Cwd: b.TempDir()}).All()})
	args, _ := json.Marshal(map[string]string{"code": `return 1`})
	for b.Loop() {
		if res := tl.Run(context.Background(), args); res.Text != "1" {
			b.Fatalf("result %+v", res)
		}
	}
}

// BenchmarkToolCalls64 is one program making 64 tool calls.
func BenchmarkToolCalls64(b *testing.B) {
	tl := New(Options{Tools: []tools.Tool{&fakeTool{name: "echo"}}})
	args, _ := json.Marshal(map[string]string{"code": `let n = 0; for (let i = 0; i < 64; i++) n += tools.echo({i}).length; return n`})
	for b.Loop() {
		if res := tl.Run(context.Background(), args); res.IsError {
			b.Fatalf("result %+v", res)
		}
	}
}
