package framing

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/magi-code/magi-code/protocol"
)

// item is one result of Reader.Next, for comparing whole transcripts.
type item struct {
	line string
	code protocol.Code
}

func (it item) String() string {
	if it.code != "" {
		return string(it.code)
	}
	if len(it.line) > 40 {
		return "line(" + it.line[:20] + "...)" + "[" + itoa(len(it.line)) + "]"
	}
	return "line(" + it.line + ")"
}

func itoa(n int) string {
	var b []byte
	if n == 0 {
		return "0"
	}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// readAll drains a Reader, returning every line or code and the final error.
func readAll(t *testing.T, r *Reader) ([]item, error) {
	t.Helper()
	var items []item
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("Reader does not end")
		}
		line, code, err := r.Next()
		if err != nil {
			if line != nil || code != "" {
				t.Fatalf("Next returned line %q code %q with error %v", line, code, err)
			}
			return items, err
		}
		if code != "" && line != nil {
			t.Fatalf("Next returned both line %q and code %q", line, code)
		}
		if code == "" && len(line) == 0 {
			t.Fatal("Next returned an empty line without a code")
		}
		if len(line) > protocol.MaxInputFrameBytes {
			t.Fatalf("line of %d bytes", len(line))
		}
		items = append(items, item{string(line), code})
		if code == protocol.CodeFrameTooLarge {
			// Finished: later calls repeat the code and never read.
			for range 3 {
				line, code, err := r.Next()
				if line != nil || code != protocol.CodeFrameTooLarge || err != nil {
					t.Fatalf("after frame_too_large: Next = %q, %q, %v", line, code, err)
				}
			}
			return items, nil
		}
	}
}

var (
	atLimit   = strings.Repeat("a", protocol.MaxInputFrameBytes)
	atLimitCR = strings.Repeat("a", protocol.MaxInputFrameBytes-1) + "\r"
	overMax   = strings.Repeat("a", protocol.MaxInputFrameBytes+1)
)

type framingCase struct {
	name    string
	in      string
	want    []item
	wantErr error // io.EOF unless the input ends with frame_too_large (nil)
}

var framingCases = []framingCase{
	{"empty input", "", nil, io.EOF},
	{"one line", "{}\n", []item{{line: "{}"}}, io.EOF},
	{"two lines", "a\nbc\n", []item{{line: "a"}, {line: "bc"}}, io.EOF},
	{"empty line", "\n", []item{{code: protocol.CodeInvalidFrame}}, io.EOF},
	{"empty lines between", "a\n\n\nb\n", []item{{line: "a"}, {code: protocol.CodeInvalidFrame}, {code: protocol.CodeInvalidFrame}, {line: "b"}}, io.EOF},
	{"CRLF keeps CR", "a\r\n", []item{{line: "a\r"}}, io.EOF},
	{"lone CRLF is a line", "\r\n", []item{{line: "\r"}}, io.EOF},
	{"CR alone is not an end", "a\rb\n", []item{{line: "a\rb"}}, io.EOF},
	{"EOF without LF", "abc", []item{{code: protocol.CodeIncompleteFrame}}, io.EOF},
	{"EOF without LF after line", "a\nbc", []item{{line: "a"}, {code: protocol.CodeIncompleteFrame}}, io.EOF},
	{"EOF after CR", "a\r", []item{{code: protocol.CodeIncompleteFrame}}, io.EOF},
	{"65,536 bytes accepted", atLimit + "\n", []item{{line: atLimit}}, io.EOF},
	{"65,536 bytes with CR accepted", atLimitCR + "\n", []item{{line: atLimitCR}}, io.EOF},
	{"65,536 bytes then line", atLimit + "\nx\n", []item{{line: atLimit}, {line: "x"}}, io.EOF},
	{"65,537 bytes refused", overMax + "\n", []item{{code: protocol.CodeFrameTooLarge}}, nil},
	{"CR counts toward the limit", atLimit + "\r\n", []item{{code: protocol.CodeFrameTooLarge}}, nil},
	{"65,537 bytes refused without LF", overMax, []item{{code: protocol.CodeFrameTooLarge}}, nil},
	{"65,536 bytes at EOF incomplete", atLimit, []item{{code: protocol.CodeIncompleteFrame}}, io.EOF},
	{"oversize after a line", "a\n" + overMax + "\nb\n", []item{{line: "a"}, {code: protocol.CodeFrameTooLarge}}, nil},
}

