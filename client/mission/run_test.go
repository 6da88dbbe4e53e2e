package mission

import "testing"

// TestNoColor: NO_COLOR set to anything but the empty string turns colour
// off (no-color.org), not only the values a boolean parser takes.
func TestNoColor(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  bool
	}{{"", false}, {"1", true}, {"0", true}, {"false", true}, {"yes", true}, {" ", true}} {
		getenv := func(k string) string {
			if k == "NO_COLOR" {
				return tc.value
			}
			return ""
		}
		if got := noColor(getenv); got != tc.want {
			t.Errorf("noColor(NO_COLOR=%q) = %t; want %t", tc.value, got, tc.want)
		}
	}
}
