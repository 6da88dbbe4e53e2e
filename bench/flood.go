package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// floodUnit is the 100-byte delta the fixture repeats: plain ASCII, so a
// delta's text needs no unescaping to be measured.
var floodUnit = strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.", 2)[:100]

const (
	// floodCheckRepeat keeps the reply (8,000,000 bytes) under the 8 MiB
	// per-run content bound, so the run completes and its reconcile can be
	// compared with the whole reply.
	floodCheckRepeat = 80_000
	// floodFullRepeat is the flood: 100 MB of deltas, which the
	// runner must stop at 8 MiB with content_limit.
	floodFullRepeat = 1_000_000
	// The slow reader reads at most slowReadBytes every slowReadEvery.
	slowReadBytes = 4096
	slowReadEvery = time.Millisecond
)

// floodScript is a fixture script of one response: unit repeated n times.
func floodScript(n int) string {
	return `{"responses":[{"steps":[{"text":"` + floodUnit + `","repeat":` + strconv.Itoa(n) + `}]}]}`
}

// turnStats is what a reader saw of one turn.
type turnStats struct {
	elapsed time.Duration // turn.start written -> run.finished read
	// deliver spans input.persisted (provider work starts) to run.finished,
	// and deliverFrames counts the frames after input.persisted.
	deliver       time.Duration
	deliverFrames int
	frames        int   // every frame after turn.start, its response included
	bytes         int64 // bytes read over the same span
	deltas        int
	deltaBytes    int64 // text bytes carried by deltas
	reconcile     []byte
	lastPart      bool // the reconcile's final part arrived
	finished      int  // run.finished events
	outcome       string
	errorCode     string
	persistence   string
	childCPU      time.Duration // child CPU over the turn (/proc, 10 ms resolution)
	peakRSS       int64         // the child's VmHWM (KiB) after run.finished
	orderBroken   string
	reconcileMsg  string
	deltaGap      bool   // a delta part number was skipped (text dropped)
	deltaWrong    string // the first delta whose text is not the reply's at its place
}

// deltaPart returns a delta frame's part number, -1 if it has none.
func deltaPart(l []byte) int {
	i := bytes.Index(l, []byte(`"part":`))
	if i < 0 {
		return -1
	}
	n, j := 0, i+len(`"part":`)
	for ; j < len(l) && l[j] >= '0' && l[j] <= '9'; j++ {
		n = n*10 + int(l[j]-'0')
	}
	return n
}

// periodic reports whether text is the flood's reply (floodUnit repeated)
// from offset off.
func periodic(text []byte, off int) bool {
	for k, c := range text {
		if c != floodUnit[(off+k)%len(floodUnit)] {
			return false
		}
	}
	return true
}

// startTurn initializes c, creates a session and writes turn.start; it
// returns the session ID.
func startTurn(c *child) (string, error) {
	if err := c.initialize(); err != nil {
		return "", err
	}
	var s struct {
		SessionID string `json:"session_id"`
	}
	if err := c.call("create", "session.create", "{}", &s); err != nil {
		return "", err
	}
	return s.SessionID, c.send(request("turn", "turn.start", `{"session_id":"`+s.SessionID+`","prompt":"flood"}`))
}

// scriptedTurn starts bin in a workspace whose fixture provider plays
// script, and starts a turn; end closes the child and removes the workspace.
func scriptedTurn(bin, script string) (c *child, end func(), err error) {
	w, err := newWorkspace(script)
	if err != nil {
		return nil, nil, err
	}
	if c, err = startChild(bin, w); err != nil {
		w.remove()
		return nil, nil, err
	}
	end = func() {
		c.closeAndWait(5 * time.Second)
		w.remove()
	}
	if _, err := startTurn(c); err != nil {
		end()
		return nil, nil, err
	}
	return c, end, nil
}