func TestReader(t *testing.T) {
	wrappers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"plain", func(r io.Reader) io.Reader { return r }},
		{"OneByteReader", iotest.OneByteReader},
		{"HalfReader", iotest.HalfReader},
		{"DataErrReader", iotest.DataErrReader},
	}
	for _, c := range framingCases {
		for _, w := range wrappers {
			t.Run(c.name+"/"+w.name, func(t *testing.T) {
				got, err := readAll(t, NewReader(w.wrap(strings.NewReader(c.in))))
				if !equalItems(got, c.want) || err != c.wantErr {
					t.Fatalf("Next over %d bytes = %v, %v; want %v, %v", len(c.in), got, err, c.want, c.wantErr)
				}
			})
		}
	}
}

func equalItems(a, b []item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSplitEveryOffset splits one input at every offset into two Feed calls
// (and a second time into three) and checks the result never depends on
// where reads end.
func TestSplitEveryOffset(t *testing.T) {
	in := "{\"a\":1}\n\r\n\nxy\r\nlast"
	want := []item{{line: "{\"a\":1}"}, {line: "\r"}, {code: protocol.CodeInvalidFrame}, {line: "xy\r"}, {code: protocol.CodeIncompleteFrame}}
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			got := splitAll(t, []string{in[:i], in[i:j], in[j:]})
			if !equalItems(got, want) {
				t.Fatalf("Split(%q | %q | %q) = %v; want %v", in[:i], in[i:j], in[j:], got, want)
			}
		}
	}
}

// TestSplitLimitEveryOffset does the same around the 65,536-byte limit.
func TestSplitLimitEveryOffset(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []item
	}{
		{atLimit + "\nb\n", []item{{line: atLimit}, {line: "b"}}},
		{overMax + "\nb\n", []item{{code: protocol.CodeFrameTooLarge}}},
	} {
		for i := 0; i <= len(c.in); i += 997 {
			for _, cut := range []int{i, len(c.in) - 4 + i%5} {
				cut = min(cut, len(c.in))
				got := splitAll(t, []string{c.in[:cut], c.in[cut:]})
				if !equalItems(got, c.want) {
					t.Fatalf("Split cut at %d of %d = %v; want %v", cut, len(c.in), got, c.want)
				}
			}
		}
	}
}

// splitAll feeds parts to a Splitter and collects what it finds, ending with End.
func splitAll(t *testing.T, parts []string) []item {
	t.Helper()
	var s Splitter
	var items []item
	for _, part := range parts {
		p := []byte(part)
		for len(p) > 0 {
			n, line, code, found := s.Split(p)
			if n < 0 || n > len(p) {
				t.Fatalf("Split consumed %d of %d bytes", n, len(p))
			}
			p = p[n:]
			if !found {
				if len(p) != 0 {
					t.Fatalf("Split left %d bytes without a frame", len(p))
				}
				continue
			}
			items = append(items, item{string(line), code})
			if code == protocol.CodeFrameTooLarge {
				return items
			}
		}
	}
	if code := s.End(); code != "" {
		items = append(items, item{code: code})
	}
	return items
}

// countingReader counts Read calls and the largest buffer it was offered.
type countingReader struct {
	r      io.Reader
	reads  int
	maxBuf int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	c.maxBuf = max(c.maxBuf, len(p))
	return c.r.Read(p)
}

