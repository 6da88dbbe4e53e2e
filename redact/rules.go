package redact

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// rule is one secret shape. A rule is tried only where one of its
// triggers occurs (prefilter.go), and its anchored regexp runs from the
// trigger: text without a trigger never reaches a regexp, and a trigger
// costs one anchored match, not a scan of the text.
type rule struct {
	name     string
	triggers []string // literal substrings, at least 3 bytes each
	fold     bool     // triggers compare ASCII case-insensitively
	// pattern matches at the trigger (re anchors and compiles it).
	pattern  string
	once     sync.Once
	compiled *regexp.Regexp
	// oneLine: the pattern cannot match a newline, so no match reads past
	// the end of the line it starts on (set when the pattern compiles).
	oneLine bool
	// left, when set, must accept the byte before the trigger (-1 at the
	// start of the text): a word boundary, a URL scheme.
	left func(b int) bool
	// path extends the match back over the directory that holds the file.
	path bool
	// valid, when set, must accept the redacted text or the match is kept.
	valid func(string) bool
	// check, when set, must accept the match too (which may look at the
	// whole match or its line in s).
	check func(s string, whole, secret span) bool
	// gl is the gitleaks rule this rule comes from: its entropy threshold
	// and allowlists must accept the secret (gitleaks.go).
	gl *glRule
	// back is the most bytes a match may start before its trigger (0: it
	// starts at the trigger). Such a pattern begins with a lazy skip of at
	// most back bytes and holds the match in group whole; left then applies
	// to the match's first byte.
	back, whole int
	// group is the group redacted; 0 means the first non-empty group after
	// whole, or whole itself when there is none.
	group int
	// assign: the pattern needs an assignment operator (one of = : > | ? ,)
	// after the trigger, past at most assignSkip bytes of name, quotes and
	// space. Checked before the regexp: most keywords in code and prose
	// ("the token", "keyboard") stop there.
	assign bool
	// pre, when set, is a cheap necessary condition for a secret at the
	// trigger, checked before the regexp (precheck.go).
	pre func(s string, pos int) bool
	// assignMin, when not 0, is the fewest bytes of valueByte that must
	// follow the operator (past at most 5 bytes of quotes, space and =).
	assignMin int
	// limit is the longest whole match (counted from the start the pattern
	// runs at), 0 when unbounded: the regexp never reads further.
	limit int
	// tail is the byte class of the greedy loop the redacted group ends
	// with, and tailGroup that group (0: the whole match). A secret that
	// reaches the end of a stream window can only grow by bytes of tail, so
	// Stream may emit the marker at once and drop the rest of the run.
	tail      *[256]bool
	tailGroup int
	// extend: the redacted span goes on over bytes of tail, whatever its
	// group (gitleaks rules, whose patterns often stop inside a token).
	extend bool
	// pem marks the private-key block rule: an open block lasts until its
	// footer, whatever bytes it holds.
	pem bool
	// after: the secret starts past the trigger's last byte (a value after
	// a key or a header name), so a Stream need not hold a trigger that is
	// not yet complete (hold.go).
	after bool
	// lead is where in a match its secret starts at the earliest (hold.go),
	// made with the regexp.
	lead leadPlan
}

// re returns the rule's regexp, anchored at the trigger: compiled once, on
// first use (start-up stays cheap: most children never see a trigger before
// their first turn). A bad pattern panics there; the corpus tests use every
// rule.
func (r *rule) re() *regexp.Regexp {
	r.once.Do(func() {
		flags, pattern := "", r.pattern
		if strings.HasPrefix(pattern, "(?i)") {
			flags, pattern = "(?i)", pattern[4:]
		}
		r.compiled = regexp.MustCompile(flags + `^(?:` + pattern + `)`)
		if re, err := syntax.Parse(r.pattern, syntax.Perl); err == nil {
			r.oneLine = !matchesNL(re)
			r.lead = planLead(r, re)
		}
	})
	return r.compiled
}

