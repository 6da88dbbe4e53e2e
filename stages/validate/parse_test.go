package validate

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/magi-code/magi-code/protocol"
)

const (
	protocolMember = `"protocol":"magi-code.local-agent"`
	versionMember  = `"version":1`
	idMember       = `"id":"r1"`
	methodMember   = `"method":"status"`
	paramsMember   = `"params":{}`
)

// env builds a request line from members, in order.
func env(members ...string) string { return "{" + strings.Join(members, ",") + "}" }

// with returns the five standard members with the named one replaced by
// member ("" removes it).
func with(name, member string) string {
	all := []struct{ name, member string }{
		{"protocol", protocolMember}, {"version", versionMember}, {"id", idMember},
		{"method", methodMember}, {"params", paramsMember},
	}
	var out []string
	for _, m := range all {
		if m.name == name {
			if member != "" {
				out = append(out, member)
			}
			continue
		}
		out = append(out, m.member)
	}
	return env(out...)
}

var good = with("", "")

// nested returns a params value nested n arrays deep around 0.
func nested(n int) string { return strings.Repeat("[", n) + "0" + strings.Repeat("]", n) }

type parseCase struct {
	name   string
	line   string
	code   protocol.Code
	id     string
	method string // checked when code == ""
	params string // checked when code == ""
}

