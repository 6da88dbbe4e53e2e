package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// Lines that Parse accepts, between them using every kind of JSON value,
// escapes, whitespace and nesting.
var acceptedLines = []string{
	good,
	with("params", `"params":{"a":[1,-0.5e+10,2E-3,0,true,false,null,"x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"],"b":{},"c":[],"d":[[{}]]}`),
	" \t" + strings.ReplaceAll(with("params", `"params" : { "a" : [ 1 , 2 ] , "b" : "c" }`), ",", " ,\r\n ") + " \r",
	with("id", `"id":"r\u0031"`),
}

// TestParseTruncatedLines: no strict prefix of a valid request is executed
// (docs/protocol.md, Frames: partial frames are not usable messages; invalid
// JSON is invalid_request), whitespace-padded or not, and none makes Parse
// panic.
func TestParseTruncatedLines(t *testing.T) {
	for _, line := range acceptedLines {
		if _, code := Parse([]byte(line)); code != "" {
			t.Fatalf("Parse(%q) = %v; want it accepted", line, code)
		}
		// Every prefix that stops before the closing brace.
		for n := range strings.LastIndexByte(line, '}') + 1 {
			for _, pad := range []string{"", " ", "\r"} {
				in := line[:n] + pad
				_, code := Parse(exact(in))
				want := protocol.CodeInvalidRequest
				if onlySpace([]byte(in)) {
					want = protocol.CodeInvalidFrame
				}
				if code != want {
					t.Fatalf("Parse(%q) = %v; want %v", in, code, want)
				}
			}
		}
	}
}

// exact returns s as a slice whose capacity is its length, so that reading
// past the end panics instead of reading spare capacity.
func exact(s string) []byte {
	b := make([]byte, len(s))
	copy(b, s)
	return b
}

// TestParamsReadersTruncatedValues: the params readers refuse every strict
// prefix of a value they accept, and never panic on one (they are "safe on
// any other input").
func TestParamsReadersTruncatedValues(t *testing.T) {
	for _, c := range []struct {
		name  string
		value string
		read  func([]byte) bool
	}{
		{"String", `"a\u00e9\"b"`, func(b []byte) bool { _, ok := String(b); return ok }},
		{"Strings", `["a" , "b\n", "c"]`, func(b []byte) bool { _, ok := Strings(b, 16); return ok }},
		{"Members", `{"a" : 1 , "b\u0063" : [true, {"x":null}], "d":"e", "f":-0.25e+10, "g":[12.5E-3,1e7,false]}`, func(b []byte) bool {
			return Members(b, func(string, []byte) bool { return true })
		}},
	} {
		if !c.read([]byte(c.value)) {
			t.Fatalf("%s(%q) refused; want it accepted", c.name, c.value)
		}
		for n := range len(c.value) {
			for _, pad := range []string{"", " "} {
				in := c.value[:n] + pad
				if c.read(exact(in)) {
					t.Fatalf("%s(%q) accepted a truncated value", c.name, in)
				}
			}
		}
	}
}

// TestParseEscapedMemberNames: a member name is compared after decoding
// escapes, however long its escaped spelling: "protocol" written as eight
// \u escapes (48 bytes) is the protocol member, and one byte more is
// unknown.
func TestParseEscapedMemberNames(t *testing.T) {
	escaped := func(s string) string {
		var b strings.Builder
		for _, c := range []byte(s) {
			fmt.Fprintf(&b, `\u%04x`, c)
		}
		return b.String()
	}
	for _, c := range []struct {
		name string
		line string
		code protocol.Code
	}{
		{"protocol fully escaped", with("protocol", `"`+escaped("protocol")+`":"magi-code.local-agent"`), ""},
		{"params fully escaped", with("params", `"`+escaped("params")+`":{}`), ""},
		{"protocol escaped plus one byte", with("protocol", `"`+escaped("protocol")+`x":"magi-code.local-agent"`), protocol.CodeInvalidRequest},
		{"unknown escaped key of 48 bytes", env(protocolMember, versionMember, idMember, methodMember, paramsMember, `"`+escaped("protocoL")+`":1`), protocol.CodeInvalidRequest},
	} {
		req, code := Parse([]byte(c.line))
		if code != c.code {
			t.Errorf("%s: Parse(%q) = %v; want %v", c.name, c.line, code, c.code)
			continue
		}
		if code == "" && (req.ID != "r1" || req.Method != "status") {
			t.Errorf("%s: Parse(%q) = %+v", c.name, c.line, req)
		}
	}
}

