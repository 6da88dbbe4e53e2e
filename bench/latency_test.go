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

// The schedule is anchored where the smallest lag is zero; each lag is the
// arrival less that anchor and the piece's offset.
func TestLatencyResult(t *testing.T) {
	t0 := time.Unix(1000, 0)
	pieces := []latencyPiece{{end: 1, at: 0}, {end: 2, at: 100 * time.Millisecond}, {end: 3, at: 200 * time.Millisecond}}
	visible := []time.Time{t0.Add(30 * time.Millisecond), t0.Add(110 * time.Millisecond), t0.Add(400 * time.Millisecond)}
	got := map[string]float64{}
	for _, f := range latencyResult(pieces, visible).figures {
		got[f.name] = f.value
	}
	// Anchor t0+10ms (piece 1's lag is the smallest): lags 20, 0, 190 ms.
	if got["latency.p50"] != 20 || got["latency.max"] != 190 || got["latency.pieces"] != 3 {
		t.Fatalf("figures %v; want p50 20 ms, max 190 ms, 3 pieces", got)
	}
}
