package redact

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// rep returns n bytes cycling through chars: synthetic key material.
func rep(chars string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[(i*7+3)%len(chars)]
	}
	return string(b)
}

const (
	an  = "aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV"
	hex = "0123456789abcdef"
	up  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

const pemRSA = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\naFDrBz9vFqU4yJ8T3Rk7pZ2QoOs6b8oJzM3nD4x5Yw==\n-----END RSA PRIVATE KEY-----"

// secrets must be redacted to exactly want.
var secrets = []struct{ name, in, want string }{
	{"openai project", "key sk-proj-" + rep(an, 40), "key [REDACTED]"},
	{"openai legacy", "OPENAI sk-" + rep(an, 48) + " end", "OPENAI [REDACTED] end"},
	{"anthropic", "sk-ant-api03-" + rep(an, 80) + "AA", "[REDACTED]"},
	{"github ghp", "ghp_" + rep(an, 36), "[REDACTED]"},
	{"github gho", "token gho_" + rep(an, 36) + ".", "token [REDACTED]."},
	{"github ghs", "(ghs_" + rep(an, 36) + ")", "([REDACTED])"},
	{"github fine-grained", "github_pat_11ABCDEFG0_" + rep(an, 71), "[REDACTED]"},
	{"gitlab", "glpat-" + rep(an, 20) + " x", "[REDACTED] x"},
	{"gitlab runner", "glrt-" + rep(an, 24), "[REDACTED]"},
	{"slack bot", "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "[REDACTED]"},
	{"slack user", "use xoxp-1234567890-1234567890-1234567890-" + rep(hex, 32), "use [REDACTED]"},
	{"slack webhook long", "POST https://hooks.slack.com/services/T01ABCD2EFG/B01HIJK3LMN/" + rep(an, 24), "POST [REDACTED]"},
	{"aws key id", "id AKIAZ7Q3XW5RT2M4KP6N,", "id [REDACTED],"},
	{"aws session id", "ASIA" + rep(up, 16), "[REDACTED]"},
	{"aws secret env", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [REDACTED]"},
	{"aws secret export", "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", "export AWS_SECRET_ACCESS_KEY=[REDACTED]"},
	{"google", "AIza" + rep(an, 35), "[REDACTED]"},
	{"stripe secret", "sk_live_" + rep(an, 24), "[REDACTED]"},
	{"stripe restricted", "rk_live_" + rep(an, 24), "[REDACTED]"},
	{"stripe webhook", "whsec_" + rep(an, 32), "[REDACTED]"},
	{"bearer header", "Authorization: Bearer abc123DEF456ghi789JKL", "Authorization: Bearer [REDACTED]"},
	{"bearer lowercase", "bearer AbCdEf0123456789xyz", "bearer [REDACTED]"},
	{"basic header", "curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA=='", "curl -H 'Authorization: Basic [REDACTED]'"},
	{"proxy basic", "Proxy-Authorization: Basic Zm9vOmJhcg==", "Proxy-Authorization: Basic [REDACTED]"},
	{"jwt", "jwt=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok", "jwt=[REDACTED] ok"},
	{"pem rsa", "key:\n" + pemRSA + "\ndone", "key:\n[REDACTED]\ndone"},
	{"pem openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----", "[REDACTED]"},
	{"pem unterminated", "x -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49", "x [REDACTED]"},
	{"pem pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----", "[REDACTED]"},
	{"npm", "npm_" + rep(an, 36), "[REDACTED]"},
	{"npmrc", "//registry.npmjs.org/:_authToken=npm_" + rep(an, 36), "//registry.npmjs.org/:_authToken=[REDACTED]"},
	{"huggingface", "HF hf_" + rep("qwertyuiopASDFGHJKLzxcvbnmMNBVCXZ", 34), "HF [REDACTED]"},
	{"digitalocean", "dop_v1_" + rep(hex, 64), "[REDACTED]"},
	{"sendgrid", "SG." + rep(an, 22) + "." + rep(an, 43), "[REDACTED]"},
	{"pypi upload", "pypi-AgEIcHlwaS5vcmc" + rep(an, 120), "[REDACTED]"},
	{"shopify", "shpat_" + rep(hex, 32), "[REDACTED]"},
	{"password env", "password=hunter2", "password=[REDACTED]"},
	{"password env quoted", `export DB_PASSWORD="correct horse battery staple"`, `export DB_PASSWORD="[REDACTED]"`},
	{"api key json", `{"api_key": "abcd1234efgh"}`, `{"api_key": "[REDACTED]"}`},
	{"token env", "GITHUB_TOKEN=abc123", "GITHUB_TOKEN=[REDACTED]"},
	{"secret yaml", "client_secret: 'shh-its-a-secret'", "client_secret: '[REDACTED]'"},
	{"passwd json", `{"passwd":"p@ss w0rd"}`, `{"passwd":"[REDACTED]"}`},
	{"api key header", "X-Api-Key: 0123456789abcdef", "X-Api-Key: [REDACTED]"},
	{"go assignment", `token := "s3cr3t-value"`, `token := "[REDACTED]"`},
	{"url password", "https://admin:s3cr3t@db.example.com/x", "https://admin:[REDACTED]@db.example.com/x"},
	{"url mysql", "mysql://root:pw@localhost:3306", "mysql://root:[REDACTED]@localhost:3306"},
	{"aws credentials path", "cat ~/.aws/credentials", "cat [REDACTED]"},
	{"ssh key path", "ssh -i ~/.ssh/id_rsa host", "ssh -i [REDACTED] host"},
	{"auth.json path", "read /home/u/.magi-code/auth.json.", "read [REDACTED]."},
	{"netrc", "edit .netrc now", "edit [REDACTED] now"},
	{"ed25519 pub", "id_ed25519.pub", "[REDACTED]"},
	{"docker config", "$HOME/.docker/config.json", "[REDACTED]"},
	{"git credentials", "~/.git-credentials", "[REDACTED]"},
	// The four shapes that used to reach the wire, and their families.
	{"azure storage connection string", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + rep(an, 86) + "==;EndpointSuffix=core.windows.net",
		"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=[REDACTED];EndpointSuffix=core.windows.net"},
	{"service bus connection string", "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=" + rep(an, 43) + "=",
		"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=[REDACTED]"},
	{"odbc pwd", "Driver={ODBC Driver 18};Server=db;Uid=app;Pwd=Tr0ub4dor&3x;Encrypt=yes", "Driver={ODBC Driver 18};Server=db;Uid=app;Pwd=[REDACTED];Encrypt=yes"},
	{"ado password", "Server=db;Database=app;User Id=sa;Password=Hx7!kP2qLm;", "Server=db;Database=app;User Id=sa;Password=[REDACTED];"},
	{"docker config auth", `{"auths": {"registry.example.com": {"auth": "ZGVwbG95OmdocF9hQjNjRDRlRjVnSDZpSjdrTDhtTjlvUDA="}}}`,
		`{"auths": {"registry.example.com": {"auth": "[REDACTED]"}}}`},
	{"npmrc _auth", "_auth = ZGVwbG95OnMzY3IzdA==", "_auth = [REDACTED]"},
	{"docker login password", "docker login -u deploy --password Zx9#kQ2wLp registry.example.com", "docker login -u deploy --password [REDACTED] registry.example.com"},
	{"pip index url", "pip install --index-url https://deploy:Zx9kQ2wLpV@pypi.example.com/simple app", "pip install --index-url https://deploy:[REDACTED]@pypi.example.com/simple app"},
	{"django secret key", "[django]\nSECRET_KEY = " + rep(an, 40), "[django]\nSECRET_KEY = [REDACTED]"},
	{"toml client secret", `client_secret = "` + rep(an, 32) + `"`, `client_secret = "[REDACTED]"`},
	{"yaml private key", "private_key: " + rep(an, 24), "private_key: [REDACTED]"},
	{"env auth token", "AUTH_TOKEN=" + rep(an, 24), "AUTH_TOKEN=[REDACTED]"},
	{"netrc one line", "machine api.example.com login deploy password " + rep(an, 22), "machine api.example.com login deploy password [REDACTED]"},
	{"netrc lines", "machine api.example.com\n  login deploy\n  password " + rep(an, 22) + "\n", "machine api.example.com\n  login deploy\n  password [REDACTED]\n"},
	{"pgpass", "db.example.com:5432:app:deploy:" + rep(an, 20) + "\n", "db.example.com:5432:app:deploy:[REDACTED]\n"},
	{"pgpass wildcard", "*:*:*:postgres:" + rep(an, 16), "*:*:*:postgres:[REDACTED]"},
	{"stripe live", "STRIPE=sk_live_" + rep(an, 24), "STRIPE=[REDACTED]"},
	{"gitlab token longer than the pattern", "glrt-" + rep(an, 24), "[REDACTED]"},
	{"two secrets", "a=ghp_" + rep(an, 36) + " b=AKIAZ7Q3XW5RT2M4KP6N", "a=[REDACTED] b=[REDACTED]"},
	// Shapes gitleaks' rules let through: a rule skipped whole because one
	// branch has no literal, and a terminator that '&', ',' or '.' is not.
	{"vault service token", "VAULT hvs." + rep(an, 95) + " ok", "VAULT [REDACTED] ok"},
	{"vault service token longest", "export VAULT_TOKEN=hvs." + rep(an, 120), "export VAULT_TOKEN=[REDACTED]"},
	{"atlassian api token", "use ATATT3" + rep(an, 186) + " now", "use [REDACTED] now"},
	{"sourcegraph token", "sgp_" + rep(hex, 40) + ", done", "[REDACTED], done"},
	{"google key in a url query", "https://maps.googleapis.com/maps/api/js?key=AIza" + rep(an, 35) + "&callback=init",
		"https://maps.googleapis.com/maps/api/js?key=[REDACTED]&callback=init"},
	{"google key ends a sentence", "The key is AIza" + rep(an, 35) + ".", "The key is [REDACTED]."},
	{"stripe key before a comma", "keys sk_live_" + rep(an, 24) + ", rk_live_" + rep(an, 24) + ",", "keys [REDACTED], [REDACTED],"},
	{"slack token in parentheses", "(xoxb-1234567890-1234567890123-" + rep(an, 24) + ")", "([REDACTED])"},
	{"gitlab token in a url query", "https://gitlab.example.com/api/v4/projects?private_token=glpat-" + rep(an, 20) + "&per_page=100",
		"https://gitlab.example.com/api/v4/projects?private_token=[REDACTED]&per_page=100"},
}

// lookalikes must survive String unchanged.
var lookalikes = []string{
	"sk",
	"task-list",
	"skeleton",
	"risk-free sk-learn pipelines",
	"sk-short",
	"sk_test",
	"deadbeef",
	"0f8fad5b-d9cb-469f-a165-70867728950e",
	"83cb9031c5a0e1e6d0e4d8f1b5d2b2a0a2c9f6e1",
	"aGVsbG8gd29ybGQ= is hello world",
	"Use a Bearer token in the header.",
	"Bearer authentication-scheme",
	"Click password reset to continue.",
	"passwordless login",
	"The AKIA prefix marks AWS access key IDs.",
	"id AKIAIOSFODNN7EXAMPLE, the key of the AWS documentation",
	"AKIA1234",
	"ASIA tokens are temporary.",
	"max_tokens: 4096",
	"token_count=17",
	"tokenizer = NewTokenizer()",
	"password: ${DB_PASSWORD}",
	"api_key=<your-key>",
	`password := os.Getenv("PASSWORD")`,
	"secret: null",
	"The secret to good code is simplicity.",
	"my token is abc",
	"http://example.com:8080/path?q=1",
	"ssh://git@github.com/org/repo.git",
	"e-mail: user@example.com",
	"Basic usage: run the basic example",
	"authorization: required",
	"Authorization header missing",
	"Authorization: Bearer",
	"eyJhbGciOiJIUzI1NiJ9",
	"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUY\n-----END CERTIFICATE-----",
	"-----BEGIN PUBLIC KEY-----",
	"ghp_short",
	"xoxo hugs",
	"the hf_hub library",
	"npm_config_cache",
	"oauth.json",
	"credentials are stored encrypted",
	"id_rsa_backup_tool",
	"a .ssh directory",
	"kube config",
	"SG.example",
	"AIza",
	"密码 = 秘密 😀",
	"password reset: see docs",
}

func TestStringCorpus(t *testing.T) {
	if len(secrets) < 30 || len(lookalikes) < 30 {
		t.Fatalf("corpus too small: %d secrets, %d look-alikes", len(secrets), len(lookalikes))
	}
	for _, tc := range secrets {
		t.Run(tc.name, func(t *testing.T) {
			if got := String(tc.in); got != tc.want {
				t.Errorf("String(%q) = %q; want %q", tc.in, got, tc.want)
			}
			if !Contains(tc.in) {
				t.Errorf("Contains(%q) = false; want true", tc.in)
			}
			if got := String(tc.want); got != tc.want {
				t.Errorf("String(%q) = %q; want it unchanged (idempotent)", tc.want, got)
			}
		})
	}
	for _, in := range lookalikes {
		if got := String(in); got != in {
			t.Errorf("String(%q) = %q; want unchanged", in, got)
		}
		if Contains(in) {
			t.Errorf("Contains(%q) = true; want false", in)
		}
	}
}

func TestSummary(t *testing.T) {
	key := "ghp_" + rep(an, 36)
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"short", "hello", 1024, "hello"},
		{"exact", "hello", 5, "hello"},
		{"cut", "hello", 3, "hel"},
		{"zero", "hello", 0, ""},
		{"rune boundary", "a😀b", 4, "a"},
		{"rune fits", "a😀b", 5, "a😀"},
		{"redact before cut", "run " + key + " now", 12, "run [REDACTE"},
		{"secret past cut never leaks a prefix", strings.Repeat("x", 10) + key, 20, "xxxxxxxxxx[REDACTED]"},
		{"no rune start at all", "\x80\x80\x80abc", 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Summary(tc.in, tc.max)
			if got != tc.want {
				t.Errorf("Summary(%q, %d) = %q; want %q", tc.in, tc.max, got, tc.want)
			}
			if len(got) > max(tc.max, 0) || !utf8.ValidString(got) {
				t.Errorf("Summary(%q, %d) = %q: over budget or invalid UTF-8", tc.in, tc.max, got)
			}
		})
	}
}

