// Package gorelease knows which Go releases lack the standard library's
// known security fixes, and words the warning a binary built with one
// gives (`magi-code version`, `config show`, Mission Control, the
// diagnostic log of serve).
//
// go.mod's go line stays at 1.26.8, the oldest Go that builds the module,
// so that plain go commands keep working with an installed Go 1.26.8 whose
// go.env says GOTOOLCHAIN=local. A plain `go install ...@latest` with that
// Go therefore builds with it: the warning is how such a binary says so.
package gorelease

import (
	"go/version"
	"strings"
)

// fixed is, per release line, the first release with every fix of the
// standard-library advisories the build's packages reach (golang.org/x/vulndb:
// GO-2026-6599 to GO-2026-6617 fixed in 1.26.9 and 1.27.2, GO-2026-6809 in
// 1.26.10 and 1.27.3). A release of an older line is unsupported and
// unpatched; one of a newer line, or a development build, is newer than
// every fix listed here.
var fixed = []string{"go1.26.10", "go1.27.3"}

// Rebuild is the command that installs a build with a fixed release.
const Rebuild = "GOTOOLCHAIN=go1.27.3 go install github.com/magi-code/magi-code/cmd/magi-code@latest"

// Warning is the one-line warning for a binary built with Go release v
// (runtime.Version(): "go1.26.8", "go1.27rc1", "go1.26.8 X:exp", a custom
// "go1.26.8-corp"), or "" when v has the fixes or is not a release (a
// "devel ..." build, or a string that names no Go release).
func Warning(v string) string {
	r, ok := release(v)
	if !ok {
		return ""
	}
	want := minimum(r)
	if want == "" {
		return ""
	}
	return "built with " + r + ", which has known security fixes missing; rebuild with " + want + " or later: " + Rebuild
}

// release is the Go release runtime.Version() names, without the
// experiments (" X:...") and a custom suffix ("-corp"); false for a
// development build or anything else that is no valid Go version. What it
// returns is only digits, dots and a pre-release tag (go/version's grammar).
func release(v string) (string, bool) {
	v, _, _ = strings.Cut(v, " ")
	v, _, _ = strings.Cut(v, "-")
	if !version.IsValid(v) {
		return "", false
	}
	return v, true
}

// minimum is the release r must be rebuilt with: its line's first fixed
// release when r is older than that, the oldest line's for a line older
// than every listed one, and "" when r has every fix.
func minimum(r string) string {
	lang := version.Lang(r)
	if version.Compare(lang, version.Lang(fixed[0])) < 0 {
		return fixed[0]
	}
	for _, f := range fixed {
		if version.Lang(f) == lang {
			if version.Compare(r, f) < 0 {
				return f
			}
			return ""
		}
	}
	return ""
}