// readTurn reads the turn's frames until run.finished, classifying each
// with a few byte searches; only reconcile and run.finished are decoded.
func readTurn(c *child) (*turnStats, error) {
	st := &turnStats{}
	cpu0, err := procCPU(c.pid())
	if err != nil {
		return nil, err
	}
	read0 := c.read - int64(c.n-c.off)
	start := time.Now()
	var reconciles [][]byte
	provider, framesAtProvider := start, 0
	for st.finished == 0 {
		l, err := c.line()
		if err != nil {
			return st, fmt.Errorf("output ended before run.finished (%d frames): %w", st.frames, err)
		}
		st.frames++
		name := eventName(l)
		switch name {
		case "":
			if bytes.Contains(l, []byte(`"error"`)) {
				return st, fmt.Errorf("error response during the turn: %.200s", l)
			}
		case "message.delta":
			st.deltas++
			if i := bytes.LastIndex(l, []byte(`"text":"`)); i >= 0 && len(l) >= i+8+3 {
				text := l[i+8 : len(l)-3] // text"}}
				// The reply repeats floodUnit (nothing to escape): until a
				// part is missing, each delta continues it where the last
				// one stopped.
				if part := deltaPart(l); part != st.deltas-1 {
					st.deltaGap = true
				}
				if !st.deltaGap && st.deltaWrong == "" && !periodic(text, int(st.deltaBytes)) {
					st.deltaWrong = fmt.Sprintf("delta %d (%d bytes at offset %d) is not the reply's text there: %.40q", st.deltas-1, len(text), st.deltaBytes, text)
				}
				st.deltaBytes += int64(len(text))
			}
		case "message.reconcile":
			// Decoded after run.finished: keep the reader's CPU off the
			// child's cores while it floods.
			reconciles = append(reconciles, bytes.Clone(l))
		case "input.persisted":
			provider = time.Now()
			framesAtProvider = st.frames
		case "run.finished":
			st.finished++
			var f struct {
				Data struct {
					Outcome     string  `json:"outcome"`
					Persistence string  `json:"persistence"`
					ErrorCode   *string `json:"error_code"`
				}
			}
			if err := json.Unmarshal(l, &f); err != nil {
				return st, err
			}
			st.outcome, st.persistence = f.Data.Outcome, f.Data.Persistence
			if f.Data.ErrorCode != nil {
				st.errorCode = *f.Data.ErrorCode
			}
		}
	}
	st.elapsed = time.Since(start)
	st.deliver = time.Since(provider)
	st.deliverFrames = st.frames - framesAtProvider
	st.bytes = c.read - int64(c.n-c.off) - read0
	if err := decodeReconcile(st, reconciles); err != nil {
		return st, err
	}
	cpu1, err := procCPU(c.pid())
	if err != nil {
		return nil, err
	}
	st.childCPU = cpu1 - cpu0
	if st.peakRSS, err = procStatus(c.pid(), "VmHWM"); err != nil {
		return nil, err
	}
	return st, nil
}

// decodeReconcile checks and joins the reconcile frames of a turn.
func decodeReconcile(st *turnStats, frames [][]byte) error {
	for i, l := range frames {
		var f struct {
			Data struct {
				MessageID string `json:"message_id"`
				Part      int    `json:"part"`
				Text      string `json:"text"`
				LastPart  bool   `json:"last_part"`
			}
		}
		if err := json.Unmarshal(l, &f); err != nil {
			return err
		}
		if f.Data.Part != i && st.orderBroken == "" {
			st.orderBroken = fmt.Sprintf("reconcile part %d where %d was due", f.Data.Part, i)
		}
		if st.reconcileMsg == "" {
			st.reconcileMsg = f.Data.MessageID
		} else if st.reconcileMsg != f.Data.MessageID && st.orderBroken == "" {
			st.orderBroken = "reconcile of a second message"
		}
		st.reconcile = append(st.reconcile, f.Data.Text...)
		st.lastPart = st.lastPart || f.Data.LastPart
	}
	return nil
}

