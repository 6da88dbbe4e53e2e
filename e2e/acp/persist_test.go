//go:build unix

package acp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/history"
)

// TestCrashMidReplyKeepsStoredChunks: over ACP a long reply is stored while
// it streams, as under serve (the same 16 KiB chunks): a process killed
// mid-reply leaves the chunks it stored, and the session reopens, under
// serve (Mission Control's view) as a partial reply of an interrupted turn
// and over ACP in a new process, with at least all but the last two
// chunks of what was sent, as a prefix of it.
func TestCrashMidReplyKeepsStoredChunks(t *testing.T) {
	long := strings.Repeat("word ", 8000) // 40,000 bytes: two stored chunks
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		response(repeat("word ", 8000), sleepMs(600000)),
	}})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	a.prompt(sid, "go")
	sent := 0
	for sent < len(long)-256 { // the redaction stream may hold back 256 bytes
		f := a.next()
		if f.Method == "session/update" {
			if u := f.update(t).Update; u.Kind == "agent_message_chunk" {
				sent += len(u.Text)
			}
		}
	}
	// The provider sleeps: wait for the second chunk's record (it is
	// appended off the text path), then kill the process as a crash would.
	path := filepath.Join(ws.Home, "sessions", sid+".jsonl")
	for deadline := time.Now().Add(guard); ; { // hang guard only
		data, _ := os.ReadFile(path)
		whole := data[:bytes.LastIndexByte(data, '\n')+1]
		if strings.Count(string(whole), `"assistant_chunk"`) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reply was not stored while it streamed: %d chunk records after %d bytes sent", strings.Count(string(whole), `"assistant_chunk"`), sent)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.exited

	ch := ws.StartChild(t, client.Options{})
	res := ch.Open(sid)
	entries, _, _ := ch.History(sid, res.Revision)
	var reply strings.Builder
	for _, e := range entries {
		if e.Kind == "assistant" {
			if !e.Partial {
				t.Error("the interrupted reply is not partial under serve")
			}
			reply.WriteString(e.Text)
		}
	}
	if reply.Len() < 2*history.ChunkBytes || !strings.HasPrefix(long, reply.String()) {
		t.Fatalf("under serve: %d bytes of the reply kept; want a prefix of at least %d", reply.Len(), 2*history.ChunkBytes)
	}
	ch.Shutdown()

	b := start(t, ws)
	b.initialize()
	r, replay := b.call("session/load", map[string]any{"sessionId": sid, "cwd": ws.Cwd, "mcpServers": []any{}})
	if r.Error != nil {
		t.Fatalf("load: %s", r.raw)
	}
	ids, texts := messages(t, replay, "agent_message_chunk")
	if len(ids) != 1 || texts[ids[0]] != reply.String() {
		t.Fatalf("load replays %d messages; want the kept %d bytes once", len(ids), reply.Len())
	}
	b.wantExit(0)
}
