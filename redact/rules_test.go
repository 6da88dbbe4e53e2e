package redact

import (
	"os"
	"regexp/syntax"
	"strings"
	"testing"
)

// ownSamples holds, for every rule of our own, a text it must redact (tp)
// and a look-alike it must leave alone (fp).
var ownSamples = map[string]struct{ tp, fp string }{
	"sk-key":                {"key sk-" + rep(an, 40), "risk-free sk-learn pipelines"},
	"jwt":                   {"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "eyJhbGciOiJIUzI1NiJ9 alone"},
	"private-key":           {pemRSA, "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----"},
	"bearer":                {"Authorization: Bearer " + rep(an, 32), "Use a Bearer token in the header."},
	"authorization":         {"authorization: " + rep(an, 24), "authorization: required"},
	"url-password":          {"https://admin:" + rep(an, 12) + "@db.example.com/x", "ssh://git@github.com/org/repo.git"},
	"assignment":            {"DB_PASSWORD=" + rep(an, 14), `password = os.environ["DB_PASSWORD"]`},
	"connection-string":     {"Server=db;Uid=app;Pwd=" + rep(an, 14) + ";", "cd $(pwd)/build"},
	"netrc":                 {"machine api.example.com login deploy password " + rep(an, 20), "login page redesign, password field moved"},
	"pgpass":                {"db.example.com:5432:app:deploy:" + rep(an, 18), "listening on 127.0.0.1:5432"},
	"registry-auth":         {`{"auth": "` + "ZGVwbG95OnMzY3IzdFRva2Vu" + `"}`, "docker login --password-stdin < token.txt"},
	"stripe-webhook-secret": {"whsec_" + rep(an, 32), "whsec_ is the prefix of webhook secrets"},
	"credential-path":       {"cat ~/.aws/credentials", "a .ssh directory"},
	"credential-file":       {"ssh -i id_ed25519 host", "id_rsa_backup_tool"},
}

// synth builds text for a gitleaks rule from its own pattern: every class
// yields its members in a scrambled cycle (high entropy), repeats their
// minimum, alternatives their first branch. With low set, the secret group
// repeats one character instead: a look-alike that the rule's entropy
// threshold or gitleaks' allowlists must reject.
type synth struct {
	secret int // the capture group of the secret (0: the first)
	n      int
	low    bool
	short  bool // the secret's required runs one character short
	in     bool
	first  byte
	second byte
}

func (g *synth) gen(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		var members, alnums, letters []byte
		for i := 0; i < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1] && r < 0x7f; r++ {
				if r < ' ' && r != '\t' && r != '\n' {
					continue
				}
				members = append(members, byte(r))
				if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
					alnums = append(alnums, byte(r))
				}
				if 'a' <= r && r <= 'z' {
					letters = append(letters, byte(r))
				}
			}
		}
		switch {
		case g.in && g.low:
			// Two characters taken in turn: about one bit per character,
			// below every entropy threshold, and not a run of one letter
			// (which gitleaks' global allowlist would let through anyway).
			pool := members
			switch {
			case len(letters) > 1:
				pool = letters
			case len(alnums) > 1:
				pool = alnums
			}
			if g.first == 0 {
				g.first, g.second = pool[0], pool[len(pool)-1]
			}
			g.n++
			if g.n%2 == 0 {
				b.WriteByte(g.first)
			} else {
				b.WriteByte(g.second)
			}
		case len(alnums) > 0:
			g.n++
			b.WriteByte(alnums[(g.n*7+3)%len(alnums)])
		case strings.IndexByte(string(members), ' ') >= 0:
			b.WriteByte(' ')
		default:
			b.WriteByte(members[0])
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('x')
	case syntax.OpCapture:
		in := g.in
		if g.secret == 0 && re.Cap > 0 && !g.in || g.secret == re.Cap {
			g.in = true
			g.secret = re.Cap
		}
		g.gen(b, re.Sub[0])
		g.in = in
	case syntax.OpConcat:
		for _, s := range re.Sub {
			g.gen(b, s)
		}
	case syntax.OpAlternate:
		g.gen(b, re.Sub[0])
	case syntax.OpPlus:
		g.gen(b, re.Sub[0])
	case syntax.OpRepeat:
		// A required run gets up to 24 characters: enough entropy for the
		// thresholds, within the pattern's bounds.
		n := re.Min
		if g.in && g.short && n > 0 {
			n--
		} else if n > 0 {
			n = max(n, 24)
			if re.Max >= 0 {
				n = min(n, re.Max)
			}
		}
		for range n {
			g.gen(b, re.Sub[0])
		}
	}
}