// FuzzString checks that String never panics, is idempotent, and that
// Summary stays within its budget on a rune boundary.
func FuzzString(f *testing.F) {
	for _, tc := range secrets {
		f.Add(tc.in)
	}
	for _, s := range lookalikes {
		f.Add(s)
	}
	if data, err := os.ReadFile("testdata/lookalikes.txt"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			f.Add(l)
		}
	}
	// Secrets next to keys, values and markers (settle.go).
	f.Add("api_key=aB3cD4eF5gH6iJ7k" + Marker)
	f.Add(Marker + "sk-" + rep(an, 24) + Marker)
	f.Add("KEY=" + rep(an, 10) + "+KEY=01289AB+C7XY")
	f.Add("token: " + Marker + "ghp_" + rep(an, 36) + "\nSECRET0,012789AB")
	f.Fuzz(func(t *testing.T, s string) {
		r := String(s)
		if r2 := String(r); r2 != r {
			t.Fatalf("String not idempotent on %q: %q then %q", s, r, r2)
		}
		if Contains(r) {
			t.Fatalf("Contains(String(%q)) = true", s)
		}
		for _, n := range []int{0, 1, 7, 64} {
			sum := Summary(s, n)
			if len(sum) > n || !strings.HasPrefix(r, sum) {
				t.Fatalf("Summary(%q, %d) = %q", s, n, sum)
			}
			if utf8.ValidString(s) && !utf8.ValidString(sum) {
				t.Fatalf("Summary(%q, %d) = %q: invalid UTF-8", s, n, sum)
			}
		}
	})
}

// TestLookalikeCorpus: ordinary code, logs and diffs, full of trigger words,
// pass through String and Stream byte for byte.
func TestLookalikeCorpus(t *testing.T) {
	data, err := os.ReadFile("testdata/lookalikes.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) < 100 {
		t.Fatalf("%d look-alike lines; want at least 100", len(lines))
	}
	for _, l := range lines {
		if got := String(l); got != l {
			t.Errorf("String(%q) = %q; want it unchanged", l, got)
		}
	}
	all := string(data)
	for _, n := range []int{1, 7, 100, 4000} {
		var deltas []string
		for i := 0; i < len(all); i += n {
			deltas = append(deltas, all[i:min(i+n, len(all))])
		}
		if got := feed(t, deltas); got != all {
			t.Errorf("Stream in deltas of %d changed the corpus", n)
		}
	}
}
