package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/diaglog"
	"github.com/magi-code/magi-code/internal/gorelease"
)

// versionText reads the module version, the VCS revision, its time and
// whether the tree was modified, and the Go release from build information.
func TestVersionText(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.27.3", Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-12-03T08:00:00Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	cases := []struct {
		info *debug.BuildInfo
		want string
	}{
		{info, "magi-code v1.4.0, revision 0123456789abcdef (2026-12-03T08:00:00Z), with uncommitted changes, go1.27.3"},
		{&debug.BuildInfo{GoVersion: "go1.27.3", Main: debug.Module{Version: "(devel)"}}, "magi-code (devel), go1.27.3"},
		{nil, "magi-code (no build information)"},
	}
	for _, c := range cases {
		if got := versionText(c.info); got != c.want {
			t.Errorf("versionText = %q; want %q", got, c.want)
		}
	}
}

// version's first line stays what it was; a release that lacks security
// fixes adds the warning as a second line, one that has them nothing.
func TestVersionOutput(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}}
	const first = "magi-code v1.4.0, go1.26.8\n"
	cases := []struct{ goVersion, want string }{
		{"go1.26.8", first + "warning: built with go1.26.8, which has known security fixes missing; rebuild with go1.26.10 or later: " + gorelease.Rebuild + "\n"},
		{"go1.26.8 X:nocoverageredesign", first + "warning: built with go1.26.8, which has known security fixes missing; rebuild with go1.26.10 or later: " + gorelease.Rebuild + "\n"},
		{"go1.26.10", first},
		{"go1.27.3", first},
		{"devel go1.28-0123abcd", first},
	}
	for _, c := range cases {
		if got := versionOutput(info, c.goVersion); got != c.want {
			t.Errorf("versionOutput(%q) = %q; want %q", c.goVersion, got, c.want)
		}
	}
}

// The diagnostic log gets the warning once, as a warning with the release,
// and nothing for a release with the fixes.
func TestLogBuild(t *testing.T) {
	for _, c := range []struct {
		goVersion string
		want      int
	}{{"go1.26.8", 1}, {"go1.27.2", 1}, {"go1.27.3", 0}} {
		dir := t.TempDir()
		l := diaglog.New(dir, "00000000-0000-4000-8000-000000000000", slog.LevelInfo)
		logBuild(l, c.goVersion)
		l.Info("after")
		l.Open()
		l.Close(context.Background())
		content, err := os.ReadFile(filepath.Join(dir, diaglog.FileName("00000000-0000-4000-8000-000000000000")))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for line := range strings.Lines(string(content)) {
			if strings.Contains(line, "known security fixes missing") {
				n++
				if !strings.Contains(line, `"level":"WARN"`) || !strings.Contains(line, `"go_version":"`+c.goVersion+`"`) {
					t.Errorf("%s: the warning's line %s", c.goVersion, line)
				}
			}
		}
		if n != c.want || !strings.Contains(string(content), `"after"`) {
			t.Errorf("%s: %d warnings in the log; want %d:\n%s", c.goVersion, n, c.want, content)
		}
	}
}