// eventName returns the event name of an event frame, "" for a response.
func eventName(l []byte) string {
	// The event field follows seq, within the first ~150 bytes.
	head := l[:min(len(l), 200)]
	i := bytes.Index(head, []byte(`"event":"`))
	if i < 0 {
		return ""
	}
	rest := head[i+9:]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// floodRun starts a child whose turn floods repeat deltas, reads the turn
// with the reader pacing set on the child, and ends the child.
func floodRun(bin string, repeat int, slow bool) (*turnStats, error) {
	c, end, err := scriptedTurn(bin, floodScript(repeat))
	if err != nil {
		return nil, err
	}
	defer end()
	if slow {
		c.pace(slowReadBytes, slowReadEvery)
	}
	return readTurn(c)
}

// runFloodFast is the flood's fast reader alone, for comparing builds: its
// CPU per frame is the child's whole CPU time from getrusage at exit (µs
// resolution; start-up and exit included, about 0.2 µs per frame), and
// start-up alone is measured in the same run and subtracted.
func runFloodFast(bin string) (*result, error) {
	r := &result{}
	full := strings.Repeat(floodUnit, floodCheckRepeat)
	w, err := newWorkspace(floodScript(floodCheckRepeat))
	if err != nil {
		return nil, err
	}
	defer w.remove()
	idle, err := idleCPU(bin, w)
	if err != nil {
		return nil, err
	}
	c, err := startChild(bin, w)
	if err != nil {
		return nil, err
	}
	if _, err := startTurn(c); err != nil {
		c.closeAndWait(5 * time.Second)
		return nil, err
	}
	st, err := readTurn(c)
	switches := ctxSwitches(c.pid())
	if _, werr := c.closeAndWait(5 * time.Second); err == nil {
		err = werr
	}
	if err != nil {
		return nil, err
	}
	cpu := c.rusageCPU()
	r.addSpread("flood.fast.frames_per_s", float64(st.deliverFrames)/st.deliver.Seconds(), "frames/s")
	r.addSpread("flood.fast.child_rusage_per_frame", us(cpu-idle)/float64(st.frames), "us")
	r.add("flood.fast.child_rusage_startup", ms(idle), "ms")
	r.addSpread("flood.fast.context_switches_per_1k_frames", 1000*float64(switches)/float64(st.frames), "switches")
	r.addSpread("flood.fast.child_cpu_per_frame", us(st.childCPU)/float64(st.frames), "us")
	r.add("flood.fast.frames", float64(st.frames), "frames")
	r.add("flood.fast.delta_drop_fraction", 1-float64(st.deltaBytes)/float64(len(full)), "fraction")
	checkTurn(r, "fast", st, full, "completed")
	return r, nil
}

// ctxSwitches sums the context switches (voluntary and not) of every
// thread of pid, start-up included.
func ctxSwitches(pid int) int64 {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/status")
	var n int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for l := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				x, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += x
			} else if v, ok := strings.CutPrefix(l, "nonvoluntary_ctxt_switches:"); ok {
				x, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += x
			}
		}
	}
	return n
}

// idleCPU is the CPU time of a child that starts, creates a session and
// exits on EOF: what runFloodFast subtracts.
func idleCPU(bin string, w *workspace) (time.Duration, error) {
	c, err := startChild(bin, w)
	if err != nil {
		return 0, err
	}
	err = c.initialize()
	if err == nil {
		err = c.call("create", "session.create", "{}", nil)
	}
	if _, werr := c.closeAndWait(5 * time.Second); err == nil {
		err = werr
	}
	return c.rusageCPU(), err
}

