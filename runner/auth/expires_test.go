package auth

import (
	"encoding/json"
	"testing"
)

// expires_in is a positive number of seconds, at most ten years, as a
// number or a string; anything else is no expiry (the token is refused).
func TestExpiresIn(t *testing.T) {
	const tenYears = 10 * 365 * 24 * 3600
	for raw, want := range map[string]int64{
		`3600`:      3600,
		`"3600"`:    3600,
		`1`:         1,
		`315360000`: tenYears,
		`0`:         -1,
		`-5`:        -1,
		`315360001`: -1,
		`"soon"`:    -1,
		`3600.5`:    -1,
		`null`:      -1,
	} {
		n, ok := expiresIn(json.RawMessage(raw))
		if want < 0 && ok || want >= 0 && (!ok || n != want) {
			t.Errorf("expiresIn(%s) = %d, %v; want %d", raw, n, ok, want)
		}
	}
}
