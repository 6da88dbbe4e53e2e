package transcripts_test

import (
	"context"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/conformance"
)

func TestMain(m *testing.M) { clienttest.Main(m) }

// TestTranscripts runs every worked example against bin/magi-code, each in
// its own MC_HOME with its settings and fixture script: the frames, their
// order and the exit status must be as the transcript says, and every
// frame must pass the stream checks (schema, seq, event grammar...).
func TestTranscripts(t *testing.T) {
	all, err := conformance.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no transcripts")
	}
	srv := conformance.Server{Argv: []string{clienttest.Binary(t), "serve", "--stdio"}, Isolate: true, EmptyStderr: true}
	for _, tr := range all {
		t.Run(tr.Name, func(t *testing.T) {
			t.Parallel()
			if tr.Doc == "" {
				t.Error("the transcript does not say what it shows")
			}
			if _, err := conformance.Run(context.Background(), tr, srv); err != nil {
				t.Fatal(err)
			}
		})
	}
}
