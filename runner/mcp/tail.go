package mcp

import "sync"

// MaxStderrBytes bounds what is kept of a stdio server's stderr: the last
// 64 KiB, about one pipe's worth. Older bytes are dropped.
const MaxStderrBytes = 64 << 10

// tail keeps the last max bytes written to it. Write never blocks on a
// reader and never fails, so a server flooding stderr cannot stall. Safe
// for concurrent use.
type tail struct {
	max int

	// mu guards buf and dropped.
	mu      sync.Mutex
	buf     []byte
	dropped int64
}

func newTail(max int) *tail { return &tail{max: max} }

// Write appends p, dropping the oldest bytes beyond max.
func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= t.max {
		t.dropped += int64(len(t.buf) + len(p) - t.max)
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// Bytes returns a copy of what is kept and how many older bytes were dropped.
func (t *tail) Bytes() (kept []byte, dropped int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...), t.dropped
}
