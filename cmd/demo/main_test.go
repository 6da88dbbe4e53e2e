package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOneLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"short", "a\nb", "a ⏎ b"},
		{"exactly 100 bytes", strings.Repeat("x", 100), strings.Repeat("x", 100)},
		{"long", strings.Repeat("x", 101), strings.Repeat("x", 100) + "…"},
		{"cut before a rune", strings.Repeat("x", 99) + "é", strings.Repeat("x", 99) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := oneLine(tt.in)
			if got != tt.want || !utf8.ValidString(got) {
				t.Errorf("oneLine(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}
