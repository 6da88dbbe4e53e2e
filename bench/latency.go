package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"
)

// The latency scenario: how long text a model writes takes to become
// visible in message.delta frames, through the streaming redactor.
const (
	// latencyCorpus is realistic assistant text with no secret in it: prose
	// that says key, token, secret, password, auth, bearer, credential and
	// API, code assigning to such names, URLs, hashes, UUIDs, base64.
	latencyCorpus = "redact/testdata/assistant.txt"
	// latencyRate is how fast the scripted model writes, in bytes a second.
	latencyRate = 200
	// latencyPause follows every latencyPauseEvery-th piece: a model that
	// stops to think or before a tool call.
	latencyPause      = 600 * time.Millisecond
	latencyPauseEvery = 6
	// Pieces are 1 to latencyMaxPiece bytes (never cutting a UTF-8 sequence).
	latencyMaxPiece = 40
)

// latencyPiece is one delta of the script: its text ends at byte end of
// the corpus and the provider produces it at offset at after the first.
type latencyPiece struct {
	end int
	at  time.Duration
}

// latencyScript splits corpus into pieces of 1-40 bytes (a fixed seed, so
// every run and both binaries of -compare get the same script), paced at
// latencyRate with the pauses, and returns the fixture script and the
// schedule.
func latencyScript(corpus string) (string, []latencyPiece) {
	rng := rand.New(rand.NewPCG(24, 200))
	var steps []map[string]any
	var pieces []latencyPiece
	var at time.Duration
	for off := 0; off < len(corpus); {
		n := min(1+rng.IntN(latencyMaxPiece), len(corpus)-off)
		for off+n < len(corpus) && corpus[off+n]&0xC0 == 0x80 {
			n++ // the rest of a UTF-8 sequence
		}
		steps = append(steps, map[string]any{"text": corpus[off : off+n]})
		off += n
		pieces = append(pieces, latencyPiece{end: off, at: at})
		wait := time.Duration(n) * time.Second / latencyRate
		if len(pieces)%latencyPauseEvery == 0 {
			wait += latencyPause
		}
		steps = append(steps, map[string]any{"sleep_ms": wait.Milliseconds()})
		at += wait.Truncate(time.Millisecond)
	}
	b, err := json.Marshal(map[string]any{"responses": []any{map[string]any{"steps": steps}}})
	if err != nil {
		panic(err) // strings and numbers only
	}
	return string(b), pieces
}

// runLatency streams the corpus through a real child with the fixture
// provider and reports, per piece, how long after the provider produced it
// its last byte was visible in message.delta frames.
//
// The bench cannot see when the provider produced a piece, only the
// script's schedule; latencyResult says how the lags are told from it.
func runLatency(bin string) (*result, error) {
	raw, err := os.ReadFile(latencyCorpus)
	if err != nil {
		return nil, fmt.Errorf("%w (run the bench from the repository's root)", err)
	}
	corpus := string(raw)
	script, pieces := latencyScript(corpus)
	c, end, err := scriptedTurn(bin, script)
	if err != nil {
		return nil, err
	}
	defer end()
	// visible[i] is when the text visible reached piece i's end.
	visible := make([]time.Time, len(pieces))
	var shown strings.Builder
	next := 0
	message := ""
	var ev struct {
		Type  string `json:"type"`
		Event string `json:"event"`
		Data  struct {
			MessageID string `json:"message_id"`
			Text      string `json:"text"`
			Outcome   string `json:"outcome"`
		} `json:"data"`
	}
	for {
		l, err := c.line()
		if err != nil {
			return nil, fmt.Errorf("before run.finished: %w", err)
		}
		now := time.Now()
		if !bytes.Contains(l, []byte(`"type":"event"`)) {
			if bytes.Contains(l, []byte(`"error"`)) {
				return nil, fmt.Errorf("%.200s", l)
			}
			continue
		}
		ev.Data.Text, ev.Data.MessageID = "", ""
		if err := json.Unmarshal(l, &ev); err != nil {
			return nil, err
		}
		switch ev.Event {
		case "message.delta":
			if message == "" {
				message = ev.Data.MessageID
			}
			if ev.Data.MessageID != message {
				return nil, errors.New("the reply came in more than one segment")
			}
			shown.WriteString(ev.Data.Text)
			for next < len(pieces) && pieces[next].end <= shown.Len() {
				visible[next] = now
				next++
			}
		case "run.finished":
			if ev.Data.Outcome != "completed" {
				return nil, fmt.Errorf("run %s: %.300s", ev.Data.Outcome, l)
			}
			if shown.String() != corpus || next != len(pieces) {
				return nil, fmt.Errorf("the deltas showed %d of %d bytes, or other text (a delta dropped, or text redacted)", shown.Len(), len(corpus))
			}
			return latencyResult(pieces, visible), nil
		}
	}
}

// latencyResult reports the lags' p50, p99 and max, two ways.
//
// latency.*: piece i was produced no later than any later piece j's
// arrival less the schedule's gap between them (a sleep can overrun, never
// end early), so arrival_i - min over j >= i of (arrival_j - (at_j - at_i))
// is at most piece i's true lag, and equal to it when some later piece was
// shown at once with no overrun in between. The fixture's overruns, which
// add up along the script, do not count.
//
// latency.global.*: the schedule anchored once, where it makes the
// smallest lag zero. Every overrun of the fixture's sleeps before a piece
// counts as its lag (about 0.7 ms a sleep here), so late pieces read later
// than they were; an upper figure.
func latencyResult(pieces []latencyPiece, visible []time.Time) *result {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	r := &result{}
	report := func(name string, lag []time.Duration) {
		slices.Sort(lag)
		r.addSpread(name+".p50", ms(percentile(lag, 0.50)), "ms")
		r.addSpread(name+".p99", ms(percentile(lag, 0.99)), "ms")
		r.addSpread(name+".max", ms(lag[len(lag)-1]), "ms")
	}
	local := make([]time.Duration, len(pieces))
	for i := len(pieces) - 1; i >= 0; i-- {
		bound := visible[i] // j = i
		for j := i + 1; j < len(pieces); j++ {
			if t := visible[j].Add(-(pieces[j].at - pieces[i].at)); t.Before(bound) {
				bound = t
			}
		}
		local[i] = visible[i].Sub(bound)
	}
	report("latency", local)
	start := visible[0].Add(-pieces[0].at)
	for i, p := range pieces {
		if t := visible[i].Add(-p.at); t.Before(start) {
			start = t
		}
	}
	global := make([]time.Duration, len(pieces))
	for i, p := range pieces {
		global[i] = visible[i].Sub(start.Add(p.at))
	}
	report("latency.global", global)
	r.add("latency.pieces", float64(len(pieces)), "pieces")
	r.notes = append(r.notes, fmt.Sprintf("latency: %d pieces of 1-%d bytes at %d B/s, a %v pause after every %d-th; latency.* is a lower bound per piece, latency.global.* counts the fixture's overruns", len(pieces), latencyMaxPiece, latencyRate, latencyPause, latencyPauseEvery))
	return r
}
