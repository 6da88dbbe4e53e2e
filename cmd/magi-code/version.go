package main

import (
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/magi-code/magi-code/internal/diaglog"
	"github.com/magi-code/magi-code/internal/gorelease"
)

// buildWarning is the one-line warning of a binary built with a Go release
// that lacks known standard-library security fixes, "" for none
// (internal/gorelease). version, config show, Mission Control and the
// diagnostic log of serve and acp show it.
func buildWarning() string { return warningLine(runtime.Version()) }

// warningLine is the warning for goVersion as the terminal commands print
// it, "" for none.
func warningLine(goVersion string) string {
	if w := gorelease.Warning(goVersion); w != "" {
		return "warning: " + w
	}
	return ""
}

// versionOutput is what `magi-code version` prints: versionText's line and,
// for a binary built with a Go release that lacks security fixes, the
// warning on a second line.
func versionOutput(info *debug.BuildInfo, goVersion string) string {
	out := versionText(info) + "\n"
	if w := warningLine(goVersion); w != "" {
		out += w + "\n"
	}
	return out
}

// logBuild writes the build warning for goVersion to a child's diagnostic
// log, once, at its start; nothing when there is none.
func logBuild(l *diaglog.Log, goVersion string) {
	if w := gorelease.Warning(goVersion); w != "" {
		l.Warn(w, "go_version", goVersion)
	}
}

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
