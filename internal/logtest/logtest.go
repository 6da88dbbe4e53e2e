// Package logtest collects the lines a component logs through a
// printf-style function (its Logf option), for tests that assert what a
// person reading the log would see. Safe for concurrent use.
package logtest

import (
	"fmt"
	"strings"
	"sync"
)

// Lines is a log: pass its Logf where a component takes one. The zero
// value is ready to use.
type Lines struct {
	mu    sync.Mutex
	lines []string
}

// Logf records one formatted line.
func (l *Lines) Logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

// All returns a copy of the lines recorded so far.
func (l *Lines) All() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// String returns the lines recorded so far, joined with newlines.
func (l *Lines) String() string { return strings.Join(l.All(), "\n") }
