package codemode

import (
	"strings"
	"testing"

	"github.com/dop251/goja"

	"github.com/magi-code/magi-code/runner/tools"
)

// encodeJS encodes the value of the JavaScript expression src with e.
func encodeJS(t *testing.T, e *encoder, src string) {
	t.Helper()
	v, err := goja.New().RunString("(" + src + ")")
	if err != nil {
		t.Fatal(err)
	}
	e.value(v, 0)
}

// Strict encoding (tool arguments) accepts every bound exactly and refuses
// one past it: a string's UTF-16 length and its bytes, an array's and an
// object's entries, a key's bytes, and the total.
func TestStrictEncodingAtTheBounds(t *testing.T) {
	strict := func() *encoder { return &encoder{limit: 64, strict: true, maxStr: 4, maxArr: 3} }
	for _, tc := range []struct {
		src, want, err string
	}{
		{`"abcd"`, `"abcd"`, ""},
		{`"abcde"`, "", "string too long (limit 4 bytes)"},
		{`"éé"`, `"éé"`, ""},                             // 2 units, 4 bytes
		{`"éée"`, "", "string too long (limit 4 bytes)"}, // 3 units, 5 bytes
		{`[1,2,3]`, `[1,2,3]`, ""},
		{`[1,2,3,4]`, "", "array too long (limit 3 entries)"},
		{`{a:1,b:2,c:3}`, `{"a":1,"b":2,"c":3}`, ""},
		{`{a:1,b:2,c:3,d:4}`, "", "object has too many keys (limit 3)"},
		{`{abcd:1}`, `{"abcd":1}`, ""},
		{`{abcde:1}`, "", "key too long"},
	} {
		e := strict()
		encodeJS(t, e, tc.src)
		if string(e.buf) != tc.want && tc.err == "" || e.err != tc.err {
			t.Errorf("strict %s = %s, %q; want %s, %q", tc.src, e.buf, e.err, tc.want, tc.err)
		}
	}
	// The total: exactly the limit passes, one byte more fails, whichever
	// element takes it past (a raw number, a quoted string, a key).
	for _, tc := range []struct {
		src   string
		limit int
	}{
		{`[1234]`, 6}, {`["ab"]`, 6}, {`{"ab":1}`, 8},
	} {
		e := &encoder{limit: tc.limit, strict: true, maxStr: 100, maxArr: 100}
		encodeJS(t, e, tc.src)
		if e.err != "" || len(e.buf) != tc.limit {
			t.Errorf("strict %s in exactly %d bytes = %s, %q; want it whole", tc.src, tc.limit, e.buf, e.err)
		}
		e = &encoder{limit: tc.limit - 1, strict: true, maxStr: 100, maxArr: 100}
		encodeJS(t, e, tc.src)
		if !strings.HasPrefix(e.err, "arguments too large") {
			t.Errorf("strict %s in %d bytes = %s, %q; want arguments too large", tc.src, tc.limit-1, e.buf, e.err)
		}
	}
}

// Output encoding: a top-level string or a value of exactly the limit is
// whole and not marked full; one byte more is cut at the limit and marked.
func TestOutputEncodingAtTheLimit(t *testing.T) {
	for _, tc := range []struct{ src, whole string }{
		{`"abcdef"`, "abcdef"},
		{`["abc"]`, `["abc"]`},
		{`{"k":"v"}`, `{"k":"v"}`},
	} {
		e := &encoder{limit: len(tc.whole)}
		encodeJS(t, e, tc.src)
		if string(e.buf) != tc.whole || e.full {
			t.Errorf("output %s in %d bytes = %q, full %v; want it whole, not full", tc.src, len(tc.whole), e.buf, e.full)
		}
		e = &encoder{limit: len(tc.whole) - 1}
		encodeJS(t, e, tc.src)
		if string(e.buf) != tc.whole[:len(tc.whole)-1] || !e.full {
			t.Errorf("output %s in %d bytes = %q, full %v; want it cut there and full", tc.src, len(tc.whole)-1, e.buf, e.full)
		}
	}
}

// appendCut keeps s whole when it fits exactly, cuts at a rune start, and
// appends nothing for no room or a text of continuation bytes.
func TestAppendCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		room int
		want string
	}{
		{"abc", 3, "abc"},
		{"abc", 2, "ab"},
		{"aé", 2, "a"},
		{"abc", 0, ""},
		{"\x80\x80\x80", 2, ""},
	} {
		if got := string(appendCut(nil, tc.s, tc.room)); got != tc.want {
			t.Errorf("appendCut(%q, %d) = %q; want %q", tc.s, tc.room, got, tc.want)
		}
	}
	if got := clipString("abcdef", 6); got != "abcdef" {
		t.Errorf("clipString(6 bytes, 6) = %q; want it whole", got)
	}
}

// The output's lines fill its room exactly without being marked truncated;
// one byte more is cut and marked.
func TestOutputRoomExactly(t *testing.T) {
	for _, n := range []int{10, 11} {
		o := &output{limit: len(tools.TruncatedMarker) + 10}
		o.line(strings.Repeat("x", n))
		if n == 10 && (o.truncated || len(o.buf) != 10) {
			t.Errorf("a line of exactly the room: %d bytes, truncated %v; want it whole", len(o.buf), o.truncated)
		}
		if n == 11 && (!o.truncated || len(o.buf) != 10) {
			t.Errorf("a line one byte over the room: %d bytes, truncated %v; want 10 and truncated", len(o.buf), o.truncated)
		}
	}
}

// Output after earlier lines (the encoder starts with them in its buffer):
// a long top-level text is cut to the room that is left, never past the
// limit.
func TestOutputEncodingAfterEarlierLines(t *testing.T) {
	e := &encoder{buf: []byte("ab"), limit: 7}
	encodeJS(t, e, `new Error("abcdefgh")`)
	if string(e.buf) != "abError" || !e.full {
		t.Errorf("an Error after 2 bytes in 7 = %q, full %v; want \"abError\", full", e.buf, e.full)
	}
}

// A long line after an earlier one (an uncaught error's line after the
// program's output) is cut to the room that is left: the output with its
// marker never passes the limit.
func TestOutputLineAfterEarlierLineCutToWhatIsLeft(t *testing.T) {
	o := &output{limit: len(tools.TruncatedMarker) + 10}
	o.line("abc")
	o.line(strings.Repeat("y", 20))
	want := "abc\n" + strings.Repeat("y", 6) + tools.TruncatedMarker
	if got := o.text(); got != want || !o.truncated {
		t.Errorf("a 20-byte line after 4 bytes in a room of 10 = %q (%d bytes, limit %d), truncated %v; want %q, truncated",
			got, len(got), o.limit, o.truncated, want)
	}
}