// matchesNL reports whether re may match a newline.
func matchesNL(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpAnyChar:
		return true
	case syntax.OpLiteral:
		return slices.Contains(re.Rune, '\n')
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return true
			}
		}
		return false
	}
	return slices.ContainsFunc(re.Sub, matchesNL)
}

var word = class("A-Za-z0-9_")

// boundary is RE2's \b before a word character.
func boundary(b int) bool { return b < 0 || !word[b] }

// scheme accepts "://" after a URL scheme.
func scheme(b int) bool { return b >= 0 && word[b] }

// pathByte is a byte of the directory part of a credential path.
var pathByte = class("~$A-Za-z0-9._/-")

// class returns the byte set of a simple character class body such as
// "A-Za-z0-9_-". A leading '^' negates it.
func class(body string) *[256]bool {
	var t [256]bool
	neg := strings.HasPrefix(body, "^")
	if neg {
		body = body[1:]
	}
	for i := 0; i < len(body); i++ {
		if i+2 < len(body) && body[i+1] == '-' {
			for c := int(body[i]); c <= int(body[i+2]); c++ {
				t[c] = true
			}
			i += 2
			continue
		}
		t[body[i]] = true
	}
	if neg {
		for i := range t {
			t[i] = !t[i]
		}
	}
	return &t
}

var (
	alnum      = class("A-Za-z0-9")
	alnumDash  = class("A-Za-z0-9_-")
	jwtClass   = class("A-Za-z0-9_.-")
	tokenClass = class("A-Za-z0-9._~+/=-")
	// extendClass is what a gitleaks secret is extended over (rule.extend).
	extendClass = class("A-Za-z0-9_+/=-")
	// bareValue is [^\s"',;&] as bytes: RE2's \s is ASCII only, and any
	// non-ASCII byte (valid or not) is part of a rune outside the set.
	bareValue = class("^\t\n\f\r \"',;&")
)

// Header and footer of a private-key block. Both are bounded so that a
// stream can find a footer with a bounded carry.
const (
	pemLabel  = `[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`
	pemFooter = `-----END ` + pemLabel
)

// footerRE finds a private-key block's footer; compiled on first use.
var footerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pemFooter) })

