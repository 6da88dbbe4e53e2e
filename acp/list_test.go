package acp

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/history"
)

// TestListPaging: pages of session/list follow history.List's order
// (most recent first, then by ID), ListPageSessions at most, only the
// cwd asked for; paging by the cursor sees every session once when none
// changes, and a session created, deleted or made active between two
// pages neither repeats nor hides the ones that did not change.
func TestListPaging(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var list []history.SessionInfo
	for i := range 2*ListPageSessions + 7 {
		// Threes share a time (a page ends inside one): ties are ordered by ID.
		list = append(list, history.SessionInfo{ID: fmt.Sprintf("s-%03d", i), Cwd: "/w", LastActivity: base.Add(-time.Duration(i/3) * time.Second)})
		if i%10 == 0 {
			list = append(list, history.SessionInfo{ID: fmt.Sprintf("o-%03d", i), Cwd: "/other", LastActivity: base.Add(-time.Duration(i/3) * time.Second)})
		}
	}
	sortLike := func(l []history.SessionInfo) []history.SessionInfo {
		out := append([]history.SessionInfo(nil), l...)
		for i := range out { // insertion sort, in history.List's order
			for j := i; j > 0 && (out[j].LastActivity.After(out[j-1].LastActivity) ||
				out[j].LastActivity.Equal(out[j-1].LastActivity) && out[j].ID < out[j-1].ID); j-- {
				out[j], out[j-1] = out[j-1], out[j]
			}
		}
		return out
	}
	list = sortLike(list)
	noTitle := func(string) string { return "" }
	ids := func(page []obj) (out []string) {
		for _, e := range page {
			out = append(out, e["sessionId"].(string))
		}
		return out
	}
	// pages walks every page, calling between after each but the last.
	pages := func(between func(page int)) (seen []string, n int) {
		var after *listKey
		for {
			page, next := listPage(list, "/w", "/w", after, noTitle)
			if len(page) > ListPageSessions {
				t.Fatalf("page of %d", len(page))
			}
			seen = append(seen, ids(page)...)
			n++
			if next == "" {
				return seen, n
			}
			k, ok := parseListCursor(next)
			if !ok {
				t.Fatalf("cursor %q does not parse", next)
			}
			after = &k
			between(n)
		}
	}
	seen, n := pages(func(int) {})
	if n != 3 || len(seen) != 2*ListPageSessions+7 || seen[0] != "s-000" || seen[len(seen)-1] != fmt.Sprintf("s-%03d", 2*ListPageSessions+6) {
		t.Fatalf("%d pages, %d sessions: %q...", n, len(seen), seen[:3])
	}
	for i, id := range seen {
		if want := fmt.Sprintf("s-%03d", i); id != want {
			t.Fatalf("entry %d is %s, want %s", i, id, want)
		}
	}
	// Between the first two pages: a new session, one of the first page
	// deleted, one of the last page made active (it moves to the front).
	orig := append([]history.SessionInfo(nil), list...)
	seen, _ = pages(func(page int) {
		if page != 1 {
			return
		}
		var l []history.SessionInfo
		for _, s := range list {
			switch s.ID {
			case "s-003":
				continue
			case "s-105":
				s.LastActivity = base.Add(time.Hour)
			}
			l = append(l, s)
		}
		list = sortLike(append(l, history.SessionInfo{ID: "s-new", Cwd: "/w", LastActivity: base.Add(2 * time.Hour)}))
	})
	list = orig
	count := map[string]int{}
	for _, id := range seen {
		count[id]++
	}
	for i := range 2*ListPageSessions + 7 {
		id := fmt.Sprintf("s-%03d", i)
		if want := 1; id == "s-105" {
			want = 0 // active now: at the front, on the page already read
		} else if count[id] != want {
			t.Errorf("%s seen %d times", id, count[id])
		}
	}
	if count["s-105"] > 1 {
		t.Errorf("s-105 seen twice")
	}
}

// TestListCursor: only a cursor of the agent's form parses; a made-up one
// of that form only moves the start.
func TestListCursor(t *testing.T) {
	k := listKey{nanos: 1767225600000000000, id: "0b0c1d2e-3f40-4152-8364-758697a8b9ca"}
	if got, ok := parseListCursor(k.cursor()); !ok || got != k {
		t.Errorf("round trip: %v, %v", got, ok)
	}
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, c := range []string{"", "NTA", enc("50"), enc("x|" + k.id), enc("1|"), enc("1|a/b"), enc("01|" + k.id), enc("+1|" + k.id),
		enc("1|" + k.id + "\n"), k.cursor() + "=", strings.Repeat("A", maxListCursor+1), "!!!!"} {
		if _, ok := parseListCursor(c); ok {
			t.Errorf("cursor %q parsed", c)
		}
	}
}