func TestReaderBatchAndNoDraining(t *testing.T) {
	// After frame_too_large the Reader must not read the rest: a huge tail
	// stays unread.
	tail := strings.Repeat("b", 10<<20)
	src := &countingReader{r: strings.NewReader(overMax + tail)}
	r := NewReader(src)
	got, err := readAll(t, r)
	if err != nil || !equalItems(got, []item{{code: protocol.CodeFrameTooLarge}}) {
		t.Fatalf("Next = %v, %v; want frame_too_large", got, err)
	}
	if src.maxBuf > protocol.ReadBatchBytes {
		t.Fatalf("read batch of %d bytes; want at most %d", src.maxBuf, protocol.ReadBatchBytes)
	}
	if limit := protocol.MaxInputFrameBytes/protocol.ReadBatchBytes + 1; src.reads > limit {
		t.Fatalf("%d reads; want at most %d (no draining after oversize)", src.reads, limit)
	}
}

func TestReaderErrors(t *testing.T) {
	errBoom := errors.New("boom")
	cases := []struct {
		name string
		r    io.Reader
		want []item
	}{
		{"ErrReader", iotest.ErrReader(errBoom), nil},
		{"data then error", io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(errBoom)), []item{{line: "a"}}},
		{"timeout after data", iotest.TimeoutReader(strings.NewReader("a\nb\n")), []item{{line: "a"}, {line: "b"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(c.r)
			got, err := readAll(t, r)
			if !equalItems(got, c.want) || err == nil || err == io.EOF {
				t.Fatalf("Next = %v, %v; want %v and a read error", got, err, c.want)
			}
			if _, _, err2 := r.Next(); err2 != err {
				t.Fatalf("error not sticky: %v then %v", err, err2)
			}
		})
	}
}

// zeroReader returns (0, nil) forever.
type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestReaderNoProgress(t *testing.T) {
	if _, _, err := NewReader(zeroReader{}).Next(); err != io.ErrNoProgress {
		t.Fatalf("Next = %v; want io.ErrNoProgress", err)
	}
}

func TestReaderEOFIsSticky(t *testing.T) {
	r := NewReader(strings.NewReader("x"))
	if _, code, err := r.Next(); code != protocol.CodeIncompleteFrame || err != nil {
		t.Fatalf("Next = %q, %v; want incomplete_frame", code, err)
	}
	for range 3 {
		if line, code, err := r.Next(); line != nil || code != "" || err != io.EOF {
			t.Fatalf("Next = %q, %q, %v; want io.EOF", line, code, err)
		}
	}
}

func FuzzSplitter(f *testing.F) {
	for _, c := range framingCases {
		if len(c.in) < 1000 {
			f.Add([]byte(c.in), uint16(1))
			f.Add([]byte(c.in), uint16(3))
		}
	}
	f.Add([]byte("a\r\n\r\n\n\nb"), uint16(2))
	f.Fuzz(func(t *testing.T, in []byte, step uint16) {
		// Grow the input past the limit sometimes: the fuzzer rarely
		// writes 64 KiB on its own.
		if len(in) > 0 && in[0] == 'L' {
			in = append(bytes.Repeat([]byte{'x'}, protocol.MaxInputFrameBytes-8), in...)
		}
		size := int(step)%97 + 1
		var s Splitter
		var joined []byte
		sawError := false
		for p := in; len(p) > 0 && !sawError; {
			chunk := p[:min(size, len(p))]
			n, line, code, found := s.Split(chunk)
			if n <= 0 && !found || n > len(chunk) {
				t.Fatalf("Split consumed %d of %d", n, len(chunk))
			}
			p = p[n:]
			if !found {
				continue
			}
			if len(line) > protocol.MaxInputFrameBytes {
				t.Fatalf("line of %d bytes", len(line))
			}
			if bytes.IndexByte(line, '\n') >= 0 {
				t.Fatal("line holds an LF")
			}
			switch code {
			case "":
				if len(line) == 0 {
					t.Fatal("empty line without invalid_frame")
				}
				joined = append(append(joined, line...), '\n')
			case protocol.CodeInvalidFrame:
				joined = append(joined, '\n')
			case protocol.CodeFrameTooLarge:
				sawError = true
			default:
				t.Fatalf("unexpected code %q", code)
			}
		}
		if sawError {
			return
		}
		switch end := s.End(); end {
		case "":
			if !bytes.Equal(joined, in) {
				t.Fatalf("lines do not rejoin the input")
			}
		case protocol.CodeIncompleteFrame:
			if !bytes.HasPrefix(in, joined) || bytes.IndexByte(in[len(joined):], '\n') >= 0 {
				t.Fatal("incomplete frame is not the tail after the last LF")
			}
		default:
			t.Fatalf("End = %q", end)
		}
	})
}