var parseCases = []parseCase{
	// Framing-level: whitespace only, size, depth.
	{name: "empty", line: "", code: protocol.CodeInvalidFrame},
	{name: "CR only", line: "\r", code: protocol.CodeInvalidFrame},
	{name: "whitespace only", line: " \t\r\n ", code: protocol.CodeInvalidFrame},
	{name: "too large", line: good + strings.Repeat(" ", protocol.MaxInputFrameBytes), code: protocol.CodeFrameTooLarge},
	{name: "depth 32 accepted", line: with("params", `"params":`+nested(31)), id: "r1", method: "status", params: nested(31)},
	{name: "depth 33 refused", line: with("params", `"params":`+nested(32)), code: protocol.CodeInvalidFrame},
	{name: "depth 33 of objects refused", line: with("params", `"params":`+strings.Repeat(`{"a":`, 32)+"0"+strings.Repeat("}", 32)), code: protocol.CodeInvalidFrame},
	{name: "depth beats UTF-8", line: "\xff" + strings.Repeat("[", 33), code: protocol.CodeInvalidFrame},
	{name: "depth beats syntax", line: strings.Repeat("[", 33) + "x", code: protocol.CodeInvalidFrame},
	{name: "brackets in strings do not nest", line: with("params", `"params":"`+strings.Repeat("[", 40)+`"`), id: "r1", method: "status", params: `"` + strings.Repeat("[", 40) + `"`},
	{name: "escaped quote keeps string open", line: with("params", `"params":"\"`+strings.Repeat("[", 40)+`\\"`), id: "r1", method: "status", params: `"\"` + strings.Repeat("[", 40) + `\\"`},

	// UTF-8 and syntax.
	{name: "valid", line: good, id: "r1", method: "status", params: "{}"},
	{name: "whitespace and CR around", line: " \t" + strings.ReplaceAll(good, ",", " ,\r\n ") + " \r", id: "r1", method: "status", params: "{}"},
	{name: "invalid UTF-8 in params", line: with("params", "\"params\":\"\xff\""), code: protocol.CodeInvalidRequest},
	{name: "invalid UTF-8 in id", line: with("id", "\"id\":\"r\xc3\""), code: protocol.CodeInvalidRequest},
	{name: "surrogate bytes in UTF-8", line: with("params", "\"params\":\"\xed\xa0\x80\""), code: protocol.CodeInvalidRequest},
	{name: "truncated", line: `{"protocol":`, code: protocol.CodeInvalidRequest},
	{name: "unterminated string", line: `{"protocol":"magi`, code: protocol.CodeInvalidRequest},
	{name: "control character in string", line: with("params", "\"params\":\"a\tb\""), code: protocol.CodeInvalidRequest},
	{name: "bad escape", line: with("params", `"params":"\x"`), code: protocol.CodeInvalidRequest},
	{name: "short unicode escape", line: with("params", `"params":"\u12"`), code: protocol.CodeInvalidRequest},
	// A lone surrogate escape is invalid_request; outside the id value the
	// identity stays readable, so the answer carries the ID.
	{name: "lone high surrogate", line: with("params", `"params":"\ud800"`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "lone low surrogate", line: with("params", `"params":"\udc00"`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "high surrogate then letter", line: with("params", `"params":"\ud800\u0041"`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "high surrogate then text", line: with("params", `"params":"\uD800abcdef"`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "two high surrogates", line: with("params", `"params":"\ud800\udbff"`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "lone surrogate in key", line: with("params", `"params":{"\ud800":1}`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "lone surrogate deep in params", line: with("params", `"params":[[{"a":["\udfff"]}]]`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "lone surrogate in method", line: with("method", `"method":"st\ud800"`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "lone surrogate in protocol", line: with("protocol", `"protocol":"\ud800"`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "lone surrogate in unknown top-level key", line: env(protocolMember, versionMember, idMember, methodMember, paramsMember, `"\ud800":1`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "lone surrogate before escaped id", line: env(protocolMember, versionMember, `"id":"r\u0031"`, methodMember, `"params":"\udfff"`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "lone surrogate inside id", line: with("id", `"id":"r\ud800"`), code: protocol.CodeInvalidRequest},
	{name: "lone surrogate inside id and params", line: env(protocolMember, versionMember, `"id":"\udc00"`, methodMember, `"params":"\ud800"`), code: protocol.CodeInvalidRequest},
	{name: "lone surrogate with duplicate id", line: env(protocolMember, versionMember, idMember, methodMember, `"params":"\ud800"`, `"id":"r2"`), code: protocol.CodeInvalidRequest},
	{name: "lone surrogate with invalid id", line: env(protocolMember, versionMember, `"id":"r 1"`, methodMember, `"params":"\ud800"`), code: protocol.CodeInvalidRequest},
	{name: "lone surrogate with missing id", line: env(protocolMember, versionMember, methodMember, `"params":"\ud800"`), code: protocol.CodeInvalidRequest},
	{name: "lone surrogate with syntax error", line: env(protocolMember, versionMember, idMember, methodMember, `"params":"\ud800"`) + ",", code: protocol.CodeInvalidRequest},
	{name: "lone surrogate with bad escape", line: env(protocolMember, versionMember, idMember, methodMember, `"params":"\ud800\x"`), code: protocol.CodeInvalidRequest},
	{name: "lone surrogate with short escape", line: env(protocolMember, versionMember, idMember, methodMember, `"params":"\ud80"`), code: protocol.CodeInvalidRequest},
	{name: "lone surrogate in array top level", line: `["\ud800",` + good + `]`, code: protocol.CodeInvalidRequest},
	{name: "surrogate pair accepted", line: with("params", `"params":"\ud83d\ude00"`), id: "r1", method: "status", params: `"\ud83d\ude00"`},
	{name: "trailing comma", line: strings.TrimSuffix(good, "}") + ",}", code: protocol.CodeInvalidRequest},
	{name: "two values", line: good + good, code: protocol.CodeInvalidRequest},
	{name: "two values with space", line: good + " " + good, code: protocol.CodeInvalidRequest},
	{name: "trailing bytes", line: good + " x", code: protocol.CodeInvalidRequest},
	{name: "trailing NUL", line: good + "\x00", code: protocol.CodeInvalidRequest},
	{name: "BOM", line: "\ufeff" + good, code: protocol.CodeInvalidRequest},
	{name: "array top level", line: "[" + good + "]", code: protocol.CodeInvalidRequest},
	{name: "string top level", line: `"r1"`, code: protocol.CodeInvalidRequest},
	{name: "number top level", line: `1`, code: protocol.CodeInvalidRequest},
	{name: "null top level", line: `null`, code: protocol.CodeInvalidRequest},
	{name: "empty object", line: `{}`, code: protocol.CodeInvalidRequest},
	{name: "bad number in params", line: with("params", `"params":[01]`), code: protocol.CodeInvalidRequest},
	{name: "bad literal in params", line: with("params", `"params":[tru]`), code: protocol.CodeInvalidRequest},
	{name: "missing colon", line: `{"protocol" "magi-code.local-agent"}`, code: protocol.CodeInvalidRequest},
	{name: "single quotes", line: strings.ReplaceAll(good, `"`, `'`), code: protocol.CodeInvalidRequest},

	// Envelope shape: exactly five members.
	{name: "missing protocol", line: with("protocol", ""), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "missing version", line: with("version", ""), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "missing id", line: with("id", ""), code: protocol.CodeInvalidRequest},
	{name: "missing method", line: with("method", ""), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "missing params", line: with("params", ""), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "unknown member", line: env(protocolMember, versionMember, idMember, methodMember, paramsMember, `"extra":1`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "unknown member by case", line: with("params", `"Params":{}`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "unknown long escaped key", line: env(protocolMember, versionMember, idMember, methodMember, paramsMember, `"\u0070\u0070\u0070\u0070\u0070\u0070\u0070\u0070\u0070":1`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "duplicate id", line: env(protocolMember, versionMember, idMember, methodMember, paramsMember, `"id":"r2"`), code: protocol.CodeInvalidRequest},
	{name: "duplicate id spelled with escape", line: env(protocolMember, versionMember, idMember, methodMember, paramsMember, `"\u0069d":"r1"`), code: protocol.CodeInvalidRequest},
	{name: "duplicate method keeps id", line: env(protocolMember, versionMember, idMember, methodMember, paramsMember, `"m\u0065thod":"status"`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "duplicate params", line: env(protocolMember, versionMember, idMember, methodMember, paramsMember, paramsMember), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "escaped member names accepted", line: env(`"pr\u006ftocol":"magi-code.local-agent"`, `"\u0076ersion":1`, `"\u0069\u0064":"r1"`, `"method":"status"`, `"params":{}`), id: "r1", method: "status", params: "{}"},
	{name: "member order is free", line: env(paramsMember, methodMember, idMember, versionMember, protocolMember), id: "r1", method: "status", params: "{}"},

	// Protocol and version.
	{name: "other protocol", line: with("protocol", `"protocol":"other"`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "protocol prefix", line: with("protocol", `"protocol":"magi-code.local-agen"`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "protocol number", line: with("protocol", `"protocol":1`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "protocol null", line: with("protocol", `"protocol":null`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "protocol escaped accepted", line: with("protocol", `"protocol":"magi-code\u002elocal-agent"`), id: "r1", method: "status", params: "{}"},
	{name: "version 1.0", line: with("version", `"version":1.0`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "version string", line: with("version", `"version":"1"`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "version 2", line: with("version", `"version":2`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "version 1e0", line: with("version", `"version":1e0`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "version -1", line: with("version", `"version":-1`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "version 10", line: with("version", `"version":10`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "version true", line: with("version", `"version":true`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "version array", line: with("version", `"version":[1]`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "version with spaces accepted", line: with("version", `"version" : 1 `), id: "r1", method: "status", params: "{}"},
	{name: "mismatch with invalid id has null id", line: env(`"protocol":"x"`, versionMember, `"id":"r 1"`, methodMember, paramsMember), code: protocol.CodeProtocolMismatch},

	// Precedence among envelope checks.
	{name: "mismatch beats unknown member", line: env(`"protocol":"x"`, versionMember, idMember, methodMember, paramsMember, `"extra":1`), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "mismatch beats missing member", line: env(`"version":2`, idMember), code: protocol.CodeProtocolMismatch, id: "r1"},
	{name: "duplicate beats mismatch", line: env(`"protocol":"x"`, versionMember, idMember, methodMember, paramsMember, paramsMember), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "syntax beats mismatch", line: with("protocol", `"protocol":"x"`) + "x", code: protocol.CodeInvalidRequest},
	{name: "bad method with bad id", line: env(protocolMember, versionMember, `"id":""`, `"method":""`, paramsMember), code: protocol.CodeInvalidRequest},

	// ID and method grammar, after decoding escapes.
	{name: "id escaped", line: with("id", `"id":"r\u0031"`), id: "r1", method: "status", params: "{}"},
	{name: "id all grammar bytes", line: with("id", `"id":"AZaz09._-"`), id: "AZaz09._-", method: "status", params: "{}"},
	{name: "id 64 bytes", line: with("id", `"id":"`+strings.Repeat("a", 64)+`"`), id: strings.Repeat("a", 64), method: "status", params: "{}"},
	{name: "id 64 bytes escaped", line: with("id", `"id":"`+strings.Repeat(`\u0061`, 64)+`"`), id: strings.Repeat("a", 64), method: "status", params: "{}"},
	{name: "id 65 bytes", line: with("id", `"id":"`+strings.Repeat("a", 65)+`"`), code: protocol.CodeInvalidRequest},
	{name: "id 65 bytes escaped", line: with("id", `"id":"`+strings.Repeat(`\u0061`, 65)+`"`), code: protocol.CodeInvalidRequest},
	{name: "id empty", line: with("id", `"id":""`), code: protocol.CodeInvalidRequest},
	{name: "id space", line: with("id", `"id":"r 1"`), code: protocol.CodeInvalidRequest},
	{name: "id slash", line: with("id", `"id":"r/1"`), code: protocol.CodeInvalidRequest},
	{name: "id escaped slash", line: with("id", `"id":"r\/1"`), code: protocol.CodeInvalidRequest},
	{name: "id escaped NUL", line: with("id", `"id":"r\u0000"`), code: protocol.CodeInvalidRequest},
	{name: "id non-ASCII", line: with("id", `"id":"é"`), code: protocol.CodeInvalidRequest},
	{name: "id number", line: with("id", `"id":1`), code: protocol.CodeInvalidRequest},
	{name: "id null", line: with("id", `"id":null`), code: protocol.CodeInvalidRequest},
	{name: "method escaped", line: with("method", `"method":"st\u0061tus"`), id: "r1", method: "status", params: "{}"},
	{name: "method unknown passes", line: with("method", `"method":"foo.bar"`), id: "r1", method: "foo.bar", params: "{}"},
	{name: "method empty", line: with("method", `"method":""`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "method 65 bytes", line: with("method", `"method":"`+strings.Repeat("m", 65)+`"`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "method space", line: with("method", `"method":"turn start"`), code: protocol.CodeInvalidRequest, id: "r1"},
	{name: "method number", line: with("method", `"method":7`), code: protocol.CodeInvalidRequest, id: "r1"},

	// params: any JSON value, returned raw.
	{name: "params array", line: with("params", `"params":[1, 2]`), id: "r1", method: "status", params: "[1, 2]"},
	{name: "params null", line: with("params", `"params":null`), id: "r1", method: "status", params: "null"},
	{name: "params string", line: with("params", `"params":"x"`), id: "r1", method: "status", params: `"x"`},
	{name: "params number", line: with("params", `"params":-1.5e+3`), id: "r1", method: "status", params: "-1.5e+3"},
	{name: "params object with spaces", line: with("params", `"params": { "a" : [true, false, null] } `), id: "r1", method: "status", params: `{ "a" : [true, false, null] }`},
	{name: "params duplicate keys are dispatch's", line: with("params", `"params":{"a":1,"a":2}`), id: "r1", method: "status", params: `{"a":1,"a":2}`},
}

func TestParse(t *testing.T) {
	for _, c := range parseCases {
		t.Run(c.name, func(t *testing.T) {
			req, code := Parse([]byte(c.line))
			show := c.line
			if len(show) > 200 {
				show = show[:200] + "..."
			}
			if code != c.code {
				t.Fatalf("Parse(%q) = %v; want %v", show, code, c.code)
			}
			if req.ID != c.id {
				t.Fatalf("Parse(%q).ID = %q; want %q", show, req.ID, c.id)
			}
			if code != "" {
				if req.Method != "" || req.Params != nil {
					t.Fatalf("Parse(%q) = %q, %q with code %v; want no method or params", show, req.Method, req.Params, code)
				}
				return
			}
			if req.Method != c.method || string(req.Params) != c.params {
				t.Fatalf("Parse(%q) = method %q params %q; want %q, %q", show, req.Method, req.Params, c.method, c.params)
			}
		})
	}
}

// TestParseMarkers checks no submitted byte reaches anything returned except
// ID, Method and Params: a unique marker in each bad field never appears.
func TestParseMarkers(t *testing.T) {
	const marker = "MARKERzq7"
	for _, line := range []string{
		with("protocol", `"protocol":"`+marker+`"`),
		with("version", `"version":"`+marker+`"`),
		with("id", `"id":"`+marker+` "`),
		with("method", `"method":"`+marker+`/"`),
		env(protocolMember, versionMember, idMember, methodMember, paramsMember, `"`+marker+`":1`),
		with("params", `"params":"`+marker+`\ud800"`),
		marker,
	} {
		req, code := Parse([]byte(line))
		if code == "" || strings.Contains(string(code)+req.ID+req.Method+string(req.Params), marker) {
			t.Fatalf("Parse(%q) = %+v, %v: marker returned or accepted", line, req, code)
		}
	}
}

var surrogateEscape = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

func FuzzParse(f *testing.F) {
	for _, c := range parseCases {
		if len(c.line) < 4096 {
			f.Add([]byte(c.line))
		}
	}
	f.Add([]byte(`{"required_capabilities":["status","shutdown"]}`))
	f.Add([]byte(`"r\u0031"`))
	f.Fuzz(func(t *testing.T, in []byte) {
		// The input on its own, and as the value of params, id and method
		// in an otherwise valid envelope, so that the accepted path is
		// explored too.
		fuzzLine(t, in)
		for _, name := range []string{"params", "id", "method"} {
			fuzzLine(t, []byte(with(name, `"`+name+`":`+string(in))))
		}
	})
}

func fuzzLine(t *testing.T, line []byte) {
	req, code := Parse(line)
	switch code {
	case "", protocol.CodeInvalidFrame, protocol.CodeInvalidRequest, protocol.CodeProtocolMismatch, protocol.CodeFrameTooLarge:
	default:
		t.Fatalf("Parse = unexpected code %q", code)
	}
	if req.ID != "" && !Name(req.ID) {
		t.Fatalf("Parse returned invalid ID %q", req.ID)
	}

	// The scanner agrees with encoding/json, except that it refuses
	// lone surrogate escapes and nesting beyond its stack.
	if utf8.Valid(line) {
		i := skipSpace(line, 0)
		end, ok := scanValue(line, i, false)
		mine := ok && skipSpace(line, end) == len(line)
		theirs := json.Valid(line)
		if mine && !theirs {
			t.Fatalf("scanner accepts invalid JSON %q", line)
		}
		if theirs && !mine && !surrogateEscape.Match(line) && !tooDeep(line, maxScanDepth) {
			t.Fatalf("scanner refuses valid JSON %q", line)
		}
		// The lax scan (ID recovery) differs only on lone surrogates.
		laxEnd, laxOK := scanValue(line, i, true)
		if !surrogateEscape.Match(line) && (laxOK != ok || ok && laxEnd != end) {
			t.Fatalf("lax scan disagrees without surrogate escapes on %q", line)
		}
		if laxOK && skipSpace(line, laxEnd) == len(line) && !json.Valid(line) && !surrogateEscape.Match(line) {
			t.Fatalf("lax scan accepts invalid JSON %q", line)
		}
	}

	if code != "" {
		return
	}
	if !json.Valid(line) || !utf8.Valid(line) || tooDeep(line, protocol.MaxJSONDepth) {
		t.Fatalf("Parse accepted invalid line %q", line)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil || len(m) != 5 {
		t.Fatalf("Parse accepted %q; encoding/json: %v, %d members", line, err, len(m))
	}
	var id, method, proto string
	if json.Unmarshal(m["id"], &id) != nil || id != req.ID {
		t.Fatalf("Parse(%q).ID = %q; encoding/json reads %q", line, req.ID, id)
	}
	if json.Unmarshal(m["method"], &method) != nil || method != req.Method || !Name(method) {
		t.Fatalf("Parse(%q).Method = %q; encoding/json reads %q", line, req.Method, method)
	}
	if json.Unmarshal(m["protocol"], &proto) != nil || proto != protocol.ProtocolName || string(m["version"]) != "1" {
		t.Fatalf("Parse accepted protocol %s version %s", m["protocol"], m["version"])
	}
	if !bytes.Equal(m["params"], req.Params) {
		t.Fatalf("Parse(%q).Params = %q; encoding/json reads %q", line, req.Params, m["params"])
	}
	checkHelpers(t, req.Params)
}

// checkHelpers compares the params helpers with encoding/json on a value
// Parse accepted.
func checkHelpers(t *testing.T, value []byte) {
	var s string
	if got, ok := String(value); ok != (json.Unmarshal(value, &s) == nil && !IsNull(value)) || ok && got != s {
		t.Fatalf("String(%q) = %q, %v; encoding/json: %q", value, got, ok, s)
	}
	var ss []string
	if json.Unmarshal(value, &ss) == nil && ss != nil {
		got, ok := Strings(value, len(ss))
		if !ok || strings.Join(got, "\x00") != strings.Join(ss, "\x00") || len(got) != len(ss) {
			t.Fatalf("Strings(%q) = %q, %v; encoding/json: %q", value, got, ok, ss)
		}
		if len(ss) > 0 {
			if _, ok := Strings(value, len(ss)-1); ok {
				t.Fatalf("Strings(%q, %d) accepted %d strings", value, len(ss)-1, len(ss))
			}
		}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(value, &obj) == nil && obj != nil {
		members := map[string][]byte{}
		ok := Members(value, func(key string, v []byte) bool {
			members[key] = v
			return true
		})
		// Members refuses duplicates; encoding/json keeps the last one.
		raw := countMembers(t, value)
		if ok != (raw == len(obj)) {
			t.Fatalf("Members(%q) = %v; %d raw members, %d distinct", value, ok, raw, len(obj))
		}
		for key, v := range members {
			if want, found := obj[key]; !found || ok && !bytes.Equal(want, v) {
				t.Fatalf("Members(%q): %q = %q; encoding/json %q", value, key, v, want)
			}
		}
	}
}

// countMembers counts the members of a JSON object, duplicates included.
func countMembers(t *testing.T, value []byte) int {
	dec := json.NewDecoder(bytes.NewReader(value))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for dec.More() {
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// turnStartLine is a 60 KB turn.start-like request.
// The prompt repeats a 64-byte sentence.
func turnStartLine(sentence string) []byte {
	prompt := strings.Repeat(sentence, 60000/64)
	return []byte(env(protocolMember, versionMember, `"id":"req-000123"`, `"method":"turn.start"`,
		`"params":{"session_id":"0f8fad5b-d9cb-469f-a165-70867728950e","prompt":"`+prompt+`"}`))
}

func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct {
		name string
		line []byte
	}{
		{"status", []byte(env(protocolMember, versionMember, `"id":"req-000123"`, methodMember, paramsMember))},
		{"turn.start-60KB", turnStartLine(`Refactor the parser so that \"quoted\" text\nkeeps its escapes; `)},
		{"turn.start-60KB-plain", turnStartLine(`Refactor the parser so that quoted text keeps its escapes, now. `)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, code := Parse(bc.line); code != "" {
					b.Fatal(code)
				}
			}
		})
	}
}
