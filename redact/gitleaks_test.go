package redact

import (
	"math"
	"reflect"
	"regexp/syntax"
	"strings"
	"testing"
)

// parse parses a pattern the way the allowlists' branches are parsed.
func parse(t *testing.T, pattern string) *syntax.Regexp {
	t.Helper()
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		t.Fatalf("%q: %v", pattern, err)
	}
	return re
}

// TestRequiredLiterals: required returns sets of lowercase literals, one
// of each held by every text the pattern matches, and nothing it cannot
// vouch for (a literal shorter than two bytes or non-ASCII, an optional
// part, an alternative without a literal).
func TestRequiredLiterals(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		want    [][]string
	}{
		{`API[-._]?(?:ID|NAME|VERSION)`, [][]string{{"api"}, {"id", "name", "version"}}},
		{`Ab`, [][]string{{"ab"}}},
		{`a`, nil},       // one byte: too common to be worth a search
		{"a\u0080", nil}, // not ASCII
		{`xé`, nil},
		{`(?:xy)+`, [][]string{{"xy"}}},
		{`(?:xy){1,3}`, [][]string{{"xy"}}},
		{`(?:xy){0,3}`, nil}, // may be absent
		{`(?:xy)*`, nil},
		// One set per alternative: its set of longest shortest literal,
		// the first of equals.
		{`(?:abc.*xyz|pq)`, [][]string{{"abc", "pq"}}},
		{`(?:ab.*wxyz|pq)`, [][]string{{"wxyz", "pq"}}},
		{`(?:ab|.)`, nil},
	} {
		if got := required(parse(t, tc.pattern)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("required(%q) = %q; want %q", tc.pattern, got, tc.want)
		}
	}
}

// byteSet lists the members of set, nil for nil.
func byteSet(set *[256]bool) []byte {
	if set == nil {
		return nil
	}
	out := []byte{}
	for b, in := range set {
		if in {
			out = append(out, byte(b))
		}
	}
	return out
}

// TestAnchoredFirst: the first bytes of a branch anchored at \A, every
// byte a match may start with (case folding and non-ASCII runes included),
// nil where the branch is not anchored or its first bytes are not known.
func TestAnchoredFirst(t *testing.T) {
	high := func(prefix string) string {
		b := []byte(prefix)
		for c := 0x80; c < 0x100; c++ {
			b = append(b, byte(c))
		}
		return string(b)
	}
	for _, tc := range []struct {
		pattern string
		want    string
		known   bool
	}{
		{`\Aabc`, "a", true},
		{`\Aab`, "a", true},
		{`(\Aab)`, "a", true},
		{`\A(?:a|b)c`, "ab", true},
		{`\A(?:ab)+`, "a", true},
		{`\A[a-c]x`, "abc", true},
		// (?i)k also matches U+212A, and s U+017F: any non-ASCII lead byte.
		{`(?i)\Ak`, high("Kk"), true},
		{`(?i)\Aab`, high("Aa"), true},
		{`(?i)\Azb`, high("Zz"), true},
		{`\A[a-cé]`, high("abc"), true},
		{`\A[\x{80}-\x{81}]`, high(""), true},
		{`\A[\x{7f}-\x{80}]`, high("\x7f"), true},
		{`abc`, "", false},
		{`ab[0-9]`, "", false}, // not anchored
		{`\A`, "", false},
		{`\Aé`, "", false}, // a non-ASCII literal: not worked out
		{`\A\x{80}`, "", false},
		{`\A(?:ab){0,2}c`, "", false}, // may start with either
		{`\Ax*y`, "", false},
	} {
		got := anchoredFirst(parse(t, tc.pattern))
		if (got != nil) != tc.known || tc.known && string(byteSet(got)) != tc.want {
			t.Errorf("anchoredFirst(%q) = %q (known %v); want %q (known %v)", tc.pattern, byteSet(got), got != nil, tc.want, tc.known)
		}
	}
}

