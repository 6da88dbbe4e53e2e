package redact

import (
	"math/rand/v2"
	"os"
	"regexp/syntax"
	"strings"
	"testing"
)

// outcomesAt returns, for every trigger hit in s, whether its rule reports
// a secret there and the span, with the cheap checks on or off.
func outcomesAt(s string, pre bool) []span {
	skipPrechecks = !pre
	defer func() { skipPrechecks = false }()
	var out []span
	for _, h := range scan(s, 0, nil) {
		if _, sp, ok, valid := match(s, h.pos, rules[h.rule]); ok && valid {
			out = append(out, sp)
		} else {
			out = append(out, span{start: -1, r: rules[h.rule]})
		}
	}
	return out
}

// assignmentCorpus returns n assignments built from keywords (ours and every
// gitleaks keyword rule's), key suffixes, quotes, operators, the bytes
// gitleaks allows before a value, and values secret or not.
func assignmentCorpus(n int) []string {
	kws := append([]string(nil), assignKeywords...)
	kws = append(kws, "PASSWORD", "Secret", "API_KEY", "auth", "creds", "access", "key", "api")
	for _, r := range rules {
		if r.gl != nil && r.assign {
			kws = append(kws, r.triggers[0], strings.ToUpper(r.triggers[0]))
		}
	}
	suffixes := []string{"", "_key", ".value", "Key", "-value", "_id", "s", " name", "_token_x"}
	quotes := []string{"", `"`, `'`, `" `}
	ops := []string{"=", ":", ":=", "=>", "::=", ":::=", "||", "?=", ",", ">", " = ", "\t:\t", " ="}
	leads := []string{"", " ", `"`, ` "`, `  '`, "== ", "\t\"=", "`", " \" ' ="}
	values := []string{"a1b2c3d4e5f6", "s3cr3tV4lue99xyz", "cfg.Credential.AccessToken", "abcdefghijklmnop",
		"$VAR", "${API_KEY}", "<your-token>", "AKIAIOSFODNN7EXAMPLE", "=ab12cd34ef56gh", "ab+/cd12EF34gh56==",
		"Zm9vYmFyYmF6cXV4MTIz", "0123456789abcdef0123456789abcdef", "x", "changeme", "os.environ[\"X\"]",
		"ghp_" + rep(an, 36), "Pa55w0rd!x", rep(an, 40), "ſecret12345678", "a1b2c3d4e5f6g7h8i9j0"}
	ends := []string{"", "\n", " ", `"`, `'`, ";", "\\n", ",", " more text"}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(l []string) string { return l[rng.IntN(len(l))] }
	out := make([]string, n)
	for i := range out {
		out[i] = pick([]string{"", " ", "x.", "\t", "export "}) + pick(kws) + pick(suffixes) + pick(quotes) +
			pick(ops) + pick(leads) + pick(values) + pick(ends)
	}
	return out
}

// TestPrechecksNecessary: wherever a rule reports a secret with the cheap
// checks off, it reports the same one with them on; and a check that
// fails on a prefix of the text also fails, or the rule finds nothing,
// on the whole (a false is final, so a Stream may rely on it).
func TestPrechecksNecessary(t *testing.T) {
	var corpus []string
	for _, tc := range secrets {
		corpus = append(corpus, tc.in)
	}
	corpus = append(corpus, lookalikes...)
	for _, name := range []string{"lookalikes.txt", "gocode.txt"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		corpus = append(corpus, strings.Split(string(data), "\n")...)
	}
	for _, r := range rules {
		if r.gl == nil {
			corpus = append(corpus, ownSamples[r.name].tp, ownSamples[r.name].fp)
			continue
		}
		tp, fp, short := sample(t, r)
		corpus = append(corpus, tp, fp, short)
	}
	n := 8000
	if testing.Short() || splitStride > 1 {
		n = 2000
	}
	gen := assignmentCorpus(n)
	corpus = append(corpus, gen...)
	found := 0
	for _, s := range corpus {
		for _, in := range []string{s, " " + s + " ", "lorem " + s + "\nnext line"} {
			off, on := outcomesAt(in, false), outcomesAt(in, true)
			for i := range off {
				if off[i].start >= 0 {
					found++
				}
				if off[i] != on[i] {
					t.Errorf("%s in %q: the checks turn %+v into %+v", off[i].r.name, in, off[i], on[i])
				}
			}
		}
	}
	if found < n/20 {
		t.Errorf("only %d secrets found in the corpus: it does not exercise the checks", found)
	}
	// A false on a prefix is final.
	for _, s := range gen[:n/10] {
		full := outcomesAt(s, false)
		hits := scan(s, 0, nil)
		for end := 1; end < len(s); end++ {
			p := s[:end]
			for i, h := range hits {
				r := rules[h.rule]
				if h.pos >= end || full[i].start < 0 {
					continue
				}
				if r.pre != nil && !r.pre(p, h.pos) || r.gl != nil && r.assign && r.back == 0 && !r.gl.mayHold(p, h.pos) {
					t.Errorf("%s in %q: the checks fail on the prefix %q, yet the whole holds a secret", r.name, s, p)
				}
			}
		}
	}
}