// sample returns a true and a false positive for gitleaks rule r.
func sample(t *testing.T, r *rule) (tp, fp, short string) {
	re, err := syntax.Parse(r.pattern, syntax.Perl)
	if err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
	var b strings.Builder
	g := &synth{secret: r.group}
	if r.group == 0 && r.whole > 0 {
		g.secret = r.whole + 1 // the first group inside the whole
	}
	g.gen(&b, re)
	tp = b.String()
	b.Reset()
	whole := re.MaxCap() == 0 // no group: the whole match is the secret
	low := &synth{secret: g.secret, low: true, in: whole}
	if low.secret == 0 {
		low.secret = g.secret
	}
	low.gen(&b, re)
	fp = b.String()
	b.Reset()
	sh := &synth{secret: g.secret, short: true, in: whole}
	sh.gen(&b, re)
	return tp, fp, b.String()
}

// TestEveryRule: every rule that ships catches a true positive and leaves
// a look-alike alone, through String and through Stream with the text
// split at every offset.
func TestEveryRule(t *testing.T) {
	if len(gitleaksRules) < 200 {
		t.Fatalf("%d gitleaks rules ship; want the release's (about 210)", len(gitleaksRules))
	}
	lowFP, shortFP, weakFP := 0, 0, 0
	for ri, r := range rules {
		var tp, fp string
		if r.gl == nil {
			s, ok := ownSamples[r.name]
			if !ok {
				t.Errorf("rule %s has no samples in ownSamples", r.name)
				continue
			}
			tp, fp = " "+s.tp+" ", " "+s.fp+" "
		} else {
			var short string
			tp, fp, short = sample(t, r)
			tp, fp, short = " "+tp+" ", " "+fp+" ", " "+short+" "
			if e, ok := secretEntropy(fp, ri); ok && e <= r.gl.entropy && ruleMatches(fp, ri) {
				t.Errorf("rule %s accepts %q, of entropy %.2f, at or below its threshold %v", r.name, fp, e, r.gl.entropy)
			}
			switch {
			case gitleaksFP[r.name] != "":
				fp = " " + gitleaksFP[r.name] + " "
			case String(fp) == fp:
				lowFP++ // rejected by the entropy threshold or an allowlist
			case String(short) == short:
				fp = short // a rule without a threshold: one character short
				shortFP++
			default:
				// Neither: break the trigger.
				weakFP++
				fp = strings.Replace(fp, strings.TrimSpace(fp)[:1], "#", 1)
			}
		}
		if !ruleMatches(tp, ri) {
			t.Errorf("rule %s does not catch its sample %q", r.name, tp)
			continue
		}
		got := String(tp)
		if got == tp || !strings.Contains(got, Marker) {
			t.Errorf("String(%q) = %q: rule %s's sample not redacted", tp, got, r.name)
		}
		if got := String(fp); got != fp {
			t.Errorf("rule %s: String(%q) = %q; want the look-alike unchanged", r.name, fp, got)
		}
		pad := strings.Repeat("lorem ipsum dolor ", 20)
		in := pad + tp + pad
		want := String(in)
		for i := len(pad); i <= len(pad)+len(tp); i += splitStride {
			out := feed(t, []string{in[:i], in[i:]})
			if maxMatch(in) < swallowAt && out != want {
				t.Fatalf("rule %s split at %d: Stream = %q; String = %q", r.name, i-len(pad), out, want)
			}
			if !strings.Contains(out, Marker) {
				t.Fatalf("rule %s split at %d: Stream let it through: %q", r.name, i-len(pad), out)
			}
		}
		fin := pad + fp + pad
		if out := feed(t, []string{fin[:len(pad)+len(fp)/2], fin[len(pad)+len(fp)/2:]}); out != fin {
			t.Errorf("rule %s: Stream changed the look-alike: %q", r.name, out)
		}
	}
	t.Logf("%d rules; gitleaks look-alikes: %d low-entropy, %d one character short, %d with a broken trigger",
		len(rules), lowFP, shortFP, weakFP)
}

// gitleaksFP are look-alikes written by hand where none can be made from
// the rule's pattern (another rule catches every variant).
var gitleaksFP = map[string]string{
	"sidekiq-sensitive-url": "https://gems.contribsys.com/ is where Sidekiq Pro lives",
}

