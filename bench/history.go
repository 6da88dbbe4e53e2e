package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
)

// historySession is the ID of the generated maximum-size session.
const historySession = "bench-max"

var (
	historyOnce sync.Once
	historyWS   *workspace
	historyErr  error
)

// historyWorkspace makes, once per bench process, a workspace whose
// sessions directory holds a session at the stored-read maximum; every run
// of the scenario (both binaries under -compare) reuses it: opening a
// session writes nothing, and each child releases its leases at exit.
func historyWorkspace() (*workspace, error) {
	historyOnce.Do(func() {
		historyWS, historyErr = newWorkspace("")
		if historyErr != nil {
			return
		}
		cleanups = append(cleanups, historyWS.remove)
		historyErr = writeMaxSession(historyWS, historySession)
	})
	return historyWS, historyErr
}

// writeMaxSession writes, like history's BenchmarkOpenFirstPage, a session
// just under 64 MiB with exactly 100,000 lines whose projection still fits
// the snapshot budget: 1,999 turns of 50 lines (input, two activity
// records, a tool call and a ~23 KB tool result, 43 assistant chunks, the
// reconciled completion, run completion) plus task-scope lines. The header
// carries the child's canonical cwd.
func writeMaxSession(w *workspace, id string) error {
	dir := filepath.Join(w.home, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, id+".jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	const turns, chunks = 1999, 43
	reply := strings.Repeat("Reply text with some 漢字 and 😀, plus \"quotes\".\n", 60)[:2990]
	lines, size := 0, int64(0)
	var buf []byte
	emit := func(r history.Record) {
		buf = history.AppendRecord(buf[:0], &r)
		bw.Write(buf)
		lines++
		size += int64(len(buf))
	}
	encodedLen := func(recs ...history.Record) int {
		n := 0
		for i := range recs {
			n += len(history.AppendRecord(nil, &recs[i]))
		}
		return n
	}
	emit(history.Record{Type: history.TypeHeader, SessionID: id, Version: history.SchemaVersion, Cwd: w.cwd,
		Provider: "fixture", Model: "fixture-model", Thinking: "low", CreatedAt: "2026-11-30T08:00:00Z"})
	turnRecs := func(i int, result string) []history.Record {
		run, n := "run-"+strconv.Itoa(i), strconv.Itoa(i)
		recs := []history.Record{
			{Type: history.TypeInput, RunID: run, MessageID: "u" + n, Text: "Please look at file number " + n + " and explain it."},
			{Type: history.TypeActivity, RunID: run, ActivityID: "call-" + n, Kind: "tool", State: "started", Name: "read_file", Summary: "read_file src/main.go"},
			{Type: history.TypeToolCall, RunID: run, CallID: "call-" + n, Name: "read_file", Arguments: `{"path":"src/main.go"}`},
			{Type: history.TypeToolResult, RunID: run, CallID: "call-" + n, Text: result},
			{Type: history.TypeActivity, RunID: run, ActivityID: "call-" + n, Kind: "tool", State: "completed", Name: "read_file", Summary: "read 23 KB"},
		}
		step := len(reply) / chunks
		for c := range chunks {
			end := (c + 1) * step
			if c == chunks-1 {
				end = len(reply)
			}
			recs = append(recs, history.Record{Type: history.TypeAssistantChunk, RunID: run, MessageID: "a", Text: reply[c*step : end]})
		}
		recs = append(recs,
			history.Record{Type: history.TypeAssistant, RunID: run, MessageID: "a", Text: reply, HasText: true},
			history.Record{Type: history.TypeRunCompleted, RunID: run, Outcome: "completed"})
		for k := range recs {
			recs[k].SessionID = id
		}
		return recs
	}
	base := int64(encodedLen(turnRecs(turns, "")...))
	scope := history.Record{Type: history.TypeTaskScope, SessionID: id, Ceiling: "workspace-write"}
	filler := protocol.StoredHistoryLines - 1 - turns*50
	budget := (protocol.StoredHistoryBytes - 4096 - int64(filler*encodedLen(scope))) / turns
	result := strings.Repeat("package main // source line;", int(budget-base)/28+1)[:budget-base-30]
	for i := range turns {
		for _, r := range turnRecs(i, result) {
			emit(r)
		}
	}
	for range filler {
		emit(scope)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if lines != protocol.StoredHistoryLines || size > protocol.StoredHistoryBytes || size < protocol.StoredHistoryBytes-(1<<20) {
		return fmt.Errorf("generated %d lines, %d bytes", lines, size)
	}
	return f.Sync()
}

// runHistory opens the maximum-size session in a fresh child and pages
// through all of it: open, first page, and the sum of every page's request
// to response time, plus the child's peak RSS (VmHWM) before it exits.
func runHistory(bin string) (*result, error) {
	w, err := historyWorkspace()
	if err != nil {
		return nil, err
	}
	c, err := startReady(bin, w)
	if err != nil {
		return nil, err
	}
	defer c.closeAndWait(5 * time.Second)
	var open struct {
		Revision string `json:"revision"`
	}
	t := time.Now()
	if err := c.call("open", "session.open", `{"session_id":"`+historySession+`"}`, &open); err != nil {
		return nil, err
	}
	openTime := time.Since(t)
	var (
		cursor   = "null"
		pages    int
		entries  int
		total    time.Duration
		first    time.Duration
		complete bool
	)
	for {
		var page struct {
			Entries    []struct{} `json:"entries"`
			NextCursor *string    `json:"next_cursor"`
			Complete   bool       `json:"complete"`
		}
		t := time.Now()
		err := c.call("page"+strconv.Itoa(pages), "history.page",
			`{"session_id":"`+historySession+`","revision":"`+open.Revision+`","cursor":`+cursor+`}`, &page)
		d := time.Since(t)
		if err != nil {
			return nil, err
		}
		if pages == 0 {
			first = d
		}
		pages++
		entries += len(page.Entries)
		total += d
		complete = page.Complete
		if page.NextCursor == nil {
			break
		}
		cursor = strconv.Quote(*page.NextCursor)
	}
	hwm, err := procStatus(c.pid(), "VmHWM")
	if err != nil {
		return nil, err
	}
	r := &result{}
	r.addSpread("history.open", ms(openTime), "ms")
	r.addSpread("history.first_page", ms(first), "ms")
	r.addSpread("history.open_plus_first_page", ms(openTime+first), "ms")
	r.addSpread("history.all_pages", ms(openTime+total), "ms")
	r.add("history.pages", float64(pages), "pages")
	r.add("history.entries", float64(entries), "entries")
	r.addSpread("history.peak_rss", float64(hwm)/1024, "MiB")
	if !complete {
		r.note("FAIL: the last page is not complete=true")
	}
	return r, nil
}
