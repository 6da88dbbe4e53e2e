//go:build unix

package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/benchcpu"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
)

// floodDeltas is the flood's length: 80,000 deltas of 100 bytes, under the
// 8 MiB per-run content bound (as bench's flood scenario).
const floodDeltas = 80_000

// floodTurns bounds the turns of one benchmark run (b.N frames).
const floodTurns = 64

// BenchmarkPipelineFlood is the whole pipeline of one child, in process, over
// real pipes: a turn of 80,000 100-byte deltas from the fixture provider
// (redaction, pacing, the event edge, the writer, write(2), the stored
// chunks and the reconcile), read as fast as the reader can. One op is one
// frame of the turn; cpu-ns/op is the process's CPU per frame, the reader's
// included, and allocs/op the allocations per frame.
func BenchmarkPipelineFlood(b *testing.B) {
	root := b.TempDir()
	home, cwd := filepath.Join(root, "home"), filepath.Join(root, "work")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	unit := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.", 2)[:100]
	script := filepath.Join(root, "script.json")
	// One response per turn (the fixture plays them in order).
	resp := `{"steps":[{"text":"` + unit + `","repeat":` + strconv.Itoa(floodDeltas) + `}]}`
	if err := os.WriteFile(script, []byte(`{"responses":[`+strings.Repeat(resp+",", floodTurns-1)+resp+`]}`), 0o600); err != nil {
		b.Fatal(err)
	}
	settings := "provider = \"fixture\"\nmodel = \"fixture-model\"\n\n[providers.fixture]\nscript = " + strconv.Quote(script) + "\n"
	if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte(settings), 0o600); err != nil {
		b.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	code := make(chan int, 1)
	go func() {
		code <- pipeline(inR, outW, runner.Env{MCHome: home, Home: root, Cwd: cwd}, protocol.InvocationLocalAgent, "")
		outW.Close()
	}()
	br := bufio.NewReaderSize(outR, 64<<10)
	// expect reads frames until one contains want, and returns how many it read.
	var last []byte
	expect := func(want string) int {
		n := 0
		for {
			line, err := br.ReadSlice('\n')
			last = line
			if err != nil {
				b.Fatalf("reading output: %v", err)
			}
			n++
			if bytes.Contains(line, []byte(`"error":`)) {
				b.Fatalf("unexpected error frame: %s", line)
			}
			if bytes.Contains(line, []byte(want)) {
				return n
			}
		}
	}
	send := func(s string) {
		if _, err := inW.WriteString(`{"protocol":"magi-code.local-agent","version":1,` + s[1:] + "\n"); err != nil {
			b.Fatal(err)
		}
	}
	send(`{"id":"init","method":"initialize","params":{"required_capabilities":["status","shutdown"]}}`)
	expect(`"id":"init"`)
	b.ReportAllocs()
	frames, turns := 0, 0
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	stop := benchcpu.Start(b)
	for i := 0; frames < b.N; i++ {
		if i == floodTurns {
			b.Fatalf("more than %d turns: use a smaller -benchtime", floodTurns)
		}
		id := "c" + strconv.Itoa(i)
		send(`{"id":"` + id + `","method":"session.create","params":{}}`)
		line, err := br.ReadSlice('\n')
		if err != nil || !bytes.Contains(line, []byte(`"id":"`+id+`"`)) || bytes.Contains(line, []byte(`"error":`)) {
			b.Fatalf("session.create: %q %v", line, err)
		}
		j := bytes.Index(line, []byte(`"session_id":"`))
		sid := string(line[j+len(`"session_id":"`):])
		sid = sid[:strings.IndexByte(sid, '"')]
		send(`{"id":"t` + strconv.Itoa(i) + `","method":"turn.start","params":{"session_id":"` + sid + `","prompt":"flood"}}`)
		n := expect(`"run.finished"`)
		if n < floodDeltas/2 {
			b.Fatalf("a turn of %d frames: %s", n, last)
		}
		frames += n
		turns++
	}
	runtime.ReadMemStats(&ms1)
	b.StopTimer()
	// One op is one frame: rescale what the loop measured.
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(frames), "allocs/frame")
	b.ReportMetric(float64(ms1.NumGC-ms0.NumGC)/float64(turns), "gc/turn")
	// Fewer frames than deltas: the reader fell behind (a loaded machine)
	// and text coalesced.
	b.ReportMetric(float64(frames)/float64(turns), "frames/turn")
	stop()
	inW.Close()
	if c := <-code; c != 0 {
		b.Fatalf("pipeline exit code %d", c)
	}
}
