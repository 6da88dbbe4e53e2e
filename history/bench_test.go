package history

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// writeMaxSession writes a session at the stored-read maximum (just under
// 64 MiB, exactly 100,000 lines) whose projection still fits the snapshot
// budget: 1,999 turns of 50 lines (input, two activity records, a tool call
// and a ~23 KB tool result, 43 assistant chunks, the reconciled completion
// and run completion) plus task-scope lines to reach 100,000.
func writeMaxSession(tb testing.TB, e *env, id string) {
	tb.Helper()
	f, err := os.Create(filepath.Join(e.dir, id+".jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	const turns, chunks = 1999, 43
	reply := strings.Repeat("Reply text with some 漢字 and 😀, plus \"quotes\".\n", 60)[:2990]
	lines, size := 0, int64(0)
	emit := func(r Record) {
		b := AppendRecord(nil, &r)
		w.Write(b)
		lines++
		size += int64(len(b))
	}
	emit(e.header(id))
	turnRecs := func(i int, result string) []Record {
		run := "run-" + strconv.Itoa(i)
		recs := []Record{
			{Type: TypeInput, RunID: run, MessageID: "u" + strconv.Itoa(i), Text: "Please look at file number " + strconv.Itoa(i) + " and explain it."},
			{Type: TypeActivity, RunID: run, ActivityID: "call-" + strconv.Itoa(i), Kind: "tool", State: "started", Name: "read_file", Summary: "read_file src/main.go"},
			{Type: TypeToolCall, RunID: run, CallID: "call-" + strconv.Itoa(i), Name: "read_file", Arguments: `{"path":"src/main.go"}`},
			{Type: TypeToolResult, RunID: run, CallID: "call-" + strconv.Itoa(i), Text: result},
			{Type: TypeActivity, RunID: run, ActivityID: "call-" + strconv.Itoa(i), Kind: "tool", State: "completed", Name: "read_file", Summary: "read 23 KB"},
		}
		step := len(reply) / chunks
		for c := range chunks {
			end := (c + 1) * step
			if c == chunks-1 {
				end = len(reply)
			}
			recs = append(recs, Record{Type: TypeAssistantChunk, RunID: run, MessageID: "a", Text: reply[c*step : end]})
		}
		recs = append(recs,
			Record{Type: TypeAssistant, RunID: run, MessageID: "a", Text: reply, HasText: true},
			Record{Type: TypeRunCompleted, RunID: run, Outcome: "completed"})
		for k := range recs {
			recs[k].SessionID = id
		}
		return recs
	}
	base := int64(len(encode(turnRecs(turns, "")...)))
	scope := Record{Type: TypeTaskScope, SessionID: id, Ceiling: "workspace-write"}
	filler := protocol.StoredHistoryLines - 1 - turns*50
	budget := (protocol.StoredHistoryBytes - 4096 - int64(filler*len(encode(scope)))) / turns
	result := strings.Repeat("package main // source line;", int(budget-base)/28+1)[:budget-base-30]
	for i := range turns {
		for _, r := range turnRecs(i, result) {
			emit(r)
		}
	}
	for range filler {
		emit(scope)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	if lines != protocol.StoredHistoryLines || size > protocol.StoredHistoryBytes || size < protocol.StoredHistoryBytes-(1<<20) {
		tb.Fatalf("generated %d lines, %d bytes", lines, size)
	}
}

// peakRSS reads the process's peak resident set (VmHWM) in MiB.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	return -1
}

func benchPaging(b *testing.B, all bool) {
	e := newEnv(b)
	writeMaxSession(b, e, "max")
	runtime.GC()
	var heapPeak uint64
	var ms runtime.MemStats
	sample := func() {
		runtime.ReadMemStats(&ms)
		heapPeak = max(heapPeak, ms.HeapInuse)
	}
	pages := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		a, _, code := e.store.Open("max", nil)
		if code != "" {
			b.Fatal(code)
		}
		rev := a.Revision()
		var cursor *string
		for {
			raw, code := a.Page(rev, cursor)
			if code != "" {
				b.Fatal(code)
			}
			pages++
			i := strings.Index(string(raw[len(raw)-100:]), `"next_cursor":"`)
			if !all || i < 0 {
				break
			}
			rest := string(raw[len(raw)-100+i+15:])
			c := rest[:strings.IndexByte(rest, '"')]
			cursor = &c
		}
		b.StopTimer()
		sample()
		a.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(heapPeak)/(1<<20), "heap-inuse-MiB")
	b.ReportMetric(peakRSS(), "peak-rss-MiB")
	b.ReportMetric(float64(pages)/float64(b.N), "pages/op")
}

// BenchmarkOpenFirstPage opens a maximum-size session (64 MiB, 100,000
// lines) and serves its first page.
func BenchmarkOpenFirstPage(b *testing.B) { benchPaging(b, false) }

// BenchmarkOpenAllPages opens the same session and serves every page.
func BenchmarkOpenAllPages(b *testing.B) { benchPaging(b, true) }

func TestMaxSessionFitsBudgets(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MiB")
	}
	e := newEnv(t)
	writeMaxSession(t, e, "max")
	a, _, code := e.store.Open("max", nil)
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	entries, complete := allPages(t, a)
	if !complete || len(entries) != 1999*3 {
		t.Fatalf("%d entries, complete=%v", len(entries), complete)
	}
}
