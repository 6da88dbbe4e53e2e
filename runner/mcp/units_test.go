package mcp

import (
	"bytes"
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestSanitizePart(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"echo", "echo"},
		{"read-file", "read-file"},
		{"a__b", "a_b"},
		{"__a__", "a"},
		{"odd.name/with spaces", "odd_name_with_spaces"},
		{"héllo", "h_llo"},
		{"", "x"},
		{"...", "x"},
	} {
		if got := sanitizePart(tc.in); got != tc.want {
			t.Errorf("sanitizePart(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestFullToolName(t *testing.T) {
	long := strings.Repeat("t", 100)
	for _, tc := range []struct{ server, tool, want string }{
		{"fs", "read", "mcp__fs__read"},
		{"my.server", "a__b", "mcp__my_server__a_b"},
		{"s", long, ""}, // checked below
	} {
		got := fullToolName(tc.server, tc.tool)
		if tc.want != "" && got != tc.want {
			t.Errorf("fullToolName(%q, %q) = %q; want %q", tc.server, tc.tool, got, tc.want)
		}
		if len(got) > MaxToolNameBytes || !strings.HasPrefix(got, "mcp__") {
			t.Errorf("fullToolName(%q, %q) = %q: over %d bytes or no prefix", tc.server, tc.tool, got, MaxToolNameBytes)
		}
		for _, c := range got {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
				t.Errorf("fullToolName(%q, %q) = %q has %q", tc.server, tc.tool, got, c)
			}
		}
	}
	if a, b := fullToolName("s", long+"1"), fullToolName("s", long+"2"); a == b {
		t.Errorf("distinct long names collide: %q", a)
	}
}

func TestUniqueName(t *testing.T) {
	taken := map[string]bool{}
	long := strings.Repeat("n", MaxToolNameBytes)
	for _, tc := range []struct{ in, want string }{
		{"mcp__s__a", "mcp__s__a"},
		{"mcp__s__a", "mcp__s__a_2"},
		{"mcp__s__a", "mcp__s__a_3"},
		{long, long},
		{long, long[:MaxToolNameBytes-2] + "_2"},
	} {
		if got := uniqueName(tc.in, taken); got != tc.want {
			t.Errorf("uniqueName(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestBound(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"fits", "hello", 5, "hello"},
		{"no bound", "hello", 0, "hello"},
		{"cut with note", strings.Repeat("a", 100), 50, strings.Repeat("a", 14) + "\n[truncated: 14 of 100 bytes shown]"},
		{"tiny bound", "hello world", 4, "hell"},
		{"utf-8 boundary", "ééé", 3, "é"},
	} {
		got := bound(tc.in, tc.max)
		if got != tc.want || (tc.max > 0 && len(got) > tc.max) || !utf8.ValidString(got) {
			t.Errorf("%s: bound(%q, %d) = %q; want %q", tc.name, tc.in, tc.max, got, tc.want)
		}
	}
}

func TestMinimalEnv(t *testing.T) {
	parent := map[string]string{"PATH": "/bin", "HOME": "/home/u", "OPENAI_API_KEY": "sk-x", "TERM": ""}
	getenv := func(k string) string { return parent[k] }
	for _, tc := range []struct {
		name    string
		own     map[string]string
		want    []string
		wantErr bool
	}{
		{"inherited only", nil, []string{"HOME=/home/u", "PATH=/bin"}, false},
		{"own adds and overrides", map[string]string{"PATH": "/opt", "A": "1"}, []string{"A=1", "HOME=/home/u", "PATH=/opt"}, false},
		{"bad key", map[string]string{"A=B": "1"}, nil, true},
		{"empty key", map[string]string{"": "1"}, nil, true},
	} {
		got, err := minimalEnv(getenv, tc.own)
		if (err != nil) != tc.wantErr || strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: minimalEnv = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestTail(t *testing.T) {
	for _, tc := range []struct {
		name        string
		writes      []string
		want        string
		wantDropped int64
	}{
		{"under", []string{"ab", "cd"}, "abcd", 0},
		{"drops oldest", []string{"abc", "def"}, "cdef", 2},
		{"one big write", []string{"x", "123456"}, "3456", 3},
	} {
		tl := newTail(4)
		for _, w := range tc.writes {
			if n, err := tl.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		kept, dropped := tl.Bytes()
		if string(kept) != tc.want || dropped != tc.wantDropped {
			t.Errorf("%s: tail = %q, %d dropped; want %q, %d", tc.name, kept, dropped, tc.want, tc.wantDropped)
		}
	}
}

func TestRenderResult(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"texts", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("a"), mcp.NewTextContent("b")}}, "a\nb"},
		{"image", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent("AAAA", "image/png")}}, "[image image/png, 4 base64 bytes]"},
		{"text resource", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///a", Text: "body"})}}, "body"},
		{"structured only", &mcp.CallToolResult{StructuredContent: map[string]int{"n": 1}}, `{"n":1}`},
	} {
		if got := renderResult(tc.res); got != tc.want {
			t.Errorf("%s: renderResult = %q; want %q", tc.name, got, tc.want)
		}
	}
}

// TestReadLoopBound feeds readLoop lines around the bound through a real pipe.
func TestReadLoopBound(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lineLen int
		wantErr error
	}{
		{"at bound", 100, ErrServerExited}, // routed, then EOF
		{"over bound", 101, ErrMessageTooLarge},
		{"far over, longer than the read buffer", 200 << 10, ErrMessageTooLarge},
	} {
		r, w, err := pipe()
		if err != nil {
			t.Fatal(err)
		}
		tr := &stdioTransport{stdout: r, maxMsg: 100, failed: make(chan struct{}), pending: map[string]chan *transportResponse{}}
		go func() {
			w.Write(append(bytes.Repeat([]byte("x"), tc.lineLen), '\n'))
			w.Close()
		}()
		tr.readLoop()
		if err := tr.err(); !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: readLoop ended with %v; want %v", tc.name, err, tc.wantErr)
		}
		w.Close()
	}
}

type transportResponse = rpcResponse

func pipe() (*os.File, *os.File, error) { return os.Pipe() }

// TestWriteLineWaitHonoursCtx: a writer waiting for its turn behind a line
// the server does not read returns when its own ctx ends.
func TestWriteLineWaitHonoursCtx(t *testing.T) {
	r, w, err := pipe() // nobody reads r: a server that stopped reading
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	tr := &stdioTransport{stdin: w, failed: make(chan struct{}), writing: make(chan struct{}, 1)}
	holderCtx, cancelHolder := context.WithCancel(context.Background())
	held := make(chan error, 1)
	go func() { held <- tr.writeLine(holderCtx, bytes.Repeat([]byte("x"), 1<<20)) }()
	for len(tr.writing) == 0 { // the holder takes its turn; its write then blocks
		runtime.Gosched()
	}
	waiterCtx, cancelWaiter := context.WithCancel(context.Background())
	cancelWaiter()
	if err := tr.writeLine(waiterCtx, []byte("{}\n")); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting writeLine = %v; want context.Canceled", err)
	}
	cancelHolder()
	if err := <-held; !errors.Is(err, context.Canceled) {
		t.Errorf("blocked writeLine = %v; want context.Canceled", err)
	}
	if err := tr.err(); !errors.Is(err, ErrServerBroken) {
		t.Errorf("after a cut line err() = %v; want ErrServerBroken", err)
	}
}