// BenchmarkReader frames typical request lines; one op is one frame.
func BenchmarkReader(b *testing.B) {
	for _, size := range []int{100, 4000, 60000} {
		line := append(bytes.Repeat([]byte{'x'}, size-1), '\n')
		in := bytes.Repeat(line, max(1, (1<<20)/size))
		frames := bytes.Count(in, []byte{'\n'})
		b.Run(itoa(size)+"B", func(b *testing.B) {
			src := bytes.NewReader(in)
			r := NewReader(src)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if n == frames {
					src.Reset(in)
					*r = Reader{r: src, split: Splitter{partial: r.split.partial[:0]}}
					n = 0
				}
				if _, _, err := r.Next(); err != nil {
					b.Fatal(err)
				}
				n++
			}
		})
	}
}

// TestMaxBound: a Splitter with its own bound (the ACP front door's)
// accepts a frame of exactly Max bytes, longer than the protocol's 64 KiB,
// split over reads, and refuses the byte after; the zero Max is the
// protocol's bound.
func TestMaxBound(t *testing.T) {
	for _, max := range []int{100, protocol.MaxInputFrameBytes + 5000} {
		ok := strings.Repeat("a", max)
		r := NewReaderMax(strings.NewReader(ok+"\n"+ok+"b\n"), max)
		line, code, err := r.Next()
		if err != nil || code != "" || string(line) != ok {
			t.Fatalf("max %d: frame of max bytes: %d bytes, %q, %v", max, len(line), code, err)
		}
		if _, code, err = r.Next(); err != nil || code != protocol.CodeFrameTooLarge {
			t.Fatalf("max %d: frame of max+1 bytes: %q, %v", max, code, err)
		}
	}
	var s Splitter
	over := []byte(strings.Repeat("a", protocol.MaxInputFrameBytes+1))
	if _, _, code, found := s.Split(over); !found || code != protocol.CodeFrameTooLarge {
		t.Errorf("zero Max: %d bytes: %q, %v", len(over), code, found)
	}
}

// TestSkipOverlong: a skipping Reader reports an over-long line once, with
// its first Max bytes, discards the rest up to its LF and frames the next
// lines as usual, whatever the read sizes; EOF inside the skipped line
// reports nothing more. A line of exactly Max bytes is a line.
func TestSkipOverlong(t *testing.T) {
	const max = 50
	head := `{"id":7,"method":"m","params":"` + strings.Repeat("x", max)
	input := head + strings.Repeat("y", 3*max) + "\n" + "ok1\n" + strings.Repeat("z", max) + "\n" + head + "\n\n" + "ok2\n" + head + "tail-at-eof"
	for _, size := range []int{1, 2, 3, 7, 49, 50, 51, 101, len(input)} {
		r := NewReaderSkipping(&sizedReader{s: input, n: size}, max)
		var got []string
		for {
			line, code, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("size %d: %v", size, err)
			}
			got = append(got, string(code)+":"+string(line))
		}
		want := []string{"frame_too_large:" + head[:max], ":ok1", ":" + strings.Repeat("z", max),
			"frame_too_large:" + head[:max], "invalid_frame:", ":ok2", "frame_too_large:" + head[:max]}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("size %d:\n got %q\nwant %q", size, got, want)
		}
	}
}

// sizedReader reads s in reads of at most n bytes.
type sizedReader struct {
	s string
	n int
}

func (r *sizedReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.s)
	r.s = r.s[k:]
	return k, nil
}
