package wire

import (
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// TestCriticalOnlyDeltaMayDrop: docs/protocol.md, Ordering and delivery:
// "What may drop: only message.delta"; every other event is never dropped
// silently.
func TestCriticalOnlyDeltaMayDrop(t *testing.T) {
	for _, name := range protocol.Events {
		e := Event{Name: name}
		if got, want := e.Critical(), name != protocol.EventMessageDelta; got != want {
			t.Errorf("Event{%s}.Critical() = %v; want %v", name, got, want)
		}
	}
}
