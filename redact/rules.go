package redact

import (
	"regexp"
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
	// re returns the regexp that matches at the trigger, anchored by
	// compile and compiled on first use (start-up stays cheap: most children
	// never see a trigger before their first turn).
	re func() *regexp.Regexp
	// left, when set, must accept the byte before the trigger (-1 at the
	// start of the text): a word boundary, a URL scheme.
	left func(b int) bool
	// path extends the match back over the directory that holds the file.
	path bool
	// valid, when set, must accept the redacted text or the match is kept.
	valid func(string) bool
	// tail is the byte class of the greedy loop the redacted group ends
	// with, and tailGroup that group (0: the whole match). A secret that
	// reaches the end of a stream window can only grow by bytes of tail, so
	// Stream may emit the marker at once and drop the rest of the run.
	tail      *[256]bool
	tailGroup int
	// pem marks the private-key block rule: an open block lasts until its
	// footer, whatever bytes it holds.
	pem bool
}

// compile anchors a rule pattern at the trigger. The pattern is compiled
// once, on first use; a bad pattern panics there (the corpus tests use
// every rule).
func compile(pattern string) func() *regexp.Regexp {
	flags := ""
	if strings.HasPrefix(pattern, "(?i)") {
		flags, pattern = "(?i)", pattern[4:]
	}
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(flags + `^(?:` + pattern + `)`) })
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
	alnum        = class("A-Za-z0-9")
	alnumUS      = class("A-Za-z0-9_")
	alnumDash    = class("A-Za-z0-9_-")
	slackClass   = class("A-Za-z0-9-")
	jwtClass     = class("A-Za-z0-9_.-")
	tokenClass   = class("A-Za-z0-9._~+/=-")
	hexLower     = class("a-f0-9")
	hexAny       = class("a-fA-F0-9")
	webhookClass = class("A-Za-z0-9/_-")
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

var footerRE = regexp.MustCompile(pemFooter)

