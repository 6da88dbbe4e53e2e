//go:build unix

package mcp

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// A kill's grace deadline can pass before the stderr drain first reads (a
// busy machine did not schedule it in time): what the server wrote before
// it died must still reach the tail.
func TestDrainAfterDeadlineKeepsLastWords(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.WriteString("fatal: boom\n"); err != nil {
		t.Fatal(err)
	}
	// A writer that is still alive: drain must not wait for its EOF.
	defer w.Close()
	if err := r.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Skipf("pipe without deadlines: %v", err)
	}
	var got bytes.Buffer
	drain(&got, r)
	if got.String() != "fatal: boom\n" {
		t.Errorf("drained %q; want the bytes written before the deadline", got.String())
	}
}

// readReady stops at readyLimit while a writer keeps the pipe full.
func TestReadReadyBounded(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer w.Close()
		chunk := bytes.Repeat([]byte("x"), 4096)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}()
	var n countWriter
	readReady(&n, r)
	close(stop)
	r.Close()
	<-done
	if n > readyLimit+4096 {
		t.Errorf("read %d bytes; want at most %d", n, readyLimit+4096)
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// readReady returns at EOF with what was written: a closed writer's pipe
// reads 0 bytes and no error, which ends the copy.
func TestReadReadyAtEOF(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString("last words\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var got bytes.Buffer
	done := make(chan struct{})
	go func() { defer close(done); readReady(&got, r) }()
	select {
	case <-done:
		r.Close()
	case <-time.After(10 * time.Second):
		// r stays open: Close would wait for the read still running.
		t.Fatal("readReady did not return within 10s at the end of a closed pipe")
	}
	if got.String() != "last words\n" {
		t.Errorf("read %q; want what was written", got.String())
	}
}