// TestParseFrameSizeBound: a line of exactly 65,536 bytes (the input frame
// bound, LF excluded) is parsed; one byte more is frame_too_large.
func TestParseFrameSizeBound(t *testing.T) {
	line := good + strings.Repeat(" ", protocol.MaxInputFrameBytes-len(good))
	if req, code := Parse([]byte(line)); code != "" || req.ID != "r1" {
		t.Fatalf("Parse(%d-byte line) = %+v, %v; want it accepted", len(line), req, code)
	}
	if _, code := Parse([]byte(line + " ")); code != protocol.CodeFrameTooLarge {
		t.Fatalf("Parse(%d-byte line) = %v; want %v", len(line)+1, code, protocol.CodeFrameTooLarge)
	}
}

// TestParseDepthCountsOpenContainers: depth is how many containers are open
// at once, outside strings (docs/protocol.md, Bounds: JSON nesting 32
// containers), whatever comes before: closed siblings do not add up, and a
// string that ends in an escaped backslash or is empty ends where JSON says.
func TestParseDepthCountsOpenContainers(t *testing.T) {
	deep := nested(32) // with the envelope, 33 containers
	siblings := "[" + strings.Repeat("[],{},", 40) + "[]]"
	for _, c := range []struct {
		name   string
		params string
		code   protocol.Code
	}{
		{"40 closed siblings", siblings, ""},
		{"closed siblings then depth 32", "[" + strings.Repeat("[],", 40) + nested(30) + "]", ""},
		{"depth 33 after an empty string", `["",` + deep + `]`, protocol.CodeInvalidFrame},
		{"depth 33 after an escaped backslash", `["\\",` + deep + `]`, protocol.CodeInvalidFrame},
		{"depth 33 after an escaped quote", `["\"",` + deep + `]`, protocol.CodeInvalidFrame},
		{"depth 33 after three backslashes and a quote", `["\\\"",` + deep + `]`, protocol.CodeInvalidFrame},
		// Brackets inside a string never nest, even in a string that never
		// ends: that line is malformed JSON, not deep.
		{"brackets in an unterminated string", `"` + strings.Repeat("[", 40), protocol.CodeInvalidRequest},
	} {
		line := with("params", `"params":`+c.params)
		if _, code := Parse([]byte(line)); code != c.code {
			t.Errorf("%s: Parse = %v; want %v", c.name, code, c.code)
		}
	}
}

// TestParseLoneSurrogateKeepsID: whatever hex digits spell a lone surrogate
// escape in params (upper or lower case, digits or a-f), the request is
// invalid_request and still answered with its ID (docs/protocol.md,
// Responses: only an unrecoverable identity uses id=null).
func TestParseLoneSurrogateKeepsID(t *testing.T) {
	for _, esc := range []string{`\ud800`, `\uDBFF`, `\udc0a`, `\uDCAf`, `\ud9fa`, `\uda09`, `\udeEA`, `\udfff`} {
		line := with("params", `"params":"x`+esc+`y"`)
		if req, code := Parse([]byte(line)); code != protocol.CodeInvalidRequest || req.ID != "r1" {
			t.Errorf("Parse(%q) = ID %q, %v; want ID r1, %v", line, req.ID, code, protocol.CodeInvalidRequest)
		}
	}
}
