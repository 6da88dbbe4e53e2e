package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	// turnsCount echo turns of turnsPrompt bytes run in one child and one
	// session (a child retains at most 4,096 request IDs).
	turnsCount  = 2000
	turnsPrompt = 2048
	// turnsWindow turns around a mark are the median taken there.
	turnsWindow = 40
)

// runTurns measures whether a turn's own cost grows with the session: one
// child runs 2,000 echo turns of 2 KB prompts in one session (the fixture
// echoes each prompt, so the session file grows by about 4.5 KB a turn),
// and the time from turn.start to run.finished is compared around turn
// 100 and around turn 2,000.
func runTurns(bin string) (*result, error) {
	w, err := newWorkspace("")
	if err != nil {
		return nil, err
	}
	defer w.remove()
	c, err := startReady(bin, w)
	if err != nil {
		return nil, err
	}
	defer c.closeAndWait(5 * time.Second)
	var s struct {
		SessionID string `json:"session_id"`
	}
	if err := c.call("create", "session.create", "{}", &s); err != nil {
		return nil, err
	}
	prompt := strings.Repeat("0123456789abcdef", turnsPrompt/16)
	times := make([]time.Duration, 0, turnsCount)
	cpu := make([]time.Duration, 0, turnsCount+1)
	finished := []byte(`"event":"run.finished"`)
	for i := range turnsCount {
		if i == 0 || i == turnsWindow || i == turnsCount-turnsWindow {
			t, err := procCPU(c.pid())
			if err != nil {
				return nil, err
			}
			cpu = append(cpu, t)
		}
		start := time.Now()
		if err := c.send(request("t"+strconv.Itoa(i), "turn.start", `{"session_id":"`+s.SessionID+`","prompt":"`+prompt+`"}`)); err != nil {
			return nil, err
		}
		for {
			l, err := c.line()
			if err != nil {
				return nil, fmt.Errorf("turn %d: %w", i+1, err)
			}
			if bytes.Contains(l, []byte(`"error"`)) && bytes.Contains(l, []byte(`"type":"response"`)) {
				return nil, fmt.Errorf("turn %d: %.200s", i+1, l)
			}
			if bytes.Contains(l, finished) {
				if !bytes.Contains(l, []byte(`"outcome":"completed"`)) {
					return nil, fmt.Errorf("turn %d: %.300s", i+1, l)
				}
				break
			}
		}
		times = append(times, time.Since(start))
	}
	end, err := procCPU(c.pid())
	if err != nil {
		return nil, err
	}
	r := &result{}
	at := func(mark int) float64 { // median of the turnsWindow turns ending at mark
		w := slices.Clone(times[mark-turnsWindow : mark])
		slices.Sort(w)
		return ms(w[len(w)/2])
	}
	t100, t1000, t2000 := at(100+turnsWindow/2), at(1000+turnsWindow/2), at(turnsCount)
	r.add("turns.turn_time_at_100", t100, "ms")
	r.add("turns.turn_time_at_1000", t1000, "ms")
	r.add("turns.turn_time_at_2000", t2000, "ms")
	r.add("turns.growth_2000_over_100", t2000/t100, "ratio")
	// Child CPU per turn over the first and the last turnsWindow turns.
	r.add("turns.child_cpu_first", ms(cpu[1]-cpu[0])/turnsWindow, "ms/turn")
	r.add("turns.child_cpu_last", ms(end-cpu[2])/turnsWindow, "ms/turn")
	if st, err := os.Stat(filepath.Join(w.home, "sessions", s.SessionID+".jsonl")); err == nil {
		r.add("turns.session_bytes", float64(st.Size()), "bytes")
	}
	if t2000 > 1.5*t100 {
		r.note("turn 2,000 takes %.2fx turn 100 (target <= 1.5x)", t2000/t100)
	}
	return r, nil
}
