package worker

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/stages/wire"
)

// shown returns the text of the delta events queued on the edge since the
// last call.
func shown(t *testing.T, q *backpressure.Queue[wire.Event]) string {
	t.Helper()
	var b strings.Builder
	for q.Len() > 0 {
		e := <-q.C()
		if e.Name != protocol.EventMessageDelta {
			t.Fatalf("event %s while the segment streams", e.Name)
		}
		b.WriteString(e.Text)
	}
	return b.String()
}

// TestSinkIdleShowsHeldText: the redactor holds back the word at the end of
// a delta (it may still become part of a credential path); when the
// provider goes quiet the idle timer shows it, idleCheck after the last
// delta when the timer starts with it, and at most 2*idleCheck after the
// last delta when deltas kept coming.
func TestSinkIdleShowsHeldText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, q, _ := testSink(t)
		s.SegmentStart("m1")
		if err := s.TextDelta("m1", "Let me look"); err != nil {
			t.Fatal(err)
		}
		if got := shown(t, q); got != "Let me " {
			t.Fatalf("at once: %q; want the text before the last word", got)
		}
		time.Sleep(idleCheck - time.Millisecond)
		synctest.Wait()
		if got := shown(t, q); got != "" {
			t.Fatalf("%v into the pause: %q; want nothing yet", idleCheck-time.Millisecond, got)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got := shown(t, q); got != "look" {
			t.Fatalf("%v into the pause: %q; want the held word shown", idleCheck, got)
		}
		// Deltas keep the timer waiting; the last one is followed by a
		// pause of at most 2*idleCheck before its word shows.
		last := time.Now()
		for _, d := range []string{" at", " the", " tests"} {
			time.Sleep(idleCheck / 2)
			last = time.Now()
			if err := s.TextDelta("m1", d); err != nil {
				t.Fatal(err)
			}
		}
		for shownAt := time.Duration(0); ; {
			time.Sleep(time.Millisecond)
			synctest.Wait()
			if strings.HasSuffix(shown(t, q), "tests") {
				shownAt = time.Since(last)
				if shownAt > 2*idleCheck {
					t.Fatalf("the last word shown %v after the last delta; want at most %v", shownAt, 2*idleCheck)
				}
				break
			}
			if time.Since(last) > time.Second {
				t.Fatal("the last word was not shown within a second of the last delta")
			}
		}
		if err := s.SegmentEnd("m1", "Let me look at the tests"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if q.Len() != 0 {
			t.Fatalf("%d events after the segment ended", q.Len())
		}
	})
}

// TestSinkIdleKeepsCandidate: a pause inside a secret shows nothing of it
// (nor of the text a secret could still take) until more text decides it;
// then the marker goes out.
func TestSinkIdleKeepsCandidate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, q, _ := testSink(t)
		s.SegmentStart("m1")
		const key = "AKIAZ7Q3XW5RT2M4KP6N"
		var got strings.Builder
		for i, d := range []string{"use ", key[:11], key[11:] + ", then stop"} {
			if err := s.TextDelta("m1", d); err != nil {
				t.Fatal(err)
			}
			time.Sleep(10 * idleCheck) // the provider pauses
			synctest.Wait()
			text := shown(t, q)
			got.WriteString(text)
			if i == 1 && text != "" {
				t.Fatalf("a pause inside the key shows %q; want nothing", text)
			}
		}
		if err := s.SegmentEnd("m1", "use "+key+", then stop"); err != nil {
			t.Fatal(err)
		}
		got.WriteString(shown(t, q))
		if want := "use " + redact.Marker + ", then stop"; got.String() != want {
			t.Fatalf("deltas %q; want %q", got.String(), want)
		}
	})
}