// ownRules are the shapes gitleaks' default rules (gitleaks_rules.go) do
// not cover, or cover less well for a stream: keys by their sk- prefix
// whatever the vendor, private-key blocks (also unterminated ones),
// bearer and authorization headers, URL passwords, secret assignments in
// code and configuration files, connection strings, .netrc and .pgpass
// lines, registry auth, and credential file paths. redact_test.go holds
// the shapes that must be caught and the look-alikes that must survive.
var ownRules = []*rule{
	{name: "sk-key", triggers: []string{"sk-"}, left: boundary,
		pattern: `sk-[A-Za-z0-9_-]{20,}`, tail: alnumDash},
	// A JWT is caught from its header and the first bytes of its payload,
	// then the whole dotted run goes: long tokens never outgrow the stream.
	{name: "jwt", triggers: []string{"eyJ"}, left: boundary,
		pattern: `eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}[A-Za-z0-9_.-]*`, tail: jwtClass},
	// An unterminated block is redacted to the end of the text.
	{name: "private-key", triggers: []string{"-----BEGIN "}, pem: true,
		pattern: `-----BEGIN ` + pemLabel + `(?s:.*?)(?:` + pemFooter + `|\z)`},
	{name: "bearer", after: true, triggers: []string{"bearer"}, fold: true, left: boundary,
		pattern: `(?i)bearer[ \t]+([A-Za-z0-9._~+/=-]+)`,
		valid:   credential(16), tail: tokenClass, tailGroup: 1},
	{name: "authorization", after: true, triggers: []string{"authorization"}, fold: true, left: boundary,
		pattern: `(?i)authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:basic|bearer|token|digest|negotiate|apikey)[ \t]+)?([A-Za-z0-9._~+/=-]+)`,
		valid:   credential(8), tail: tokenClass, tailGroup: 1},
	// user:password@ in a URL: only the password goes.
	{name: "url-password", after: true, triggers: []string{"://"}, left: scheme,
		pattern: `://[^\s/?#@:"'<>]+:([^\s/?#@"'<>]+)@`,
		valid:   secretValue},
	// key = value, key: value, "key": "value", key := value in code, env
	// files, INI, TOML, YAML and JSON, where the key ends in one of the
	// secret words, maybe followed by key or value (DB_PASSWORD,
	// client_secret, SECRET_KEY, _authToken); only the value goes.
	{name: "assignment", fold: true,
		triggers: []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "api_key", "api-key",
			"accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "credential"},
		pattern: `(?i)(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)(?:[_.-]?(?:key|value))?["']?[ \t]*(?::=|=>|[:=])[ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"',;&]+))`,
		valid:   secretValue, check: notProse, tail: bareValue, tailGroup: 3, assign: true, pre: assignPre},
	// Connection strings: Azure's AccountKey= and SharedAccessKey=, ODBC
	// and ADO.NET Pwd= (Password= is an assignment above).
	{name: "connection-string", after: true, fold: true, left: boundary,
		triggers: []string{"accountkey", "sharedaccesskey", "pwd="},
		pattern:  `(?i)(?:accountkey|sharedaccesskey|pwd)[ \t]*=[ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s;"'<>]+))`,
		valid:    secretValue},
	// .netrc: machine HOST login USER password SECRET, on one line or many.
	{name: "netrc", after: true, fold: true, left: boundary, triggers: []string{"machine", "login"},
		pattern: `(?i)(?:machine[ \t\r\n]+\S+[ \t\r\n]+)?(?:login[ \t\r\n]+\S+[ \t\r\n]+)?(?:account[ \t\r\n]+\S+[ \t\r\n]+)?password[ \t\r\n]+(\S+)`,
		valid:   secretValue},
	// .pgpass: hostname:port:database:username:password, found at its port.
	{name: "pgpass", after: true, triggers: []string{":5432:", ":5433:", ":*:"}, back: 64, whole: 1, group: 2, limit: 64 + 256,
		left:    func(b int) bool { return b < 0 || b == '\n' || b == ' ' || b == '\t' },
		pattern: `(?s:.){0,64}?([A-Za-z0-9._*-]+:(?:[0-9]{1,5}|\*):[^:\s]+:[^:\s]+:([^\s]{1,200}))`,
		valid:   secretValue},
	// Registry auth: Docker's config.json "auth": "<base64 user:token>",
	// npm's _auth=, and a password on a docker or pip command line.
	{name: "registry-auth", after: true, fold: true, triggers: []string{`"auth"`, "_auth", "--password"},
		pattern: `(?i)(?:"auth"[ \t]*:[ \t]*"([A-Za-z0-9+/=_-]{8,})"|_auth[ \t]*=[ \t]*"?([A-Za-z0-9+/=_-]{8,})|--password(?:=|[ \t]+)["']?([^\s"']+))`,
		valid:   secretValue},
	// Stripe's webhook signing secret (gitleaks knows its API keys only).
	{name: "stripe-webhook-secret", triggers: []string{"whsec_"},
		pattern: `whsec_[A-Za-z0-9+/=]{24,}`, tail: alnum},
	// Credential files: the whole path, directory included, goes.
	{name: "credential-path", path: true,
		triggers: []string{".aws/", ".ssh/", ".netrc", ".npmrc", ".pypirc", ".pgpass", ".git-credentials", ".docker/config", ".kube/config"},
		pattern:  `(?:\.aws/(?:credentials|config)|\.ssh/[A-Za-z0-9._-]+|\.netrc|\.npmrc|\.pypirc|\.pgpass|\.git-credentials|\.docker/config\.json|\.kube/config)\b`},
	{name: "credential-file", path: true, left: func(b int) bool { return boundary(b) || b == '/' },
		triggers: []string{"auth.json", "credentials.json", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"},
		pattern:  `(?:auth\.json|credentials\.json|id_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?)\b`},
}

// rules are our own rules, then gitleaks'. Overlapping matches of several
// rules merge into one span.
var rules = append(ownRules, gitleaksTable()...)

// credential accepts header credentials of at least min bytes that are not
// a plain lowercase word ("Bearer authentication-scheme" stays prose).
func credential(min int) func(string) bool {
	return func(s string) bool {
		if len(s) < min {
			return false
		}
		for i := 0; i < len(s); i++ {
			if c := s[i]; (c < 'a' || c > 'z') && c != '-' {
				return true
			}
		}
		return false
	}
}

// notProse rejects an unquoted value of lowercase letters that a space and
// more text follow: "invalid token: signature is invalid" is a sentence.
func notProse(s string, _, sp span) bool {
	if sp.group != 3 || sp.end+1 >= len(s) || s[sp.end] != ' ' {
		return true
	}
	for i := sp.start; i < sp.end; i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return true
		}
	}
	return false
}

