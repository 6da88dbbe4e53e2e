package jsonenc

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestUnescape(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
		n    int
		ok   bool
	}{
		{"quote", `\"rest`, `"`, 2, true},
		{"backslash", `\\`, `\`, 2, true},
		{"solidus", `\/`, `/`, 2, true},
		{"b", `\b`, "\b", 2, true},
		{"f", `\f`, "\f", 2, true},
		{"n", `\n`, "\n", 2, true},
		{"r", `\r`, "\r", 2, true},
		{"t", `\t`, "\t", 2, true},
		{"ascii u", `\u0031x`, "1", 6, true},
		{"nul u", `\u0000`, "\x00", 6, true},
		{"upper hex", `\u00E9`, "é", 6, true},
		{"lower hex", `\u00e9`, "é", 6, true},
		{"bmp", `\u20ac`, "€", 6, true},
		{"last before surrogates", `\ud7ff`, "\ud7ff", 6, true},
		{"first after surrogates", `\ue000`, "\ue000", 6, true},
		{"pair", `\ud83d\ude00rest`, "😀", 12, true},
		{"pair upper", `\uD83D\uDE00`, "😀", 12, true},
		{"unknown letter", `\x`, "", 0, false},
		{"escaped apostrophe", `\'`, "", 0, false},
		{"short", `\`, "", 0, false},
		{"not an escape", `ab`, "", 0, false},
		{"short hex", `\u12`, "", 0, false},
		{"bad hex", `\u12g4`, "", 0, false},
		{"lone low", `\udc00`, "", 0, false},
		{"lone high at end", `\ud83d`, "", 0, false},
		{"high then text", `\ud83dabcdef`, "", 0, false},
		{"high then other escape", `\ud83d\n0000`, "", 0, false},
		{"high then high", `\ud83d\ud83d`, "", 0, false},
		{"high then bmp", `\ud83d\u0041`, "", 0, false},
		{"high then short hex", `\ud83d\ude0`, "", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, n, ok := Unescape([]byte("pre"), []byte(tc.in))
			want := "pre" + tc.want
			if string(got) != want || n != tc.n || ok != tc.ok {
				t.Errorf("Unescape(%q) = %q, %d, %v; want %q, %d, %v", tc.in, got, n, ok, want, tc.n, tc.ok)
			}
			if n, ok := Len([]byte(tc.in)); n != tc.n || ok != tc.ok {
				t.Errorf("Len(%q) = %d, %v; want %d, %v", tc.in, n, ok, tc.n, tc.ok)
			}
		})
	}
}

// FuzzUnescape checks Unescape against encoding/json on one escape: both
// accept the same escapes (encoding/json replaces lone surrogates, which
// we refuse) and decode them alike.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`\n`, `\u0041`, `\ud83d\ude00`, `\udc00`, `\ud83d\u0041`, `\q`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, n, ok := Unescape(nil, []byte(in))
		if ln, lok := Len([]byte(in)); ln != n || lok != ok {
			t.Fatalf("Len(%q) = %d, %v; Unescape took %d, %v", in, ln, lok, n, ok)
		}
		if !ok {
			if n != 0 || len(got) != 0 {
				t.Fatalf("Unescape(%q) refused with %q, %d", in, got, n)
			}
			return
		}
		if n < 2 || n > len(in) || !utf8.Valid(got) {
			t.Fatalf("Unescape(%q) = %q, %d", in, got, n)
		}
		var want string
		if err := json.Unmarshal([]byte(`"`+in[:n]+`"`), &want); err != nil {
			t.Fatalf("Unescape accepted %q; encoding/json: %v", in[:n], err)
		}
		if string(got) != want {
			t.Fatalf("Unescape(%q) = %q; encoding/json %q", in[:n], got, want)
		}
	})
}
