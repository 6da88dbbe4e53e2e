package history

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/protocol"
)

const helperEnv = "MC_HISTORY_HELPER"

// helperProcess runs in a child copy of the test binary: it attaches the
// session named in MC_HISTORY_HELPER ("dir\ncwd\nid"), reports the code
// on stdout, and holds the attachment until stdin closes.
func helperProcess() {
	args := strings.Split(os.Getenv(helperEnv), "\n")
	s := NewStore(args[0], args[1], fixedNow)
	a, _, code := s.Open(args[2], nil)
	fmt.Printf("open %q\n", code)
	io.Copy(io.Discard, os.Stdin)
	if a != nil {
		a.Close()
	}
	os.Exit(0)
}

func TestLazyCreateAppendAndPage(t *testing.T) {
	e := newEnv(t)
	a, code := e.store.Create("s1", Selection{Provider: "fixture", Model: "fixture-model", Thinking: "low"})
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	path := filepath.Join(e.dir, "s1.jsonl")
	if _, err := os.Lstat(path); !os.IsNotExist(err) || a.Durable() {
		t.Fatalf("lazy session has a file: %v", err)
	}
	if entries, complete := allPages(t, a); len(entries) != 0 || !complete {
		t.Fatalf("empty lazy page: %v %v", entries, complete)
	}
	if _, err := a.Append(Record{Type: TypeDiagnostic, Code: "execution_failed"}, false); err != ErrNotDurable {
		t.Fatalf("non-input first append: %v", err)
	}
	before := a.Revision()
	rev, err := a.AppendInput(Record{Type: TypeInput, RunID: "r1", MessageID: "u1", Text: "hello"})
	if err != nil || rev != a.Revision() || rev == before {
		t.Fatalf("AppendInput = %q, %v", rev, err)
	}
	if _, code := a.Page(before, nil); code != protocol.CodeStaleRevision {
		t.Fatalf("old revision: %q", code)
	}
	entries, complete := allPages(t, a)
	if complete || len(entries) != 2 || entries[0].MessageID != "u1" || entries[0].Text != "hello" || entries[1].Kind != "diagnostic" || !entries[1].Partial {
		t.Fatalf("after input: %+v complete=%v", entries, complete)
	}
	for _, r := range []Record{
		{Type: TypeAssistantChunk, RunID: "r1", MessageID: "m1", Text: "hel"},
		{Type: TypeAssistantChunk, RunID: "r1", MessageID: "m1", Text: "lo!"},
		{Type: TypeAssistant, RunID: "r1", MessageID: "m1", Text: "hello!", HasText: true},
	} {
		if _, err := a.Append(r, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Append(Record{Type: TypeRunCompleted, RunID: "r1", Outcome: "completed"}, true); err != nil {
		t.Fatal(err)
	}
	entries, complete = allPages(t, a)
	if !complete || len(entries) != 2 || entries[1].Kind != "assistant" || entries[1].Text != "hello!" {
		t.Fatalf("after run: %+v complete=%v", entries, complete)
	}
	a.Close()

	b, info, code := e.store.Open("s1", nil)
	if code != "" {
		t.Fatal(code)
	}
	defer b.Close()
	if !info.Durable || !info.HasSaved || info.Saved != (Selection{"fixture", "fixture-model", "low"}) || len(info.Notices) != 0 {
		t.Fatalf("info = %+v", info)
	}
	if got, _ := allPages(t, b); len(got) != 2 || got[1].Text != "hello!" {
		t.Fatalf("reopened: %+v", got)
	}
}

func TestMultibyteReplyRoundTrip(t *testing.T) {
	e := newEnv(t)
	var sb strings.Builder
	for sb.Len() < 100_000 {
		sb.WriteString("😀漢字\x01\x1f\"\\\n—ok ")
	}
	reply := sb.String()
	e.write(t, "s", encode(append([]Record{e.header("s")}, turn("s", "r1", "go", reply)...)...))
	a, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	entries, complete := allPages(t, a)
	msgs := joined(t, entries)
	if !complete || len(msgs) != 2 || msgs[1].Text != reply {
		t.Fatalf("reply did not round-trip (%d messages, complete=%v)", len(msgs), complete)
	}
	if len(entries) < 5 {
		t.Fatalf("a 100 KB control-heavy reply came back in %d parts", len(entries))
	}
	for _, en := range entries {
		if len(en.Text) > protocol.HistoryChunkBytes {
			t.Fatalf("part of %d bytes", len(en.Text))
		}
	}
}

func TestOneEntryPageFits(t *testing.T) {
	// Worst case: longest IDs and every byte escaping to six.
	id := strings.Repeat("s", protocol.MaxIDBytes)
	b := NewBuilder(Detail{})
	b.Add(&Record{Type: TypeReasoningSummary, SessionID: id, Text: strings.Repeat("\x01", 100_000), ProviderSummary: true})
	p, code := b.Finish(id, "v18446744073709551615-"+strings.Repeat("f", 32), 1<<64-1, false)
	if code != "" {
		t.Fatal(code)
	}
	if p.Pages() != p.Entries() {
		t.Fatalf("%d pages for %d entries", p.Pages(), p.Entries())
	}
	for j := range p.starts {
		c := p.cursor(p.starts[j])
		cur := &c
		if j == 0 {
			cur = nil
		}
		raw, code := p.AppendPage(nil, cur)
		if code != "" || len(raw) > protocol.HistoryPageBytes {
			t.Fatalf("page %d: %s, %d bytes", j, code, len(raw))
		}
	}
}

func TestProjectionRules(t *testing.T) {
	s := "s"
	cases := []struct {
		name     string
		recs     []Record
		want     []string // "kind:text:partial"
		complete bool
	}{
		{"chunks and final give one copy", []Record{
			{Type: TypeInput, MessageID: "u", Text: "q"},
			{Type: TypeAssistantChunk, MessageID: "a", Text: "x"},
			{Type: TypeAssistantChunk, MessageID: "a", Text: "y"},
			{Type: TypeAssistant, MessageID: "a", Text: "final", HasText: true},
			{Type: TypeRunCompleted, RunID: "r", Outcome: "completed"},
		}, []string{"user:q:false", "assistant:final:false"}, true},
		{"legacy completion uses chunks", []Record{
			{Type: TypeInput, MessageID: "u", Text: "q"},
			{Type: TypeAssistantChunk, MessageID: "a", Text: "x"},
			{Type: TypeAssistantChunk, MessageID: "a", Text: "y"},
			{Type: TypeAssistant, MessageID: "a"},
			{Type: TypeRunCompleted, RunID: "r", Outcome: "completed"},
		}, []string{"user:q:false", "assistant:xy:false"}, true},
		{"failed run keeps partial reply and is complete", []Record{
			{Type: TypeInput, MessageID: "u", Text: "q"},
			{Type: TypeAssistantChunk, MessageID: "a", Text: "par"},
			{Type: TypeRunCompleted, RunID: "r", Outcome: "failed", ErrorCode: "execution_failed"},
		}, []string{"user:q:false", "assistant:par:true"}, true},
		{"interrupted turn", []Record{
			{Type: TypeInput, MessageID: "u", Text: "q"},
			{Type: TypeAssistantChunk, MessageID: "a", Text: "par"},
			{Type: TypeInput, MessageID: "u2", Text: "q2"},
			{Type: TypeRunCompleted, RunID: "r", Outcome: "completed"},
		}, []string{"user:q:false", "assistant:par:true", "diagnostic:" + InterruptedText + ":true", "user:q2:false"}, false},
		{"reasoning provenance and replacement", []Record{
			{Type: TypeInput, MessageID: "u", Text: "q"},
			{Type: TypeReasoningSummary, ID: "r1", Text: "unverified"},
			{Type: TypeReasoningSummary, ID: "r1", Text: "first", ProviderSummary: true},
			{Type: TypeReasoningSummary, Text: "anon", ProviderSummary: true},
			{Type: TypeReasoningSummary, ID: "r1", Text: "second", ProviderSummary: true},
			{Type: TypeRunCompleted, RunID: "r", Outcome: "completed"},
			{Type: TypeInput, MessageID: "u2", Text: "q2"},
			{Type: TypeReasoningSummary, ID: "r1", Text: "next turn", ProviderSummary: true},
			{Type: TypeRunCompleted, RunID: "r", Outcome: "completed"},
		}, []string{"user:q:false", "reasoning_summary:second:false", "reasoning_summary:anon:false", "user:q2:false", "reasoning_summary:next turn:false"}, true},
		{"activities", []Record{
			{Type: TypeInput, MessageID: "u", Text: "q"},
			{Type: TypeActivity, ActivityID: "t1", Kind: "tool", State: "started", Name: "shell", Summary: "echo hi"},
			{Type: TypeActivity, ActivityID: "t2", Kind: "tool", State: "started", Name: "grep"},
			{Type: TypeToolCall, CallID: "c", Name: "shell", Arguments: `{"secret":"raw params"}`},
			{Type: TypeToolResult, CallID: "c", Text: "raw result body"},
			{Type: TypeActivity, ActivityID: "t1", Kind: "tool", State: "completed", Name: "shell", Summary: "exit 0"},
			{Type: TypeActivity, ActivityID: "t3", Kind: "tool", State: "started", Name: "read_file"},
			{Type: TypeActivity, ActivityID: "t3", Kind: "tool", State: "completed", Name: "read_file", Summary: "read_file: 12 lines"},
			{Type: TypeInternalInput, Text: "internal prompt"},
			{Type: TypeCompaction, Text: "summary of before"},
			{Type: TypeDiagnostic, Code: "persistence_failed", Summary: "slow"},
			{Type: TypeRunCompleted, RunID: "r", Outcome: "cancelled"},
		}, []string{"user:q:false", "activity:shell completed: exit 0:false", "activity:grep started:true", "activity:read_file completed: 12 lines:false", "compaction:summary of before:false", "diagnostic:persistence_failed: slow:false"}, true},
		{"redaction after reconciliation", []Record{
			{Type: TypeInput, MessageID: "u", Text: "q"},
			{Type: TypeAssistantChunk, MessageID: "a", Text: "key sk-abcdefgh"},
			{Type: TypeAssistantChunk, MessageID: "a", Text: "ijklmnopqrst end"},
			{Type: TypeRunCompleted, RunID: "r", Outcome: "failed"},
		}, []string{"user:q:false", "assistant:key [REDACTED] end:true"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuilder(Detail{})
			for i := range c.recs {
				r := c.recs[i]
				r.SessionID = s
				if r.RunID == "" {
					r.RunID = "r"
				}
				if !b.Add(&r) {
					t.Fatal("over budget")
				}
			}
			p, code := b.Finish(s, "v1-x", 1, false)
			if code != "" {
				t.Fatal(code)
			}
			var got []string
			for _, pt := range p.parts {
				m := p.msgs[pt.msg]
				got = append(got, fmt.Sprintf("%s:%s:%v", m.kind, pt.text, m.partial))
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") || p.Complete() != c.complete {
				t.Fatalf("got %q complete=%v\nwant %q complete=%v", got, p.Complete(), c.want, c.complete)
			}
		})
	}
}

func TestOpenCodes(t *testing.T) {
	e := newEnv(t)
	other := t.TempDir()
	hdr := e.header
	withCwd := func(id, cwd string) []byte {
		h := hdr(id)
		h.Cwd = cwd
		return encode(h)
	}
	cases := []struct {
		name    string
		setup   func(id string)
		code    protocol.Code
		notices []string
	}{
		{"missing", func(string) {}, protocol.CodeSessionMissing, nil},
		{"empty file is durable", func(id string) { e.write(t, id, nil) }, "", []string{protocol.NoticeCwdUnverified}},
		{"header only", func(id string) { e.write(t, id, encode(hdr(id))) }, "", nil},
		{"older header without cwd", func(id string) {
			h := hdr(id)
			h.Version, h.Cwd = 1, ""
			e.write(t, id, encode(h))
		}, "", []string{protocol.NoticeCwdUnverified}},
		{"fifo", func(id string) {
			if err := ostest.Mkfifo(filepath.Join(e.dir, id+".jsonl"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, protocol.CodeSessionInvalid, nil},
		{"symlink", func(id string) {
			target := e.write(t, id+"-target", encode(hdr(id)))
			if err := os.Symlink(target, filepath.Join(e.dir, id+".jsonl")); err != nil {
				t.Fatal(err)
			}
		}, protocol.CodeSessionInvalid, nil},
		{"directory", func(id string) { os.Mkdir(filepath.Join(e.dir, id+".jsonl"), 0o700) }, protocol.CodeSessionInvalid, nil},
		{"unreadable", func(id string) {
			if os.Geteuid() == 0 {
				// root reads anything: make it unreadable by shape instead.
				e.write(t, id, []byte("\x00\n"))
				return
			}
			p := e.write(t, id, encode(hdr(id)))
			os.Chmod(p, 0)
		}, protocol.CodeSessionInvalid, nil},
		{"malformed line", func(id string) { e.write(t, id, append(encode(hdr(id)), "{not json}\n"...)) }, protocol.CodeSessionInvalid, nil},
		{"empty line", func(id string) { e.write(t, id, append(encode(hdr(id)), "\n"...)) }, protocol.CodeSessionInvalid, nil},
		{"no header", func(id string) { e.write(t, id, encode(Record{Type: TypeCompaction, SessionID: id, Text: "x"})) }, protocol.CodeSessionInvalid, nil},
		{"second header", func(id string) { e.write(t, id, encode(hdr(id), hdr(id))) }, protocol.CodeSessionInvalid, nil},
		{"mismatched session id", func(id string) {
			e.write(t, id, encode(hdr(id), Record{Type: TypeCompaction, SessionID: "other", Text: "x"}))
		}, protocol.CodeSessionInvalid, nil},
		// docs/protocol.md, Choices: a record of a type a later build added
		// is skipped, whatever its values, when it is a JSON object of this
		// session after the header; anything else stays session_invalid.
		{"unknown record type", func(id string) {
			e.write(t, id, append(encode(hdr(id)), `{"type":"future","session_id":"`+id+`"}`+"\n"...))
		}, "", nil},
		{"unknown record type with nested values", func(id string) {
			e.write(t, id, append(encode(hdr(id)), `{"session_id":"`+id+`","n":[1,{"a":null}],"type":"future_kind","x":-1.5e3}`+"\n"...))
		}, "", nil},
		{"unknown record type of another session", func(id string) {
			e.write(t, id, append(encode(hdr(id)), `{"type":"future","session_id":"other"}`+"\n"...))
		}, protocol.CodeSessionInvalid, nil},
		{"unknown record type before the header", func(id string) {
			e.write(t, id, append([]byte(`{"type":"future","session_id":"`+id+`"}`+"\n"), encode(hdr(id))...))
		}, protocol.CodeSessionInvalid, nil},
		{"unknown record type, invalid JSON", func(id string) {
			e.write(t, id, append(encode(hdr(id)), `{"type":"future","session_id":"`+id+`","x":[1,]}`+"\n"...))
		}, protocol.CodeSessionInvalid, nil},
		{"unknown record type, duplicate key", func(id string) {
			e.write(t, id, append(encode(hdr(id)), `{"type":"future","session_id":"`+id+`","x":1,"x":2}`+"\n"...))
		}, protocol.CodeSessionInvalid, nil},
		{"unknown record type, duplicate type", func(id string) {
			e.write(t, id, append(encode(hdr(id)), `{"type":"future","session_id":"`+id+`","type":"input"}`+"\n"...))
		}, protocol.CodeSessionInvalid, nil},
		{"unknown record type outside the ID grammar", func(id string) {
			e.write(t, id, append(encode(hdr(id)), `{"type":"a b","session_id":"`+id+`"}`+"\n"...))
		}, protocol.CodeSessionInvalid, nil},
		{"unknown record type that is not a string", func(id string) {
			e.write(t, id, append(encode(hdr(id)), `{"type":7,"session_id":"`+id+`"}`+"\n"...))
		}, protocol.CodeSessionInvalid, nil},
		{"unknown record type without session", func(id string) {
			e.write(t, id, append(encode(hdr(id)), `{"type":"future"}`+"\n"...))
		}, protocol.CodeSessionInvalid, nil},
		{"unknown record type in an array", func(id string) {
			e.write(t, id, append(encode(hdr(id)), `[{"type":"future","session_id":"`+id+`"}]`+"\n"...))
		}, protocol.CodeSessionInvalid, nil},
		{"known type with an unknown field", func(id string) {
			e.write(t, id, append(encode(hdr(id)), `{"type":"compaction","session_id":"`+id+`","text":"x","future":1}`+"\n"...))
		}, protocol.CodeSessionInvalid, nil},
		{"cwd of another workspace", func(id string) { e.write(t, id, withCwd(id, other)) }, protocol.CodeCwdMismatch, nil},
		{"relative cwd", func(id string) { e.write(t, id, withCwd(id, "work")) }, protocol.CodeCwdMismatch, nil},
		{"deleted cwd", func(id string) { e.write(t, id, withCwd(id, filepath.Join(other, "gone"))) }, protocol.CodeCwdMismatch, nil},
		{"cwd through a symlink", func(id string) {
			link := filepath.Join(other, "link")
			os.Symlink(e.cwd, link)
			e.write(t, id, withCwd(id, link))
		}, "", nil},
		{"input cwd mismatch", func(id string) {
			e.write(t, id, encode(hdr(id), Record{Type: TypeInput, SessionID: id, MessageID: "u", Text: "x", Cwd: other}))
		}, protocol.CodeCwdMismatch, nil},
		{"over 64 MiB", func(id string) {
			p := e.write(t, id, encode(hdr(id)))
			os.Truncate(p, protocol.StoredHistoryBytes+1)
		}, protocol.CodeHistoryLimit, nil},
		{"over 100,000 lines", func(id string) {
			var b bytes.Buffer
			b.Write(encode(hdr(id)))
			line := encode(Record{Type: TypeTaskScope, SessionID: id, Ceiling: "c"})
			for range protocol.StoredHistoryLines {
				b.Write(line)
			}
			e.write(t, id, b.Bytes())
		}, protocol.CodeHistoryLimit, nil},
		{"over 8 MiB projection", func(id string) {
			big := strings.Repeat("x", 1<<20)
			recs := []Record{hdr(id)}
			for i := range 9 {
				recs = append(recs, Record{Type: TypeCompaction, SessionID: id, Text: big + fmt.Sprint(i)})
			}
			e.write(t, id, encode(recs...))
		}, protocol.CodeHistoryLimit, nil},
		{"over 10,000 parts", func(id string) {
			var b bytes.Buffer
			b.Write(encode(hdr(id)))
			for i := range protocol.HistorySnapshotParts + 1 {
				b.Write(encode(Record{Type: TypeActivity, SessionID: id, ActivityID: fmt.Sprint(i), Kind: "tool", State: "completed", Name: "shell"}))
			}
			e.write(t, id, b.Bytes())
		}, protocol.CodeHistoryLimit, nil},
		{"parts limit reached by chunking", func(id string) {
			// 9,990 small messages plus one message of 11 chunks.
			var b bytes.Buffer
			b.Write(encode(hdr(id)))
			for i := range 9990 {
				b.Write(encode(Record{Type: TypeActivity, SessionID: id, ActivityID: fmt.Sprint(i), Kind: "tool", State: "completed", Name: "shell"}))
			}
			b.Write(encode(Record{Type: TypeCompaction, SessionID: id, Text: strings.Repeat("y", 11*protocol.HistoryChunkBytes)}))
			e.write(t, id, b.Bytes())
		}, protocol.CodeHistoryLimit, nil},
	}
	for i, c := range cases {
		if c.name == "fifo" && !ostest.FIFOs {
			continue // no FIFO can be planted on Windows
		}
		t.Run(c.name, func(t *testing.T) {
			id := fmt.Sprintf("case-%d", i)
			c.setup(id)
			a, info, code := e.store.Open(id, nil)
			if code != c.code {
				t.Fatalf("Open = %q; want %q", code, c.code)
			}
			if code != "" {
				if a != nil {
					t.Fatal("attachment on failure")
				}
				// A failed open releases its leases.
				b, code := e.store.Create(id+"-x", Selection{})
				if code != "" {
					t.Fatalf("create after failed open: %s", code)
				}
				b.Close()
				return
			}
			defer a.Close()
			if !info.Durable || fmt.Sprint(info.Notices) != fmt.Sprint(c.notices) {
				t.Fatalf("info = %+v; want notices %v", info, c.notices)
			}
		})
	}
}

func TestInvalidSessionID(t *testing.T) {
	e := newEnv(t)
	for _, id := range []string{"", "a.b", "../x", strings.Repeat("a", 65), "a b"} {
		if _, _, code := e.store.Open(id, nil); code != protocol.CodeInvalidParams {
			t.Fatalf("Open(%q) = %q", id, code)
		}
		if _, code := e.store.Create(id, Selection{}); code != protocol.CodeInvalidParams {
			t.Fatalf("Create(%q) = %q", id, code)
		}
	}
}

func TestCreateNeverClobbers(t *testing.T) {
	e := newEnv(t)
	e.write(t, "taken", nil)
	if _, code := e.store.Create("taken", Selection{}); code != protocol.CodeSessionInvalid {
		t.Fatalf("Create over an existing file = %q", code)
	}
}

func TestBusyInProcess(t *testing.T) {
	e := newEnv(t)
	e.write(t, "s", encode(e.header("s")))
	second := NewStore(e.dir, e.cwd, fixedNow) // another "process": separate opens
	a, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatal(code)
	}
	if _, _, code := second.Open("s", nil); code != protocol.CodeSessionBusy {
		t.Fatalf("second store: %q", code)
	}
	if _, _, code := e.store.Open("s", nil); code != protocol.CodeSessionBusy {
		t.Fatalf("second attachment in one store: %q", code)
	}
	lazy, code := e.store.Create("lazy", Selection{})
	if code != "" {
		t.Fatal(code)
	}
	if _, _, code := second.Open("lazy", nil); code != protocol.CodeSessionBusy {
		t.Fatalf("lazy session: %q", code)
	}
	a.Close()
	lazy.Close()
	b, _, code := second.Open("s", nil)
	if code != "" {
		t.Fatalf("after release: %q", code)
	}
	b.Close()
}

func TestBusyAcrossProcesses(t *testing.T) {
	e := newEnv(t)
	e.write(t, "s", encode(e.header("s")))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+e.dir+"\n"+e.cwd+"\ns")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "open \"\"\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: %q", line)
	}
	_, _, code := e.store.Open("s", nil)
	stdin.Close() // the child releases and exits
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if code != protocol.CodeSessionBusy {
		t.Fatalf("while the child holds it: %q", code)
	}
	a, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatalf("after the child released: %q", code)
	}
	a.Close()
}

