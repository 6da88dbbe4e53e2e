package mission

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
)

func TestPromptLimits(t *testing.T) {
	l := limitsOf(0, 0)
	if l.prompt != 16384 || l.frame != 65536 {
		t.Fatalf("version 1's limits: %+v", l)
	}
	for _, c := range []struct {
		prompt string
		want   string // "" or a part of the reason
	}{
		{strings.Repeat("a", 16384), ""},
		{strings.Repeat("a", 16385), "the prompt is 16.0 KiB; at most 16.0 KiB"},
		{strings.Repeat("\n", 16384), ""},                          // 2 bytes each encoded: fits
		{strings.Repeat("<", 10900), "encoded, over the 64.0 KiB"}, // 6 bytes each
		{strings.Repeat("<", 10000), ""},
		{strings.Repeat("\x01", 10900), "encoded"},
	} {
		got := l.tooBig(c.prompt)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("tooBig(%d bytes of %q) = %q; want %q", len(c.prompt), c.prompt[:1], got, c.want)
		}
	}
	if got := limitsOf(1000, 100).tooBig(strings.Repeat("a", 101)); !strings.Contains(got, "at most 100 bytes") {
		t.Errorf("a backend's own limit: %q", got)
	}
	if bytesFor(1) != "1 byte" || bytesFor(900) != "900 bytes" {
		t.Errorf("bytesFor: %q %q", bytesFor(1), bytesFor(900))
	}
}

// A draft over initialize's prompt_bytes is never sent: Enter says why in
// words and keeps it; the input says how big it is and what can be sent.
func TestTooBigDraftStays(t *testing.T) {
	fb := &fakeBackend{events: make(chan client.Event)}
	m := New(Options{Backend: fb})
	m.Update(result(0, "initialize", `{"limits":{"frame_bytes":65536,"prompt_bytes":2000},"status":{"readiness":"ready","provider":"fixture","model":"fixture-model"}}`))
	m.Update(result(0, "session.create", `{"session_id":"`+sess+`","revision":"r1","durable":false,"notices":[]}`))
	m.input.set([]rune(strings.Repeat("x", 1500)))
	if v := view(m); !strings.Contains(v, "draft 1.5 KiB of the 2.0 KiB a prompt can be") {
		t.Fatalf("the draft's size is not shown:\n%s", v)
	}
	m.input.set([]rune(strings.Repeat("x", 2001)))
	if v := strings.Join(strings.Fields(view(m)), " "); !strings.Contains(v, "draft too big to send: the prompt is 2.0 KiB; at most 2.0 KiB can be sent") {
		t.Fatalf("the draft is not said too big:\n%s", v)
	}
	key(m, "enter")
	fb.mu.Lock()
	calls := strings.Join(fb.calls, " ")
	fb.mu.Unlock()
	if strings.Contains(calls, "turn.start") || m.running {
		t.Fatalf("a too big prompt was sent: %s", calls)
	}
	if len(m.input.Value()) != 2001 || !strings.Contains(printed(m), "not sent: the prompt is 2.0 KiB; at most 2.0 KiB can be sent; your text stays in the input") {
		t.Fatalf("draft %d bytes; printed:\n%s", len(m.input.Value()), printed(m))
	}
	// Shortened, it goes.
	key(m, "backspace")
	if v := view(m); strings.Contains(v, "too big") {
		t.Fatalf("a draft at the limit is said too big:\n%s", v)
	}
}