// Distinctive prefixes with a long minimum length need no word boundary
// ("xghp_..." is still a token); short or common ones keep \b ("task-list").
//
// rules is the corpus of secret shapes; redact_test.go holds the shapes
// that must be caught and the look-alikes that must survive. At most 64
// rules (the prefilter keeps a uint64 mask).
var rules = []*rule{
	{name: "openai-anthropic", triggers: []string{"sk-"}, left: boundary,
		re: compile(`sk-[A-Za-z0-9_-]{20,}`), tail: alnumDash},
	{name: "stripe", triggers: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_"},
		re: compile(`(?:(?:sk|rk)_(?:live|test)_|whsec_)[A-Za-z0-9]{16,}`), tail: alnum},
	{name: "github", triggers: []string{"ghp_", "gho_", "ghs_", "ghu_", "ghr_"},
		re: compile(`gh[pousr]_[A-Za-z0-9]{30,}`), tail: alnum},
	{name: "github-pat", triggers: []string{"github_pat_"},
		re: compile(`github_pat_[A-Za-z0-9_]{30,}`), tail: alnumUS},
	{name: "gitlab", triggers: []string{"glpat-", "glrt-", "gldt-"},
		re: compile(`gl(?:pat|rt|dt)-[A-Za-z0-9_-]{20,}`), tail: alnumDash},
	{name: "slack", triggers: []string{"xoxa-", "xoxb-", "xoxo-", "xoxp-", "xoxr-", "xoxs-"},
		re: compile(`xox[abposr]-[A-Za-z0-9-]{10,}`), tail: slackClass},
	{name: "slack-webhook", triggers: []string{"hooks.slack.com/"},
		re: compile(`hooks\.slack\.com/(?:services|workflows)/([A-Za-z0-9/_-]{8,})`), tail: webhookClass, tailGroup: 1},
	{name: "aws-key-id", triggers: []string{"AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ABIA", "ACCA"}, left: boundary,
		re: compile(`[A-Z]{4}[A-Z0-9]{16}\b`)},
	{name: "google", triggers: []string{"AIza"},
		re: compile(`AIza[A-Za-z0-9_-]{30,}`), tail: alnumDash},
	{name: "npm", triggers: []string{"npm_"},
		re: compile(`npm_[A-Za-z0-9]{30,}`), tail: alnum},
	{name: "huggingface", triggers: []string{"hf_"},
		re: compile(`hf_[A-Za-z0-9]{30,}`), tail: alnum},
	{name: "digitalocean", triggers: []string{"dop_v1_", "doo_v1_", "dor_v1_"},
		re: compile(`do[opr]_v1_[a-f0-9]{32,}`), tail: hexLower},
	{name: "shopify", triggers: []string{"shpat_", "shpss_", "shpca_", "shppa_"},
		re: compile(`shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32,}`), tail: hexAny},
	{name: "pypi", triggers: []string{"pypi-AgE"},
		re: compile(`pypi-AgE[A-Za-z0-9_-]{32,}`), tail: alnumDash},
	{name: "sendgrid", triggers: []string{"SG."}, left: boundary,
		re: compile(`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`), tail: alnumDash},
	// A JWT is caught from its header and the first bytes of its payload,
	// then the whole dotted run goes: long tokens never outgrow the stream.
	{name: "jwt", triggers: []string{"eyJ"}, left: boundary,
		re: compile(`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}[A-Za-z0-9_.-]*`), tail: jwtClass},
	// An unterminated block is redacted to the end of the text.
	{name: "private-key", triggers: []string{"-----BEGIN "}, pem: true,
		re: compile(`-----BEGIN ` + pemLabel + `(?s:.*?)(?:` + pemFooter + `|\z)`)},
	{name: "bearer", triggers: []string{"bearer"}, fold: true, left: boundary,
		re:    compile(`(?i)bearer[ \t]+([A-Za-z0-9._~+/=-]+)`),
		valid: credential(16), tail: tokenClass, tailGroup: 1},
	{name: "authorization", triggers: []string{"authorization"}, fold: true, left: boundary,
		re:    compile(`(?i)authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:basic|bearer|token|digest|negotiate|apikey)[ \t]+)?([A-Za-z0-9._~+/=-]+)`),
		valid: credential(8), tail: tokenClass, tailGroup: 1},
	// user:password@ in a URL: only the password goes.
	{name: "url-password", triggers: []string{"://"}, left: scheme,
		re:    compile(`://[^\s/?#@:"'<>]+:([^\s/?#@"'<>]+)@`),
		valid: func(v string) bool { return v != Marker }},
	// key = value, key: value, "key": "value", where the key ends in one of
	// the secret words (DB_PASSWORD, client_secret, _authToken); only the
	// value goes.
	{name: "assignment", fold: true,
		triggers: []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "api_key", "api-key",
			"accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "credential"},
		re:    compile(`(?i)(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)["']?[ \t]*(?::=|=>|[:=])[ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"',;&]+))`),
		valid: secretValue, tail: bareValue, tailGroup: 3},
	// Credential files: the whole path, directory included, goes.
	{name: "credential-path", path: true,
		triggers: []string{".aws/", ".ssh/", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".docker/config", ".kube/config"},
		re:       compile(`(?:\.aws/(?:credentials|config)|\.ssh/[A-Za-z0-9._-]+|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.docker/config\.json|\.kube/config)\b`)},
	{name: "credential-file", path: true, left: func(b int) bool { return boundary(b) || b == '/' },
		triggers: []string{"auth.json", "credentials.json", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"},
		re:       compile(`(?:auth\.json|credentials\.json|id_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?)\b`)},
}

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

// placeholders are assignment values that are certainly not secrets.
var placeholders = map[string]bool{
	"null": true, "nil": true, "none": true, "true": true, "false": true,
	"undefined": true, "required": true, "optional": true, "string": true,
}

// secretValue rejects values that are references or code rather than
// secrets: ${VAR}, $VAR, %VAR%, <your-token>, calls, and placeholders.
// The marker itself is not redacted again.
func secretValue(v string) bool {
	switch {
	case v == Marker, placeholders[strings.ToLower(v)]:
		return false
	case strings.ContainsAny(v[:1], "$%<{*"), strings.Contains(v, "("), strings.HasPrefix(v, "["):
		return false
	}
	return true
}