func TestReopenPassesLeases(t *testing.T) {
	e := newEnv(t)
	lazy, code := e.store.Create("s", Selection{Model: "m"})
	if code != "" {
		t.Fatal(code)
	}
	// A failed open of another ID leaves the current attachment intact.
	if _, _, code := e.store.Open("nope", lazy); code != protocol.CodeSessionMissing {
		t.Fatalf("open missing: %q", code)
	}
	if _, code := lazy.Snapshot(); code != "" {
		t.Fatalf("current after failed open: %q", code)
	}
	again, info, code := e.store.Open("s", lazy)
	if code != "" || info.Durable {
		t.Fatalf("reopen lazy: %q %+v", code, info)
	}
	if _, code := lazy.Snapshot(); code != protocol.CodeSessionMissing {
		t.Fatalf("replaced attachment still answers: %q", code)
	}
	lazy.Close() // must not release the passed leases
	if _, _, code := NewStore(e.dir, e.cwd, fixedNow).Open("s", nil); code != protocol.CodeSessionBusy {
		t.Fatalf("leases lost on reopen: %q", code)
	}
	if _, err := again.AppendInput(Record{Type: TypeInput, MessageID: "u", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	rev := again.Revision()
	durable, info, code := e.store.Open("s", again)
	if code != "" || !info.Durable || info.Saved.Model != "m" || durable.Revision() == rev {
		t.Fatalf("reopen durable: %q %+v", code, info)
	}
	if _, code := durable.Page(rev, nil); code != protocol.CodeStaleRevision {
		t.Fatalf("revision of the replaced attachment: %q", code)
	}
	durable.Close()
	c, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatalf("after close: %q", code)
	}
	c.Close()
}

func TestStaleCursors(t *testing.T) {
	e := newEnv(t)
	var recs []Record
	recs = append(recs, e.header("s"))
	for i := range 150 {
		recs = append(recs, turn("s", fmt.Sprint("r", i), "q", "a")...)
	}
	e.write(t, "s", encode(recs...))
	a, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	rev := a.Revision()
	raw, code := a.Page(rev, nil)
	if code != "" {
		t.Fatal(code)
	}
	i := bytes.Index(raw, []byte(`"next_cursor":"`))
	next := string(raw[i+15 : i+15+bytes.IndexByte(raw[i+15:], '"')])
	for _, c := range []string{"p1.1", "garbage", "p999.100", next + "0", strings.Replace(next, ".", ".0", 1)} {
		if _, code := a.Page(rev, &c); code != protocol.CodeStaleRevision {
			t.Fatalf("cursor %q: %q", c, code)
		}
	}
	if _, code := a.Page(rev, &next); code != "" {
		t.Fatalf("issued cursor: %q", code)
	}
	if _, code := a.Page("v1-other", nil); code != protocol.CodeStaleRevision {
		t.Fatalf("other revision: %q", code)
	}
	if _, err := a.Append(Record{Type: TypeInput, MessageID: "u", Text: "x"}, true); err != nil {
		t.Fatal(err)
	}
	if _, code := a.Page(rev, &next); code != protocol.CodeStaleRevision {
		t.Fatalf("cursor after append: %q", code)
	}
	a.Close()
	if _, code := a.Page(a.Revision(), nil); code != protocol.CodeSessionMissing {
		t.Fatalf("after close: %q", code)
	}
}

// TestTruncatedLastLine cuts the file at every byte offset of its last line:
// every open succeeds, and the projection is either complete or honestly
// interrupted. An append afterwards trims the torn line.
func TestTruncatedLastLine(t *testing.T) {
	e := newEnv(t)
	full := encode(append([]Record{e.header("s")}, turn("s", "r1", "q", "reply 😀")...)...)
	start := bytes.LastIndexByte(full[:len(full)-1], '\n') + 1
	mid := (start + len(full)) / 2
	for cut := start; cut <= len(full); cut++ {
		e.write(t, "s", full[:cut])
		a, _, code := e.store.Open("s", nil)
		if code != "" {
			t.Fatalf("cut %d: %q", cut, code)
		}
		entries, complete := allPages(t, a)
		if complete != (cut == len(full)) {
			t.Fatalf("cut %d: complete=%v", cut, complete)
		}
		if !complete && (entries[len(entries)-1].Kind != "diagnostic" || !entries[len(entries)-1].Partial) {
			t.Fatalf("cut %d: no partial diagnostic: %+v", cut, entries)
		}
		if cut == mid || cut == len(full)-1 {
			if _, err := a.Append(Record{Type: TypeRunCompleted, RunID: "r1", Outcome: "completed"}, true); err != nil {
				t.Fatal(err)
			}
			if _, complete := allPages(t, a); !complete {
				t.Fatalf("cut %d: not complete after trimming append", cut)
			}
			got, _ := os.ReadFile(filepath.Join(e.dir, "s.jsonl"))
			if !bytes.Equal(got, full) {
				t.Fatalf("cut %d: trimmed file differs:\n%s", cut, got)
			}
		}
		a.Close()
	}
}

// TestKilledWriter kills a child with SIGKILL while it appends; the next open
// is complete or interrupted, never an error.
func TestKilledWriter(t *testing.T) {
	if os.Getenv(helperEnv+"_APPEND") != "" {
		s := NewStore(os.Getenv("DIR"), os.Getenv("CWD"), fixedNow)
		a, _ := s.Create("k", Selection{})
		for i := 0; ; i++ {
			run := fmt.Sprint("r", i)
			a.AppendInput(Record{Type: TypeInput, RunID: run, MessageID: "u" + run, Text: strings.Repeat("q", 5000)})
			if i == 3 {
				fmt.Println("appending")
			}
			a.Append(Record{Type: TypeAssistant, RunID: run, MessageID: "a", Text: strings.Repeat("a", 50000), HasText: true}, false)
			a.Append(Record{Type: TypeRunCompleted, RunID: run, Outcome: "completed"}, true)
		}
	}
	e := newEnv(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriter$")
	cmd.Env = append(os.Environ(), helperEnv+"_APPEND=1", "DIR="+e.dir, "CWD="+e.cwd)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(stdout).ReadString('\n')
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	a, _, code := e.store.Open("k", nil)
	if code != "" {
		t.Fatalf("open after SIGKILL: %q", code)
	}
	defer a.Close()
	entries, complete := allPages(t, a)
	if len(entries) == 0 || (!complete && entries[len(entries)-1].Kind != "diagnostic") {
		t.Fatalf("dishonest projection: complete=%v last=%+v", complete, entries[len(entries)-1])
	}
}

func TestReplayStartsAtCompaction(t *testing.T) {
	e := newEnv(t)
	id := "s"
	recs := []Record{e.header(id)}
	recs = append(recs, turn(id, "r1", "old", "old reply")...)
	recs = append(recs,
		Record{Type: TypeInput, SessionID: id, RunID: "r2", MessageID: "u2", Text: "new"},
		Record{Type: TypeCompaction, SessionID: id, RunID: "r2", Text: "summary"},
		Record{Type: TypeToolCall, SessionID: id, RunID: "r2", CallID: "c", Name: "shell", Arguments: `{"command":"ls"}`},
		Record{Type: TypeToolResult, SessionID: id, RunID: "r2", CallID: "c", Text: "files"},
		Record{Type: TypeActivity, SessionID: id, RunID: "r2", ActivityID: "c", Kind: "tool", State: "completed"},
		Record{Type: TypeAssistantChunk, SessionID: id, RunID: "r2", MessageID: "a", Text: "do"},
		Record{Type: TypeAssistantChunk, SessionID: id, RunID: "r2", MessageID: "a", Text: "ne"},
		Record{Type: TypeTaskScope, SessionID: id, RunID: "r2", Ceiling: "workspace-write"},
	)
	e.write(t, id, encode(recs...))
	a, _, code := e.store.Open(id, nil)
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	got, code := a.Replay()
	if code != "" {
		t.Fatal(code)
	}
	var kinds []string
	for _, r := range got {
		kinds = append(kinds, r.Type.String()+":"+r.Text)
	}
	want := "compaction:summary tool_call: tool_result:files assistant:done"
	if strings.Join(kinds, " ") != want || !got[3].Partial {
		t.Fatalf("Replay = %q; want %q", kinds, want)
	}
	if s := a.TaskScopes(); len(s) != 1 || s[0] != "workspace-write" {
		t.Fatalf("TaskScopes = %q", s)
	}
}

func TestEmptyFileFirstAppendWritesHeader(t *testing.T) {
	e := newEnv(t)
	path := e.write(t, "s", nil)
	a, info, code := e.store.Open("s", nil)
	if code != "" || !info.Durable || info.HasSaved {
		t.Fatalf("Open = %q %+v", code, info)
	}
	defer a.Close()
	if !a.SetSelection(Selection{Provider: "fixture", Model: "m2"}) {
		t.Fatal("SetSelection refused before the header")
	}
	if _, err := a.AppendInput(Record{Type: TypeInput, RunID: "r", MessageID: "u", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if a.SetSelection(Selection{}) {
		t.Fatal("SetSelection accepted after the header")
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var h Record
	if len(lines) != 2 || parseLine([]byte(lines[0]), &h) != nil || h.Type != TypeHeader || h.Model != "m2" || h.Cwd != e.store.cwd {
		t.Fatalf("file after first append:\n%s", data)
	}
}

// Revisions and cursors belong to the store (the child) that issued them:
// another store that opens the same unchanged session, in the same order of
// work, issues other ones and answers stale_revision to the first one's.
func TestRevisionsAndCursorsScopedToStore(t *testing.T) {
	e := newEnv(t)
	var recs []Record
	recs = append(recs, e.header("s"))
	for i := range 150 {
		recs = append(recs, turn("s", fmt.Sprint("r", i), "q", "a")...)
	}
	e.write(t, "s", encode(recs...))
	firstPage := func(s *Store) (*Attachment, string, string) {
		t.Helper()
		a, _, code := s.Open("s", nil)
		if code != "" {
			t.Fatal(code)
		}
		raw, code := a.Page(a.Revision(), nil)
		if code != "" {
			t.Fatal(code)
		}
		i := bytes.Index(raw, []byte(`"next_cursor":"`))
		return a, a.Revision(), string(raw[i+15 : i+15+bytes.IndexByte(raw[i+15:], '"')])
	}
	a, revA, curA := firstPage(e.store)
	a.Close()
	b, revB, curB := firstPage(NewStore(e.dir, e.cwd, fixedNow))
	defer b.Close()
	if revA == revB || curA == curB {
		t.Fatalf("two stores issued revision %q / %q and cursor %q / %q; want different ones", revA, revB, curA, curB)
	}
	if _, code := b.Page(revA, nil); code != protocol.CodeStaleRevision {
		t.Fatalf("the other store's revision: %q; want stale_revision", code)
	}
	if _, code := b.Page(revB, &curA); code != protocol.CodeStaleRevision {
		t.Fatalf("the other store's cursor: %q; want stale_revision", code)
	}
	if _, code := b.Page(revB, &curB); code != "" {
		t.Fatalf("its own cursor: %q", code)
	}
}
