package main

import (
	"runtime/debug"
	"strings"
)

// versionText is what `magi-code version` prints, from the build
// information the Go toolchain records: the module version ("(devel)"
// for a build from a source tree), the VCS revision and whether the tree
// had uncommitted changes, when the build recorded them, and the Go
// release. A binary without build information says so.
func versionText(info *debug.BuildInfo) string {
	if info == nil {
		return "magi-code (no build information)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(unknown version)"
	}
	parts := []string{"magi-code " + version}
	var revision, at, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision != "" {
		r := "revision " + revision
		if at != "" {
			r += " (" + at + ")"
		}
		if modified == "true" {
			r += ", with uncommitted changes"
		}
		parts = append(parts, r)
	}
	parts = append(parts, info.GoVersion)
	return strings.Join(parts, ", ")
}