// runFlood measures the delta flood three ways: a fast reader on a reply
// that fits the content bound (throughput, CPU, exact reconcile), a reader
// paced at 4 KiB per ms on the same reply (drop fraction, exact
// reconcile), and a fast reader on the 1,000,000-delta flood (what the
// 8 MiB content bound does to it).
func runFlood(bin string) (*result, error) {
	r := &result{}
	full := strings.Repeat(floodUnit, floodCheckRepeat)

	fast, err := floodRun(bin, floodCheckRepeat, false)
	if err != nil {
		return nil, fmt.Errorf("fast reader: %w", err)
	}
	r.addSpread("flood.fast.frames_per_s", float64(fast.deliverFrames)/fast.deliver.Seconds(), "frames/s")
	r.addSpread("flood.fast.mb_per_s", float64(fast.bytes)/1e6/fast.deliver.Seconds(), "MB/s")
	r.add("flood.fast.turn_time", ms(fast.elapsed), "ms")
	r.addSpread("flood.fast.child_cpu_per_frame", us(fast.childCPU)/float64(fast.frames), "us")
	r.add("flood.fast.child_cpu_per_delta_produced", us(fast.childCPU)/floodCheckRepeat, "us")
	r.add("flood.fast.frames", float64(fast.frames), "frames")
	r.add("flood.fast.delta_drop_fraction", 1-float64(fast.deltaBytes)/float64(len(full)), "fraction")
	checkTurn(r, "fast", fast, full, "completed")

	slow, err := floodRun(bin, floodCheckRepeat, true)
	if err != nil {
		return nil, fmt.Errorf("slow reader: %w", err)
	}
	r.addSpread("flood.slow.delta_drop_fraction", 1-float64(slow.deltaBytes)/float64(len(full)), "fraction")
	r.add("flood.slow.deltas", float64(slow.deltas), "frames")
	r.add("flood.slow.turn_time", ms(slow.elapsed), "ms")
	r.add("flood.slow.child_cpu", ms(slow.childCPU), "ms")
	checkTurn(r, "slow", slow, full, "completed")

	big, err := floodRun(bin, floodFullRepeat, false)
	if err != nil {
		return nil, fmt.Errorf("1M flood: %w", err)
	}
	r.addSpread("flood.1m.frames_per_s", float64(big.deliverFrames)/big.deliver.Seconds(), "frames/s")
	r.add("flood.1m.frames", float64(big.frames), "frames")
	r.add("flood.1m.reconciled_bytes", float64(len(big.reconcile)), "bytes")
	r.add("flood.1m.delta_bytes", float64(big.deltaBytes), "bytes")
	r.add("flood.1m.peak_rss", float64(big.peakRSS)/1024, "MiB")
	r.note("1M flood: outcome=%s error_code=%s persistence=%s; reconcile %d bytes (last_part=%v) of a 100,000,000-byte reply",
		big.outcome, big.errorCode, big.persistence, len(big.reconcile), big.lastPart)
	// The reconcile must be a prefix of the reply, never altered text.
	if !strings.HasPrefix(strings.Repeat(floodUnit, len(big.reconcile)/len(floodUnit)+1), string(big.reconcile)) {
		r.note("FAIL 1M flood: reconcile text is not a prefix of the reply")
	}
	if big.finished != 1 || big.orderBroken != "" {
		r.note("FAIL 1M flood: run.finished %d times; %s", big.finished, big.orderBroken)
	}
	return r, nil
}

// checkTurn notes every way a turn's accounting departs from the protocol.
func checkTurn(r *result, name string, st *turnStats, full, outcome string) {
	ok := 1.0
	if st.finished != 1 {
		r.note("FAIL %s: run.finished arrived %d times", name, st.finished)
		ok = 0
	}
	if st.outcome != outcome {
		r.note("FAIL %s: outcome %s (error_code %s), want %s", name, st.outcome, st.errorCode, outcome)
		ok = 0
	}
	if !st.lastPart || string(st.reconcile) != full {
		r.note("FAIL %s: reconcile text (%d bytes, last_part=%v) differs from the %d-byte reply", name, len(st.reconcile), st.lastPart, len(full))
		ok = 0
	}
	if st.orderBroken != "" {
		r.note("FAIL %s: %s", name, st.orderBroken)
		ok = 0
	}
	r.add("flood."+name+".reconcile_exact", ok, "bool")
	if st.deltaWrong != "" {
		r.note("FAIL %s: %s", name, st.deltaWrong)
		r.add("flood."+name+".deltas_exact", 0, "bool")
	} else {
		r.add("flood."+name+".deltas_exact", 1, "bool")
	}
}
