package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The script replays the corpus whole, in pieces of 1-40 bytes that never
// cut a UTF-8 sequence, and its schedule is the sleeps it contains: 5 ms a
// byte (200 B/s) and a 600 ms pause after every sixth piece.
func TestLatencyScript(t *testing.T) {
	corpus := strings.Repeat("Le token est prêt: apiKey = os.Getenv(\"API_KEY\") ✓ ", 40)
	script, pieces := latencyScript(corpus)
	var s struct {
		Responses []struct {
			Steps []struct {
				Text    *string `json:"text"`
				SleepMs *int64  `json:"sleep_ms"`
			} `json:"steps"`
		} `json:"responses"`
	}
	if err := json.Unmarshal([]byte(script), &s); err != nil || len(s.Responses) != 1 {
		t.Fatalf("script %.200s: %v", script, err)
	}
	var text strings.Builder
	var at, wait time.Duration
	i := 0
	for _, st := range s.Responses[0].Steps {
		switch {
		case st.Text != nil:
			n := len(*st.Text)
			if n < 1 || n > latencyMaxPiece+3 || strings.ToValidUTF8(*st.Text, "?") != *st.Text {
				t.Fatalf("piece %d is %q", i, *st.Text)
			}
			text.WriteString(*st.Text)
			if pieces[i].end != text.Len() || pieces[i].at != at {
				t.Fatalf("piece %d: schedule says end %d at %v; script says %d at %v", i, pieces[i].end, pieces[i].at, text.Len(), at)
			}
			i++
			wait = time.Duration(n) * 5 * time.Millisecond
			if i%latencyPauseEvery == 0 {
				wait += latencyPause
			}
		case st.SleepMs != nil:
			if got := time.Duration(*st.SleepMs) * time.Millisecond; got != wait {
				t.Fatalf("the sleep after piece %d is %v; want %v", i-1, got, wait)
			}
			at += wait
		}
	}
	if text.String() != corpus || i != len(pieces) {
		t.Fatalf("the script replays %d bytes in %d pieces; want the corpus's %d in %d", text.Len(), i, len(corpus), len(pieces))
	}
}

// latency.* bounds each piece's production by a later piece's arrival
// less the schedule's gap; latency.global.* anchors the schedule once at
// the smallest lag.
func TestLatencyResult(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	pieces := []latencyPiece{{end: 1, at: 0}, {end: 2, at: ms(100)}, {end: 3, at: ms(200)}, {end: 4, at: ms(300)}}
	// Piece 0 is held until piece 1 arrives; piece 2 is shown at once
	// after a 50 ms overrun of the sleep before it; piece 3 at once.
	visible := []time.Time{t0.Add(ms(100)), t0.Add(ms(100)), t0.Add(ms(250)), t0.Add(ms(350))}
	got := map[string]float64{}
	for _, f := range latencyResult(pieces, visible).figures {
		got[f.name] = f.value
	}
	// Local lags 100, 0, 0, 0; global, anchored at t0: 100, 0, 50, 50.
	want := map[string]float64{"latency.p50": 0, "latency.max": 100, "latency.global.p50": 50, "latency.global.max": 100, "latency.pieces": 4}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v; want %v (all: %v)", k, got[k], v, got)
		}
	}
}
