package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readBounded reads a file of exactly MaxFileBytes whole and refuses one
// byte more.
func TestReadBoundedAtTheBound(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		n  int
		ok bool
	}{{MaxFileBytes, true}, {MaxFileBytes + 1, false}} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(strings.Repeat("x", tc.n)), 0o600); err != nil {
			t.Fatal(err)
		}
		data, _, err := readBounded(p)
		if tc.ok && (err != nil || len(data) != tc.n) {
			t.Errorf("%d bytes: %d, %v; want all of them", tc.n, len(data), err)
		}
		if !tc.ok && !errors.Is(err, errTooLarge) {
			t.Errorf("%d bytes: %d, %v; want errTooLarge", tc.n, len(data), err)
		}
	}
}

// nearest suggests a field within two edits, the closest first and, among
// equally close ones, the first in byte order whatever the map's order;
// three edits away is no suggestion.
func TestNearestField(t *testing.T) {
	fields := map[string]reflect.Type{"provider": nil, "abcd": nil, "abce": nil, "model": nil}
	for _, tc := range []struct{ key, want string }{
		{"modle", "model"},     // a swap
		{"provid", "provider"}, // two deletions
		{"provi", ""},          // three
		{"abcf", "abcd"},       // one edit from abcd and from abce
	} {
		for range 50 { // map order changes from call to call
			if got := nearest(tc.key, fields); got != tc.want {
				t.Fatalf("nearest(%q) = %q; want %q", tc.key, got, tc.want)
			}
		}
	}
}