// TestCapturesInRun: mayHold applies only to rules whose secret is a run
// of runByte bytes that always takes part.
func TestCapturesInRun(t *testing.T) {
	for pattern, want := range map[string]bool{
		`(?i)key[ =]+([a-z0-9]{16})`:        true,
		`(?i)key[ =]+([a-z0-9=+/_.~-]{16})`: true,
		`(?i)key[ =]+([a-z0-9:]{16})`:       false, // ':' ends a run
		`(?i)key[ =]+([a-z0-9@]{16})`:       false,
		`(?i)key[ =]+(.{16})`:               false,
		`(?i)key[ =]+([a-z0-9]{16})?`:       false, // may not take part: the whole match is redacted
		`(?i)key[ =]+[a-z0-9]{16}`:          false, // no group
		`(?i)key[ =]+(x*)`:                  false, // may be empty
		`(?i)key[ =]+(:?[a-z]{16})`:         false,
		"(?i)key[ =]+(\\x{80}[a-z]{16})":    true, // non-ASCII: decided byte by byte
		"(?i)key[ =]+(a~[a-z]{16})":         true, // ~ folds to nothing else
	} {
		if got := capturesInRun(pattern); got != want {
			t.Errorf("capturesInRun(%q) = %v; want %v", pattern, got, want)
		}
	}
	n, eligible := 0, 0
	for _, r := range rules {
		if r.gl != nil && r.assign {
			n++
			if r.gl.hold().ok {
				eligible++
			}
		}
	}
	if eligible < n*9/10 {
		t.Errorf("mayHold applies to %d of %d keyword rules", eligible, n)
	}
	for _, r := range rules {
		// Its secret holds a ':'.
		if r.name == "telegram-bot-api-token" && r.gl.hold().ok {
			t.Errorf("%s: mayHold applies", r.name)
		}
		if r.name == "generic-api-key" && !r.gl.hold().ok {
			t.Errorf("%s: mayHold does not apply", r.name)
		}
	}
}

// TestAssignPreRejectsProse: the assignment rule's check turns away the
// keywords of prose and code (no operator, a reference, a placeholder)
// before the regexp, and lets through a value that may be a secret, or a
// text that ends before it is decided.
func TestAssignPreRejectsProse(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"x=abcdef12345 token is", false},
		{"the token expired", false},
		{"tokenizer = NewTokenizer()", false},
		{"password := cfg.Password;", false},
		{"secret_key=${SECRET}\n", false},
		{"api_key: <your-key>\n", false},
		{"password: \"${DB_PASSWORD}\"\n", false},
		{"password = hunter2x\n", true},
		{"my_token_value: 's3cr3t99'", true},
		{"x password", true}, // the rest may follow
		{"the password:", true},
	} {
		pos := -1 // the trigger
		for _, kw := range []string{"token", "password", "secret", "api_key"} {
			if i := strings.Index(tc.s, kw); i >= 0 {
				pos = i
				break
			}
		}
		if got := assignPre(tc.s, pos); got != tc.want {
			t.Errorf("assignPre(%q, %d) = %v; want %v", tc.s, pos, got, tc.want)
		}
	}
}

// ruleNamed returns the rule of that name.
func ruleNamed(t *testing.T, name string) *rule {
	t.Helper()
	for _, r := range rules {
		if r.name == name {
			return r
		}
	}
	t.Fatalf("no rule %s", name)
	return nil
}

// TestMayHoldDistinctBytes: a keyword rule's value must hold enough
// distinct bytes to pass its entropy threshold (generic-api-key: 3.5 bits,
// so 12), and another byte than letters and _.- where such secrets are
// allowlisted; a rule without a threshold takes any value.
func TestMayHoldDistinctBytes(t *testing.T) {
	generic, adafruit, etsy := ruleNamed(t, "generic-api-key").gl, ruleNamed(t, "adafruit-api-key").gl, ruleNamed(t, "etsy-access-token").gl
	for _, tc := range []struct {
		g    *glRule
		s    string
		want bool
	}{
		{generic, "api_key = abcdefghij12 x", true},
		{generic, "api_key = abcdefghi12 x", false}, // 11 distinct bytes: at most 3.46 bits
		{generic, "api_key = abcdefghijklmnop x", false},
		{generic, "api_key = abcdefghijklmno_ x", false},
		{generic, "api_key = abcdefghijklmno1 x", true},
		{generic, "api_key = abcdefghi12", true},  // the value may go on
		{generic, "api_key=abcdefghi12 x", false}, // the name is not the value
		{generic, "api_key: \"abcdefghi12\" x", false},
		{etsy, "etsy_key = " + strings.Repeat("a", 24) + " x", false}, // 3 bits need 9 distinct bytes
		{etsy, "etsy_key = abcdefghi" + strings.Repeat("a", 15) + " x", true},
		{adafruit, "adafruit_key = " + strings.Repeat("1", 32) + " x", true},
	} {
		if got := tc.g.mayHold(tc.s, 0); got != tc.want {
			t.Errorf("%s: mayHold(%q) = %v; want %v", tc.g.id, tc.s, got, tc.want)
		}
	}
	// What the check lets through the rule redacts, what it turns away
	// the rule would not have redacted either.
	if s := "adafruit_key = " + strings.Repeat("1", 32); String(s) != "adafruit_key = [REDACTED]" {
		t.Errorf("String(%q) = %q", s, String(s))
	}
}

// TestMinWidth: the fewest bytes a pattern matches.
func TestMinWidth(t *testing.T) {
	for pattern, want := range map[string]int{
		`abc`: 3, `[a-z]`: 1, `.`: 1, `(ab)+`: 2, `(?:ab){3,5}`: 6, `a*`: 0, `a?`: 0,
		`ab|c`: 1, `a(?:bc|d)e`: 3, `\b`: 0,
	} {
		re, err := syntax.Parse(pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := minWidth(re); got != want {
			t.Errorf("minWidth(%q) = %d; want %d", pattern, got, want)
		}
	}
}
