package runner

import "testing"

// TestCompactCommand: the prompt is the built-in when it is /compact,
// after white space, alone or followed by white space and instructions.
func TestCompactCommand(t *testing.T) {
	for _, tt := range []struct {
		prompt, instructions string
		ok                   bool
	}{
		{"/compact", "", true},
		{"/compact\n", "", true},
		{" \n/compact  keep names \n", "keep names", true},
		{"/compact\tfocus", "focus", true},
		{"/compact\u00a0focus", "focus", true},
		{"/compactor", "", false},
		{"/compact/x", "", false},
		{"please /compact", "", false},
		{"compact", "", false},
		{"/Compact", "", false},
		{"", "", false},
	} {
		got, ok := CompactCommand(tt.prompt)
		if got != tt.instructions || ok != tt.ok {
			t.Errorf("CompactCommand(%q) = %q, %v; want %q, %v", tt.prompt, got, ok, tt.instructions, tt.ok)
		}
	}
}
