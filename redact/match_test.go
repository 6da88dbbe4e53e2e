package redact

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestPgpassStartsAWord: a .pgpass line is recognised where a line or a
// word starts, not inside a URL, a path or an assignment (the rule's
// match starts before its trigger, and the check applies to its start).
func TestPgpassStartsAWord(t *testing.T) {
	const tail = ":5432:app:deploy:Zx9kQ2wLpVr"
	for _, in := range []string{"x=db.example.com" + tail, "https://db.example.com" + tail, "/var/run/pg" + tail, "\x00db" + tail} {
		if got := String(in); got != in {
			t.Errorf("String(%q) = %q; want it unchanged", in, got)
		}
	}
	for _, in := range []string{"db.example.com" + tail, "log: db.example.com" + tail, "a\n\tdb" + tail} {
		if got := String(in); !strings.HasSuffix(got, ":deploy:"+Marker) {
			t.Errorf("String(%q) = %q; want the password redacted", in, got)
		}
	}
}

// TestAssignAhead: an assignment operator follows the keyword past name
// bytes, then, past at most 8 bytes of the operator's rest, quotes, space
// and =, at least value bytes (every '=' skipped counted as one of them);
// true when the text ends first.
func TestAssignAhead(t *testing.T) {
	for _, tc := range []struct {
		s     string
		value int
		want  bool
	}{
		{"password", 0, true}, // the operator may follow
		{"password", 4, true},
		{"password=", 4, true},
		{"password (x)", 0, false},
		{"password=x", 0, true},
		{"password=abc def", 4, false},
		{"password=abcd ef", 4, true},
		{"password=        abcd", 4, true}, // 8 bytes before the value
		{"password=         abcd", 4, false},
		{"password=  abc x", 4, false},
		{"password==abc x", 4, true}, // the '=' may be the value's
		{"password : 'abc' x", 4, false},
		{"password := 'abc' x", 4, true}, // := counts as one
		{"password" + strings.Repeat(" ", 55) + "=abcd x", 4, true},
		{"password" + strings.Repeat(" ", 56) + "=abcd x", 4, false}, // the operator 64 bytes on
	} {
		if got := assignAhead(tc.s, 0, tc.value); got != tc.want {
			t.Errorf("assignAhead(%q, %d) = %v; want %v", tc.s, tc.value, got, tc.want)
		}
	}
}

// TestExtendBounded: a gitleaks secret of fixed length that starts a
// longer token is redacted with at most extendMax bytes of the rest.
func TestExtendBounded(t *testing.T) {
	key := "ghp_" + rep(an, 36)
	for _, extra := range []int{10, extendMax, extendMax + 44} {
		in := key + rep(an, extra) + " x"
		want := Marker + rep(an, extra)[min(extra, extendMax):] + " x"
		if got := String(in); got != want {
			t.Errorf("%d more bytes: String = %q; want %q", extra, got, want)
		}
	}
}

// TestMatchesNL: whether a pattern may match a newline, which bounds a
// rule's regexp to the line it starts on.
func TestMatchesNL(t *testing.T) {
	for pattern, want := range map[string]bool{
		`abc`: false, `a.b`: false, `(?s)a.b`: true, `[^a]`: true, `[\t\n]x`: true, `[\n-\r]x`: true,
		`[\x00-\n]x`: true, `[ -~]+`: false, `[\x00-\t]x`: false, `\s`: true, `a\n`: true, `a|b\n`: true, `(a(b\n))`: true,
	} {
		re := parse(t, pattern)
		if got := matchesNL(re); got != want {
			t.Errorf("matchesNL(%q) = %v; want %v", pattern, got, want)
		}
	}
	for name, want := range map[string]bool{"sk-key": true, "private-key": false, "netrc": false, "github-pat": true} {
		r := ruleNamed(t, name)
		r.re()
		if r.oneLine != want {
			t.Errorf("rule %s: oneLine %v; want %v", name, r.oneLine, want)
		}
	}
}