// TestAllowlistNeed: what each branch of an allowlist needs is worked out
// from its pattern.
func TestAllowlistNeed(t *testing.T) {
	a := newAllowlist(&glAllow{branches: []glBranch{{pattern: `\AFoo[0-9]`}}})
	need := a.need()
	if len(need) != 1 || !reflect.DeepEqual(need[0].lits, [][]string{{"foo"}}) || string(byteSet(need[0].first)) != "F" {
		t.Fatalf("need = %+v; want the literal foo and the first byte F", need)
	}
	if !a.regexMatches("Foo1 bar") || a.regexMatches("xFoo1") || a.regexMatches("Fo1") {
		t.Fatal("regexMatches disagrees with the branch")
	}
}

// TestStopwords: a stop word is found anywhere in the secret, in any case;
// a word of two bytes or more only where all of it occurs.
func TestStopwords(t *testing.T) {
	a := newAllowlist(&glAllow{stopwords: []string{"ab", "q", "abcd"}})
	for s, want := range map[string]bool{
		"zabz": true, "ZAB": true, "xxq": true, "xabcdx": true,
		"zaz": false, "zbaz": false, "a": false, "": false,
	} {
		if got := a.stopword(s); got != want {
			t.Errorf("stopword(%q) = %v; want %v", s, got, want)
		}
	}
}

// TestAcceptsEntropy: as in gitleaks, a secret whose entropy is at most the
// rule's threshold is not one; a rule without a threshold takes any.
func TestAcceptsEntropy(t *testing.T) {
	g := &glRule{entropy: 3}
	check := func(g *glRule, secret string, want bool) {
		t.Helper()
		sp := span{start: 0, end: len(secret)}
		if got := g.accepts(secret, sp, sp); got != want {
			t.Errorf("entropy %v: accepts(%q) = %v; want %v (its entropy is %v)", g.entropy, secret, got, want, entropy(secret))
		}
	}
	check(g, "abcdefghabcdefgh", false) // eight bytes twice: exactly 3 bits
	check(g, "abcdefghiabcdefghi", true)
	check(&glRule{}, "11111111", true) // entropy 0, and no threshold
}

// TestAllowlistMatchContext: an allowlist on the match reads gitleaks'
// match, which starts up to 50 bytes of [\w.-] before the keyword, not
// further, and not across a space.
func TestAllowlistMatchContext(t *testing.T) {
	const hi = "Xq7Lm2Vt9Rk3Hs8Jd4Fb"
	for _, tc := range []struct {
		in      string
		allowed bool
	}{
		{"capital-key = " + hi, true},
		{"capital_key = " + hi, true},
		{"capital key = " + hi, false},
		{"capital" + strings.Repeat("x", 43) + "key = " + hi, true}, // "capital" ends 50 bytes back
		{"capital" + strings.Repeat("x", 44) + "key = " + hi, false},
	} {
		if got := String(tc.in); (got == tc.in) != tc.allowed {
			t.Errorf("String(%q) = %q; want allowed %v", tc.in, got, tc.allowed)
		}
	}
}

// TestAllowlistReadsOneLine: an allowlist on the line reads the secret's
// line only, not the lines before or after it.
func TestAllowlistReadsOneLine(t *testing.T) {
	const hi = "Xq7Lm2Vt9Rk3Hs8Jd4Fb"
	mount := "RUN --mount=type=secret,id=npm"
	if in := mount + " auth=" + hi; String(in) != in {
		t.Fatalf("String(%q) = %q; want it allowed", in, String(in))
	}
	// (A match that takes the newline after the secret, as gitleaks' does
	// with its terminator, ends on the next line.)
	for _, in := range []string{mount + "\nauth=" + hi, "auth=" + hi + " \n" + mount, "auth=" + hi + " x\n" + mount} {
		if got := String(in); !strings.Contains(got, Marker) {
			t.Errorf("String(%q) = %q; want it redacted", in, got)
		}
	}
}

// TestEntropy: Shannon entropy over runes, divided by the length in bytes,
// as gitleaks computes it.
func TestEntropy(t *testing.T) {
	for s, want := range map[string]float64{
		"": 0, "aaaa": 0, "ab": 1, "abcd": 2, "aabb": 1, "abcdefgh": 3,
		"a\u0080": 2 * math.Log2(3) / 3, // two runes in three bytes
		"éé":      -math.Log2(0.5) / 2,
	} {
		if got := entropy(s); math.Abs(got-want) > 1e-9 {
			t.Errorf("entropy(%q) = %v; want %v", s, got, want)
		}
	}
}