// placeholders are assignment values that are certainly not secrets.
var placeholders = map[string]bool{
	"null": true, "nil": true, "none": true, "true": true, "false": true,
	"undefined": true, "required": true, "optional": true, "string": true,
	"changeme": true, "change_me": true, "change-me": true, "changeit": true, "placeholder": true,
	"secret": true, "password": true, "token": true, "redacted": true, "example": true, "test": true,
}

// secretValue rejects values that are references or code rather than
// secrets: ${VAR}, $VAR, %VAR%, <your-token>, {{ template }}, calls,
// indexing, dotted names (settings.SECRET_KEY), placeholders (changeme,
// xxxx, YOUR_API_KEY, your-secret-here), what gitleaks' global allowlist
// allows, and base64 of ordinary text. The marker itself is not redacted
// again.
func secretValue(v string) bool {
	switch {
	case v == "", strings.Contains(v, Marker):
		return false
	case strings.ContainsAny(v[:1], "$%<{*["), strings.ContainsAny(v, "()[]"):
		return false
	case placeholder(v), reference(v), globallyAllowed(v), ordinaryBase64(v):
		return false
	}
	return true
}

// placeholder reports documentation values: a placeholder word, a run of
// one character, or a value that starts with "your".
func placeholder(v string) bool {
	if len(v) > 64 {
		return false
	}
	var buf [64]byte
	l := buf[:len(v)]
	same := true
	for i := 0; i < len(v); i++ {
		l[i] = lower[v[i]]
		same = same && l[i] == l[0]
	}
	return same || placeholders[string(l)] || bytes.HasPrefix(l, []byte("your")) || bytes.HasPrefix(l, []byte("<")) ||
		bytes.Contains(l, []byte("xxxx")) || bytes.Contains(l, []byte("changeme")) || bytes.Contains(l, []byte("placeholder"))
}

// reference reports a dotted name such as settings.SECRET_KEY or
// process.env.TOKEN: code that reads a secret, not the secret.
func reference(v string) bool {
	seg, dots := 0, 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '.':
			if seg == 0 {
				return false
			}
			seg, dots = 0, dots+1
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || seg > 0 && '0' <= c && c <= '9':
			if seg++; seg > 32 {
				return false
			}
		default:
			return false
		}
	}
	return dots > 0 && seg > 0
}

// ordinaryBase64 reports standard base64 that decodes to printable ASCII
// prose (words and spaces): an encoded sentence, not a key.
func ordinaryBase64(v string) bool {
	if len(v) < 8 || len(v)%4 != 0 || len(v) > 4096 {
		return false
	}
	d, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return false
	}
	spaces, letters := 0, 0
	for _, c := range d {
		switch {
		case c == ' ':
			spaces++
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			letters++
		case c < 0x20 || c >= 0x7f:
			return false
		}
	}
	return spaces > 0 && letters+spaces >= len(d)*8/10
}
