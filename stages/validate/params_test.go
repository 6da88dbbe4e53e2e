package validate

import (
	"fmt"
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"", false},
		{"a", true},
		{"AZaz09._-", true},
		{strings.Repeat("x", 64), true},
		{strings.Repeat("x", 65), false},
		{"a b", false},
		{"a/b", false},
		{"é", false},
		{"a\x00", false},
		{"turn.start", true},
	} {
		if got := Name(c.s); got != c.want {
			t.Errorf("Name(%q) = %v; want %v", c.s, got, c.want)
		}
	}
}

func TestString(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		ok   bool
	}{
		{`"abc"`, "abc", true},
		{` "abc" `, "abc", true},
		{`""`, "", true},
		{`"a\"b\\c\/d\b\f\n\r\t"`, "a\"b\\c/d\b\f\n\r\t", true},
		{`"\u00e9\u6f22\ud83d\ude00"`, "é漢😀", true},
		{`"é"`, "é", true},
		{`"\ud800"`, "", false},
		{`"\udc00x"`, "", false},
		{"\"\xff\"", "", false},
		{"\"a\tb\"", "", false},
		{`"abc`, "", false},
		{`"a" "b"`, "", false},
		{`"a"x`, "", false},
		{`1`, "", false},
		{`null`, "", false},
		{`["a"]`, "", false},
		{``, "", false},
		{`"`, "", false},
	} {
		got, ok := String([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("String(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestBoolAndNull(t *testing.T) {
	for _, c := range []struct {
		in           string
		v, ok, isNil bool
	}{
		{"true", true, true, false},
		{" false ", false, true, false},
		{"null", false, false, true},
		{"True", false, false, false},
		{`"true"`, false, false, false},
		{"1", false, false, false},
		{"", false, false, false},
		{"nul", false, false, false},
	} {
		v, ok := Bool([]byte(c.in))
		if v != c.v || ok != c.ok {
			t.Errorf("Bool(%q) = %v, %v; want %v, %v", c.in, v, ok, c.v, c.ok)
		}
		if got := IsNull([]byte(c.in)); got != c.isNil {
			t.Errorf("IsNull(%q) = %v; want %v", c.in, got, c.isNil)
		}
	}
}

func TestStrings(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want []string
		ok   bool
	}{
		{`[]`, 16, []string{}, true},
		{` [ ] `, 16, []string{}, true},
		{`["status","shutdown"]`, 16, []string{"status", "shutdown"}, true},
		{`[ "a" , "b\u0063" ]`, 2, []string{"a", "bc"}, true},
		{`["a","b","c"]`, 2, nil, false},
		{`["a"]`, 0, nil, false},
		{`["a",1]`, 16, nil, false},
		{`["a",]`, 16, nil, false},
		{`["a"`, 16, nil, false},
		{`["a"]x`, 16, nil, false},
		{`[]]`, 16, nil, false},
		{`["\ud800"]`, 16, nil, false},
		{`{"a":"b"}`, 16, nil, false},
		{`"a"`, 16, nil, false},
		{`null`, 16, nil, false},
	} {
		got, ok := Strings([]byte(c.in), c.max)
		if ok != c.ok || fmt.Sprint(got) != fmt.Sprint(c.want) || (ok && got == nil) {
			t.Errorf("Strings(%q, %d) = %q, %v; want %q, %v", c.in, c.max, got, ok, c.want, c.ok)
		}
	}
}

func TestMembers(t *testing.T) {
	manyKeys := func(n int, dup bool) string {
		var parts []string
		for i := range n {
			parts = append(parts, fmt.Sprintf(`"k%d":%d`, i, i))
		}
		if dup {
			parts = append(parts, `"k0":0`)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	for _, c := range []struct {
		name string
		in   string
		want string // key=value pairs seen, in order
		ok   bool
	}{
		{"empty", `{}`, "", true},
		{"spaces", ` { } `, "", true},
		{"two", `{"a":1,"b":[true, {"c":null}]}`, `a=1 b=[true, {"c":null}] `, true},
		{"escaped key decoded", `{"s\u0065ssion_id":"x"}`, `session_id="x" `, true},
		{"value whitespace trimmed", `{"a" : "x" }`, `a="x" `, true},
		{"duplicate", `{"a":1,"a":2}`, "", false},
		{"duplicate after escapes", `{"cursor":null,"\u0063ursor":"c"}`, "", false},
		{"not an object", `["a"]`, "", false},
		{"string", `"a"`, "", false},
		{"null", `null`, "", false},
		{"trailing", `{"a":1}x`, "", false},
		{"two objects", `{"a":1}{"b":2}`, "", false},
		{"malformed", `{"a":}`, "", false},
		{"lone surrogate value", `{"a":"\ud800"}`, "", false},
		{"many keys", manyKeys(20, false), "", true},
		{"many keys duplicate", manyKeys(20, true), "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var seen strings.Builder
			ok := Members([]byte(c.in), func(key string, value []byte) bool {
				fmt.Fprintf(&seen, "%s=%s ", key, value)
				return true
			})
			if ok != c.ok || ok && c.want != "" && seen.String() != c.want {
				t.Fatalf("Members(%q) = %q, %v; want %q, %v", c.in, seen.String(), ok, c.want, c.ok)
			}
		})
	}
	stops := 0
	if Members([]byte(`{"a":1,"b":2}`), func(string, []byte) bool { stops++; return false }) || stops != 1 {
		t.Fatalf("Members did not stop when fn returned false (%d calls)", stops)
	}
}

// BenchmarkString decodes a prompt string: one allocation (the result) is
// expected, escapes or not.
func BenchmarkString(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"plain", `"plain prompt text"`},
		{"escaped", `"escaped\n\"prompt\" text"`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			line := []byte(bc.in)
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := String(line); !ok {
					b.Fatal("refused")
				}
			}
		})
	}
}
