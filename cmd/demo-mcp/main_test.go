package main

import (
	"slices"
	"strings"
	"testing"
)

func TestSearch(t *testing.T) {
	notes := []note{
		{"a.md", "Release on Friday.\nBlocker: a flaky test.\n"},
		{"b.md", "release NOTES by Ana\n\nnothing else\n"},
	}
	tests := []struct {
		name, query string
		limit       int
		want        []string
	}{
		{"case-insensitive", "release", 10, []string{"a.md: Release on Friday.", "b.md: release NOTES by Ana"}},
		{"every word", "release notes", 10, []string{"b.md: release NOTES by Ana"}},
		{"limit", "release", 1, []string{"a.md: Release on Friday."}},
		{"empty query matches every nonempty line", "", 10, []string{
			"a.md: Release on Friday.", "a.md: Blocker: a flaky test.", "b.md: release NOTES by Ana", "b.md: nothing else"}},
		{"no match", "tuesday", 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := search(notes, tt.query, tt.limit); !slices.Equal(got, tt.want) {
				t.Errorf("search(%q, %d) = %q; want %q", tt.query, tt.limit, got, tt.want)
			}
		})
	}
}

// The demo's compaction depends on the standup search being large: keep
// it about 7 KB (see contextWindow in cmd/demo).
func TestStandupsSize(t *testing.T) {
	got := strings.Join(search(notebook(), "standup", maxLimit), "\n")
	if n := len(got); n < 7000 || n > 8000 {
		t.Errorf("standup search is %d bytes; want 7000-8000", n)
	}
}