// secretEntropy is the entropy of the secret rule ri finds in s, valid or
// not.
func secretEntropy(s string, ri int) (float64, bool) {
	for _, h := range scan(s, 0, nil) {
		if int(h.rule) == ri {
			if _, sp, ok, _ := match(s, h.pos, rules[ri]); ok {
				return entropy(s[sp.start:sp.end]), true
			}
		}
	}
	return 0, false
}

// ruleMatches reports whether rule ri itself (not only another rule) finds
// a valid secret in s.
func ruleMatches(s string, ri int) bool {
	for _, h := range scan(s, 0, nil) {
		if int(h.rule) != ri {
			continue
		}
		if _, _, ok, valid := match(s, h.pos, rules[ri]); ok && valid {
			return true
		}
	}
	return false
}

// TestGitleaksAllowlists: gitleaks' global allowlist, a rule's allowlist on
// the secret, on the whole match (which starts before the keyword), on the
// line, and its stop words each let a finding through, where the same line
// without what the allowlist names is redacted.
func TestGitleaksAllowlists(t *testing.T) {
	const hi = "Xq7Lm2Vt9Rk3Hs8Jd4Fb"
	for _, tc := range []struct{ name, allowed, redacted string }{
		{"global: one letter", `adafruit_key = "` + strings.Repeat("a", 32) + `"`, `adafruit_key = "` + rep("abcdefghijklmnopqrstuvwxyz0123456789", 32) + `"`},
		{"rule, secret: EXAMPLE keys", "AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLF"},
		{"rule, match: public_key", `public_key = "` + hi + `"`, `my_key = "` + hi + `"`},
		{"rule, line: docker secret mount", "RUN --mount=type=secret,id=npm auth=" + hi, "RUN --mount=type=cache,id=npm auth=" + hi},
		{"rule, stop word", "auth = angular" + hi, "auth = " + hi + "Zz"},
	} {
		if got := String(tc.allowed); got != tc.allowed {
			t.Errorf("%s: String(%q) = %q; want it allowed", tc.name, tc.allowed, got)
		}
		if got := String(tc.redacted); !strings.Contains(got, Marker) {
			t.Errorf("%s: String(%q) = %q; want it redacted", tc.name, tc.redacted, got)
		}
	}
}

// TestGitleaksVersion: the generated table comes from the gitleaks release
// the generator's go.mod (internal/gen/go.mod, a module of its own) pins
// (after go get there, run make redact-rules).
func TestGitleaksVersion(t *testing.T) {
	data, err := os.ReadFile("internal/gen/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "github.com/zricethezav/gitleaks/v8" {
			if f[1] != gitleaksVersion {
				t.Fatalf("internal/gen/go.mod pins gitleaks %s; gitleaks_rules.go comes from %s: run make redact-rules", f[1], gitleaksVersion)
			}
			return
		}
	}
	t.Fatal("internal/gen/go.mod does not pin github.com/zricethezav/gitleaks/v8")
}

// TestGitleaksNotice: the rules are derived from gitleaks, which is MIT
// licensed, so its notice ships with them: the generator copies the
// release's LICENSE into gitleaks_rules.go (a comment above the package
// clause and gitleaksLicense) and the repository's NOTICE holds the same
// text, beside the project's own LICENSE.
func TestGitleaksNotice(t *testing.T) {
	if !strings.Contains(gitleaksLicense, "Copyright (c)") || !strings.Contains(gitleaksLicense, "MIT License") ||
		!strings.Contains(gitleaksLicense, "The above copyright notice and this permission notice shall be included") {
		t.Fatalf("gitleaksLicense is not the MIT notice of gitleaks:\n%s", gitleaksLicense)
	}
	notice, err := os.ReadFile("../NOTICE")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(notice), gitleaksLicense) {
		t.Error("NOTICE does not hold the gitleaks license of the generated rules (copy gitleaksLicense there)")
	}
	src, err := os.ReadFile("gitleaks_rules.go")
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(src), "\npackage redact")
	for _, line := range strings.Split(gitleaksLicense, "\n") {
		if !strings.Contains(header, strings.TrimRight("// "+line, " ")+"\n") {
			t.Errorf("gitleaks_rules.go's header lacks the license line %q", line)
		}
	}
	license, err := os.ReadFile("../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(license), "Apache License") || !strings.Contains(string(license), "Version 2.0, January 2004") {
		t.Error("LICENSE is not the Apache License 2.0")
	}
}
