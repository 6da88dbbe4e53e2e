package history

import (
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/benchcpu"
)

// BenchmarkReplayTurn is one turn's storage work in a session of 2,000
// echo turns of 2 KB: append input, reply and completion, then replay the
// conversation for the next provider call.
func BenchmarkReplayTurn(b *testing.B) {
	s := NewStore(b.TempDir(), b.TempDir(), fixedNow)
	a, code := s.Create("bench", Selection{Provider: "fixture", Model: "m"})
	if code != "" {
		b.Fatal(code)
	}
	defer a.Close()
	prompt := strings.Repeat("0123456789abcdef", 128)
	turn := func(i int, replay bool) {
		run := "r" + strconv.Itoa(i)
		if _, err := a.AppendInput(Record{Type: TypeInput, RunID: run, MessageID: "i" + run, Text: prompt}); err != nil {
			b.Fatal(err)
		}
		if _, err := a.Append(Record{Type: TypeAssistant, RunID: run, MessageID: "m" + run, Text: "echo: " + prompt, HasText: true}, false); err != nil {
			b.Fatal(err)
		}
		if _, err := a.Append(Record{Type: TypeRunCompleted, RunID: run, Outcome: "completed"}, true); err != nil {
			b.Fatal(err)
		}
		if !replay {
			return
		}
		if _, code := a.Replay(); code != "" {
			b.Fatal(code)
		}
	}
	for i := range 2000 {
		turn(i, i == 1999)
	}
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	i := 2000
	for b.Loop() {
		turn(i, true)
		i++
	}
}
