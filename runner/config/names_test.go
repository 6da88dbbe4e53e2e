package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSafeName(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"fixture", true},
		{"fixture-model", true},
		{"gpt-4.1-mini", true},
		{"claude-sonnet-4-5@20250929", true},
		{"org/model:latest", true},
		{strings.Repeat("m", 256), true},
		{strings.Repeat("m", 257), false},
		{"", false},
		{"sk-abc", false},
		{"sk-proj-abcdefghijklmnopqrstuvwxyz0123", false},
		{"SK-ABCDEF", false},
		{"model-sk-abcdefghijklmnopqrstuv", false},
		{"Bearer abcdefghijklmnopqrstuvwxyz", false},
		{"Bearer abc", false},
		{"bearer:abc", false},
		{"model\x00", false},
		{"mo\ndel", false},
		{"model\x1b[31m", false},
		{"mo\u0085del", false},
		{"mo\u2028del", false},
		{"two words", false},
		{"bad\xffutf8", false},
		{"[REDACTED]", false},
		{"-----BEGIN-PRIVATE-KEY", false},
	}
	for _, tc := range tests {
		got, ok := SafeName(tc.in)
		if ok != tc.ok || (ok && got != tc.in) || (!ok && got != "") {
			t.Errorf("SafeName(%q) = %q, %v; want ok=%v", tc.in, got, ok, tc.ok)
		}
	}
}

func TestCredentialMasked(t *testing.T) {
	c := Credential{Kind: CredentialOAuth, AccessToken: "secret-access", RefreshToken: "secret-refresh", ExpiresAt: time.Unix(1, 0)}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		if s := fmt.Sprintf(format, c); strings.Contains(s, "secret") {
			t.Errorf("Sprintf(%q) = %q leaks the credential", format, s)
		}
	}
	snap := Snapshot{Credential: Credential{Kind: CredentialAPIKey, APIKey: "secret-key"}}
	if s := fmt.Sprintf("%+v", snap); strings.Contains(s, "secret-key") {
		t.Errorf("Sprintf(snapshot) leaks the credential: %q", s)
	}
}

func TestFrontMatter(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string]any
		wantBody string
		err      bool
	}{
		{"none", "body", nil, "body", false},
		{"empty", "---\n---\nbody", map[string]any{}, "body", false},
		{"crlf", "---\r\nname: a\r\n---\r\nbody", map[string]any{"name": "a"}, "body", false},
		{"scalars", "---\nname: a\ndescription: \"x: y\"\nmodel: 'it''s'\nmode: primary # trailing\n---\n", map[string]any{"name": "a", "description": "x: y", "model": "it's", "mode": "primary"}, "", false},
		{"flow list", "---\ntools: [a, \"b, c\", 'd']\n---\n", map[string]any{"tools": []string{"a", "b, c", "d"}}, "", false},
		{"empty flow list", "---\ntools: []\n---\n", map[string]any{"tools": []string{}}, "", false},
		{"block list", "---\ntools:\n  - a\n  - \"b\"\n---\n", map[string]any{"tools": []string{"a", "b"}}, "", false},
		{"block scalar", "---\ndescription: >\n  one\n  two\n---\n", map[string]any{"description": "one two"}, "", false},
		{"comment lines", "---\n# c\nname: a\n\n---\n", map[string]any{"name": "a"}, "", false},
		{"key without value", "---\nname:\n---\n", map[string]any{"name": ""}, "", false},
		{"unclosed", "---\nname: a\n", nil, "", true},
		{"nested map", "---\nperm:\n  read: yes\n---\n", nil, "", true},
		{"flow map", "---\nperm: {a: b}\n---\n", nil, "", true},
		{"duplicate", "---\nname: a\nname: b\n---\n", nil, "", true},
		{"not key value", "---\njust words\n---\n", nil, "", true},
		{"unclosed list", "---\ntools: [a, b\n---\n", nil, "", true},
		{"bad quote", "---\nname: \"a\n---\n", nil, "", true},
		{"value then indent", "---\nname: a\n  more\n---\n", nil, "", true},
		{"anchor", "---\nname: &x a\n---\n", nil, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fm, body, has, err := splitFrontMatter([]byte(tc.in))
			var meta map[string]any
			if err == nil && has {
				meta, err = parseFrontMatter(fm)
			}
			if (err != nil) != tc.err {
				t.Fatalf("parse(%q) error = %v; want error %v", tc.in, err, tc.err)
			}
			if tc.err {
				return
			}
			if tc.want != nil && !reflect.DeepEqual(meta, tc.want) {
				t.Errorf("parse(%q) = %#v; want %#v", tc.in, meta, tc.want)
			}
			if string(body) != tc.wantBody {
				t.Errorf("body = %q; want %q", body, tc.wantBody)
			}
		})
	}
}
