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

// Front matter is YAML: what Claude Code, Codex and the Agent Skills format
// write (folded and literal scalars, nested maps, anchors, comments) reads;
// text and list take strings and lists of strings; what does not parse, or
// a key given twice, names its file line.
func TestFrontMatter(t *testing.T) {
	tests := []struct {
		name, in string
		text     map[string]string   // key: want from text
		list     map[string][]string // key: want from list
		wantBody string
		errLine  int // >0: parse error at this file line
	}{
		{"none", "body", nil, nil, "body", 0},
		{"empty", "---\n---\nbody", map[string]string{"name": ""}, nil, "body", 0},
		{"crlf", "---\r\nname: a\r\n---\r\nbody", map[string]string{"name": "a"}, nil, "body", 0},
		{"scalars", "---\nname: a\ndescription: \"x: y\"\nmodel: 'it''s'\nmode: primary # trailing\nn: 12\n---\n",
			map[string]string{"name": "a", "description": "x: y", "model": "it's", "mode": "primary", "n": "12"}, nil, "", 0},
		{"folded", "---\ndescription: >-\n  one\n  two\n\n  three\n---\n", map[string]string{"description": "one two\nthree"}, nil, "", 0},
		{"literal", "---\ndescription: |\n  one\n  two\n---\n", map[string]string{"description": "one\ntwo\n"}, nil, "", 0},
		{"claude skill", "---\nname: pdf\ndescription: >-\n  Extracts text\n  from PDFs.\nlicense: Apache-2.0\nallowed-tools: Read Grep\nmetadata:\n  version: \"1.0\"\n  tags: [a, b]\n---\nbody",
			map[string]string{"name": "pdf", "description": "Extracts text from PDFs.", "license": "Apache-2.0"}, nil, "body", 0},
		{"flow list", "---\ntools: [a, \"b, c\", 'd']\n---\n", nil, map[string][]string{"tools": {"a", "b, c", "d"}}, "", 0},
		{"empty flow list", "---\ntools: []\n---\n", nil, map[string][]string{"tools": {}}, "", 0},
		{"block list", "---\ntools:\n  - a\n  - \"b\"\n---\n", nil, map[string][]string{"tools": {"a", "b"}}, "", 0},
		{"comma string list", "---\ntools: Read, Grep ,Bash\n---\n", nil, map[string][]string{"tools": {"Read", "Grep", "Bash"}}, "", 0},
		{"anchor and alias", "---\nname: &x a\nmodel: *x\n---\n", map[string]string{"name": "a", "model": "a"}, nil, "", 0},
		{"comment lines", "---\n# c\nname: a\n\n---\n", map[string]string{"name": "a"}, nil, "", 0},
		{"key without value", "---\nname:\n---\n", map[string]string{"name": ""}, map[string][]string{"name": nil}, "", 0},
		{"unclosed", "---\nname: a\n", nil, nil, "", 1},
		{"duplicate", "---\nname: a\nname: b\n---\n", nil, nil, "", 3},
		{"not a mapping", "---\njust words\n---\n", nil, nil, "", 2},
		{"a list", "---\n- a\n---\n", nil, nil, "", 2},
		// The parser's line for an unfinished construct is where its
		// context began, counted as go.yaml.in/yaml counts it.
		{"unclosed list", "---\nname: a\ntools: [a, b\n---\n", nil, nil, "", 2},
		{"bad quote", "---\nname: a\nx: \"a\n---\n", nil, nil, "", 3},
		{"tab indent", "---\nname: a\nmeta:\n\tk: v\n---\n", nil, nil, "", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fm, body, has, err := splitFrontMatter([]byte(tc.in))
			var meta frontMatter
			if err == nil && has {
				meta, err = parseFrontMatter(fm)
			}
			if tc.errLine > 0 {
				if err == nil || lineOf(err) != tc.errLine {
					t.Fatalf("parse(%q) error = %v (line %d); want an error at line %d", tc.in, err, lineOf(err), tc.errLine)
				}
				return
			}
			if err != nil {
				t.Fatalf("parse(%q): %v", tc.in, err)
			}
			for k, want := range tc.text {
				if got, err := meta.text(k); err != nil || got != want {
					t.Errorf("text(%s) = %q, %v; want %q", k, got, err, want)
				}
			}
			for k, want := range tc.list {
				if got, err := meta.list(k); err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("list(%s) = %#v, %v; want %#v", k, got, err, want)
				}
			}
			if string(body) != tc.wantBody {
				t.Errorf("body = %q; want %q", body, tc.wantBody)
			}
		})
	}
	// A value of the wrong shape is an error naming its line.
	meta, err := parseFrontMatter("name: a\ndescription:\n  k: v\ntools:\n  - {a: b}\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := meta.text("description"); lineOf(err) != 4 {
		t.Errorf("text of a mapping: %v; want an error at line 4", err)
	}
	if _, err := meta.list("tools"); lineOf(err) != 6 {
		t.Errorf("list with a mapping item: %v; want an error at line 6", err)
	}
	if _, err := meta.list("description"); lineOf(err) != 4 {
		t.Errorf("list of a mapping: %v; want an error at line 4", err)
	}
}
