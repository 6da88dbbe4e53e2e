package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// checkLeaks registers, as the test's last cleanup, a check that no
// goroutine and no child process of ours outlives the test.
func checkLeaks(t *testing.T) {
	t.Cleanup(func() {
		goleak.VerifyNone(t)
		if kids := children(); len(kids) > 0 {
			// A SIGKILLed child is reaped by its waiter just after; give
			// that a moment before calling it a leak.
			deadline := time.Now().Add(2 * time.Second)
			for len(kids) > 0 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
				kids = children()
			}
			if len(kids) > 0 {
				t.Errorf("child processes left: %v", kids)
			}
		}
	})
}

// children lists the processes whose parent is this one (none where /proc
// does not exist).
func children() []string {
	self := strconv.Itoa(os.Getpid())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []string
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:]) // state, ppid, pgrp, ...
		if len(fields) > 1 && fields[1] == self {
			out = append(out, fmt.Sprintf("%s(%s)", filepath.Base(filepath.Dir(path)), fields[0]))
		}
	}
	return out
}
