package main

import (
	"runtime/debug"
	"testing"
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
