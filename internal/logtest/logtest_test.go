package logtest

import (
	"sync"
	"testing"
)

func TestLines(t *testing.T) {
	var l Lines
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() { l.Logf("line %d", i) })
	}
	wg.Wait()
	if got := len(l.All()); got != 8 {
		t.Fatalf("%d lines; want 8", got)
	}
	var one Lines
	one.Logf("a %s", "b")
	one.Logf("c")
	if got := one.String(); got != "a b\nc" {
		t.Errorf("String = %q", got)
	}
}