// TestTouchingSecretsMerge: secrets that touch become one marker.
func TestTouchingSecretsMerge(t *testing.T) {
	key := "ghp_" + rep(an, 36)
	for _, in := range []string{pemRSA + key, "x " + pemRSA + key + " y"} {
		want := strings.Replace(in, pemRSA+key, Marker, 1)
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestHeaderCredentialLength: a bearer token counts from 16 bytes, an
// authorization value from 8, and neither when it is a lowercase word.
func TestHeaderCredentialLength(t *testing.T) {
	for in, want := range map[string]string{
		"Bearer AbCdEf0123456789":          "Bearer [REDACTED]",
		"Bearer AbCdEf012345678":           "Bearer AbCdEf012345678",
		"authorization: Ab3dEf0z":          "authorization: [REDACTED]",
		"authorization: Ab3dEf0":           "authorization: Ab3dEf0",
		"Bearer lazy-authorization-scheme": "Bearer lazy-authorization-scheme",
		"authorization: zzzzzzzz-zz":       "authorization: zzzzzzzz-zz",
		"authorization: zzzzzzzz-zZ":       "authorization: [REDACTED]",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestAssignmentProse: an unquoted lowercase value that more text follows
// is a sentence; at the end of the text, or before a lone space, a secret.
func TestAssignmentProse(t *testing.T) {
	for in, want := range map[string]string{
		"token: abcdefgh is wrong": "token: abcdefgh is wrong",
		"token: zebra is wrong":    "token: zebra is wrong",
		"token: abcdefgh ":         "token: [REDACTED] ",
		"token: abcdefgh":          "token: [REDACTED]",
		"token: abcdefg1 is it":    "token: [REDACTED] is it",
		"token: 'abcdefgh' is it":  "token: '[REDACTED]' is it",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestPlaceholder: documentation values of at most 64 bytes.
func TestPlaceholder(t *testing.T) {
	for v, want := range map[string]bool{
		"changeme": true, "ChangeMe": true, "YOUR_API_KEY": true, "your" + rep(an, 60): true, "your" + rep(an, 61): false,
		"<token>": true, "abxxxxcd": true, "zzzz": true, rep(an, 12): false, "x-placeholder-1": true,
	} {
		if got := placeholder(v); got != want {
			t.Errorf("placeholder(%q) = %v; want %v", v, got, want)
		}
	}
}

// TestReference: dotted names of segments up to 32 bytes, not starting
// with a digit, are code that reads a secret.
func TestReference(t *testing.T) {
	seg := func(n int) string { return strings.Repeat("k", n) }
	for v, want := range map[string]bool{
		"settings.SECRET_KEY": true, "process.env.TOKEN": true, "a." + seg(32): true, "a." + seg(33): false,
		"settings.": false, ".env": false, "a..b": false, "cfg.key2": true, "cfg.2key": false, "plain": false, "a.b-c": false,
	} {
		if got := reference(v); got != want {
			t.Errorf("reference(%q) = %v; want %v", v, got, want)
		}
	}
}

// TestOrdinaryBase64: standard base64, 8 to 4096 bytes, of mostly
// letters and spaces (at least 80 %, one space or more).
func TestOrdinaryBase64(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString
	for v, want := range map[string]bool{
		enc([]byte("hi the")):                                    true,  // 8 bytes
		enc([]byte("hi ")):                                       false, // 4 bytes
		enc([]byte("hello world")):                               true,
		enc([]byte("helloworld!")):                               false, // no space
		enc([]byte("a 1234567")):                                 false, // under 80 % letters and spaces
		enc([]byte("abcdefg 1")):                                 true,
		enc([]byte("abcdefg 12")):                                true, // 80 %
		enc([]byte("abcdef 123")):                                false,
		enc([]byte("a b c d e f")):                               true,
		enc([]byte("hello\x00world")):                            false,
		enc([]byte(strings.Repeat("hello world ", 256))):         true, // 4096 bytes
		enc([]byte(strings.Repeat("hello world ", 256) + "abc")): false,
		"aGVsbG8gd29ybGQ":                                        false, // not a multiple of 4
		"aGVsbG8*d29ybGQ=":                                       false,
	} {
		if got := ordinaryBase64(v); got != want {
			t.Errorf("ordinaryBase64(%q) = %v; want %v", v, got, want)
		}
	}
}
