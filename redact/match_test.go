package redact

import (
	"strings"
	"testing"
)

// TestPgpassStartsAWord: a .pgpass line is recognised where a line or a
// word starts, not inside a URL, a path or an assignment (the rule's
// match starts before its trigger, and the check applies to its start).
func TestPgpassStartsAWord(t *testing.T) {
	const tail = ":5432:app:deploy:Zx9kQ2wLpVr"
	for _, in := range []string{"x=db.example.com" + tail, "https://db.example.com" + tail, "/var/run/pg" + tail} {
		if got := String(in); got != in {
			t.Errorf("String(%q) = %q; want it unchanged", in, got)
		}
	}
	for _, in := range []string{"db.example.com" + tail, "log: db.example.com" + tail, "a\n\tdb" + tail} {
		if got := String(in); !strings.HasSuffix(got, ":deploy:"+Marker) {
			t.Errorf("String(%q) = %q; want the password redacted", in, got)
		}
	}
}
