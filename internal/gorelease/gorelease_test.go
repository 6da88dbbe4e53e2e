package gorelease

import (
	"go/version"
	"strings"
	"testing"
)

// Each release gets its verdict: the 1.26 line up to 1.26.9 and the 1.27
// line up to 1.27.2 (its pre-releases too) lack fixes, older lines are
// unpatched, newer lines and development builds say nothing.
func TestWarning(t *testing.T) {
	const tail = " or later: " + Rebuild
	cases := []struct{ version, want string }{
		{"go1.26.8", "built with go1.26.8, which has known security fixes missing; rebuild with go1.26.10" + tail},
		{"go1.26.9", "built with go1.26.9, which has known security fixes missing; rebuild with go1.26.10" + tail},
		{"go1.26.10", ""},
		{"go1.26.11", ""},
		{"go1.26.100", ""},
		{"go1.26.0", "built with go1.26.0, which has known security fixes missing; rebuild with go1.26.10" + tail},
		{"go1.26", "built with go1.26, which has known security fixes missing; rebuild with go1.26.10" + tail},
		{"go1.26rc2", "built with go1.26rc2, which has known security fixes missing; rebuild with go1.26.10" + tail},
		{"go1.26.8 X:nocoverageredesign", "built with go1.26.8, which has known security fixes missing; rebuild with go1.26.10" + tail},
		{"go1.26.8-bigcorp X:a,b", "built with go1.26.8, which has known security fixes missing; rebuild with go1.26.10" + tail},
		{"go1.26.10 X:boringcrypto", ""},
		{"go1.27rc1", "built with go1.27rc1, which has known security fixes missing; rebuild with go1.27.3" + tail},
		{"go1.27.0", "built with go1.27.0, which has known security fixes missing; rebuild with go1.27.3" + tail},
		{"go1.27.2", "built with go1.27.2, which has known security fixes missing; rebuild with go1.27.3" + tail},
		{"go1.27.3", ""},
		{"go1.27.3 X:jsonv2", ""},
		{"go1.27.4", ""},
		{"go1.28rc1", ""},
		{"go1.28.0", ""},
		{"go2", ""},
		{"go1.25.9", "built with go1.25.9, which has known security fixes missing; rebuild with go1.26.10" + tail},
		{"go1.21.0", "built with go1.21.0, which has known security fixes missing; rebuild with go1.26.10" + tail},
		{"go1.9", "built with go1.9, which has known security fixes missing; rebuild with go1.26.10" + tail},
		{"devel go1.27-1a2b3c4d Mon Nov 30 10:00:00 2026 +0000", ""},
		{"devel +1a2b3c4d", ""},
		{"", ""},
		{"1.26.8", ""},
		{"go1.26.08", ""},
		{"go1.26.8.1", ""},
		{"gccgo", ""},
	}
	for _, c := range cases {
		if got := Warning(c.version); got != c.want {
			t.Errorf("Warning(%q) = %q; want %q", c.version, got, c.want)
		}
	}
}

// FuzzWarning: any string gives "" or one printable line naming a valid
// release older than the release it asks for, and experiments after a
// space never change the verdict.
func FuzzWarning(f *testing.F) {
	for _, s := range []string{"go1.26.8", "go1.26.10", "go1.27.3", "go1.27rc1", "devel go1.27-abc", "go1.26.8 X:exp", "go1.26.8-corp"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		w := Warning(v)
		if w != Warning(v+" X:exp") {
			t.Fatalf("Warning(%q) = %q, but with an experiment suffix %q", v, w, Warning(v+" X:exp"))
		}
		if w == "" {
			return
		}
		for _, r := range w {
			if r < 0x20 || r > 0x7e {
				t.Fatalf("Warning(%q) = %q: a character that is not printable ASCII", v, w)
			}
		}
		got, rest, ok := strings.Cut(strings.TrimPrefix(w, "built with "), ", which has known security fixes missing; rebuild with ")
		want, _, ok2 := strings.Cut(rest, " or later: ")
		if !ok || !ok2 || !strings.HasPrefix(w, "built with ") || !version.IsValid(got) || !version.IsValid(want) {
			t.Fatalf("Warning(%q) = %q: not the warning's form", v, w)
		}
		if version.Compare(got, want) >= 0 {
			t.Fatalf("Warning(%q) = %q: %s is not older than %s", v, w, got, want)
		}
		if !strings.HasPrefix(v, got) {
			t.Fatalf("Warning(%q) = %q names %s, which is not the version's release", v, w, got)
		}
	})
}
