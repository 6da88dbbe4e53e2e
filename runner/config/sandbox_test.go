package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/sandbox"
)

// TestSandboxSettings: [tools.sandbox] defaults, values, and the project
// file that may tighten but never relax it.
func TestSandboxSettings(t *testing.T) {
	g := func(extra string) file { return f("home/settings.toml", fixtureGlobal+extra) }
	p := func(text string) file { return f("work/.magi-code/settings.toml", text) }
	tests := []struct {
		name  string
		files []file
		want  protocol.Code
	}{
		{"defaults", []file{g("")}, ""},
		{"global off", []file{g("[tools.sandbox]\nmode = \"off\"\n")}, ""},
		{"global roots", []file{g("[tools.sandbox]\nwritable_roots = [\"/opt/cache\", \"~/work\"]\nnetwork = false\n")}, ""},
		{"bad mode", []file{g("[tools.sandbox]\nmode = \"read-only\"\n")}, protocol.CodeConfigurationInvalid},
		{"root /", []file{g("[tools.sandbox]\nwritable_roots = [\"/\"]\n")}, protocol.CodeConfigurationInvalid},
		{"roots wrong type", []file{g("[tools.sandbox]\nwritable_roots = \"/opt\"\n")}, protocol.CodeConfigurationInvalid},
		{"unknown key", []file{g("[tools.sandbox]\nread_only = true\n")}, protocol.CodeConfigurationInvalid},
		{"project turns it off", []file{g(""), p("[tools.sandbox]\nmode = \"off\"\n")}, protocol.CodeConfigurationInvalid},
		{"project keeps global off", []file{g("[tools.sandbox]\nmode = \"off\"\n"), p("[tools.sandbox]\nmode = \"off\"\n")}, ""},
		{"project turns it on", []file{g("[tools.sandbox]\nmode = \"off\"\n"), p("[tools.sandbox]\nmode = \"workspace-write\"\n")}, ""},
		{"project adds a root", []file{g(""), p("[tools.sandbox]\nwritable_roots = [\"/home\"]\n")}, protocol.CodeConfigurationInvalid},
		{"project empties roots", []file{g(""), p("[tools.sandbox]\nwritable_roots = []\n")}, protocol.CodeConfigurationInvalid},
		{"project opens the network", []file{g("[tools.sandbox]\nnetwork = false\n"), p("[tools.sandbox]\nnetwork = true\n")}, protocol.CodeConfigurationInvalid},
		{"project opens the default's network", []file{g(""), p("[tools.sandbox]\nnetwork = true\n")}, protocol.CodeConfigurationInvalid},
		{"project keeps the global open network", []file{g("[tools.sandbox]\nnetwork = true\n"), p("[tools.sandbox]\nnetwork = true\n")}, ""},
		{"project closes the network", []file{g("[tools.sandbox]\nnetwork = true\n"), p("[tools.sandbox]\nnetwork = false\n")}, ""},
		// [tools] read_roots resolves like writable_roots, must be
		// absolute, and only the global file may set it.
		{"global read roots", []file{g("[tools]\nread_roots = [\"/usr/include\", \"~/src\", \"rel\", \"/\"]\n")}, ""},
		{"empty read root", []file{g("[tools]\nread_roots = [\"\"]\n")}, protocol.CodeConfigurationInvalid},
		{"read roots wrong type", []file{g("[tools]\nread_roots = \"/usr\"\n")}, protocol.CodeConfigurationInvalid},
		{"project adds a read root", []file{g(""), p("[tools]\nread_roots = [\"/home\"]\n")}, protocol.CodeConfigurationInvalid},
		{"project empties read roots", []file{g("[tools]\nread_roots = [\"/usr\"]\n"), p("[tools]\nread_roots = []\n")}, protocol.CodeConfigurationInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			for _, fl := range tc.files {
				w.write(t, fl.path, fl.text, fl.mode)
			}
			snap, code := w.load(t)
			if code != tc.want {
				t.Fatalf("Load = %q; want %q (logs %q)", code, tc.want, w.logs)
			}
			if code != "" {
				return
			}
			sb := snap.Settings.Tools.Sandbox
			switch tc.name {
			case "defaults":
				if sb.Mode != "workspace-write" || sb.Network || len(sb.WritableRoots) != 0 || len(snap.Settings.Tools.ReadRoots) != 0 {
					t.Errorf("defaults = %+v, read roots %q", sb, snap.Settings.Tools.ReadRoots)
				}
			case "global roots":
				if sb.Network || !slices.Contains(sb.WritableRoots, "/opt/cache") || len(sb.WritableRoots) != 2 || sb.WritableRoots[1] == "~/work" {
					t.Errorf("roots = %+v; want /opt/cache and ~/work resolved, network off", sb)
				}
			case "global read roots":
				roots := snap.Settings.Tools.ReadRoots
				if len(roots) != 4 || roots[0] != "/usr/include" || roots[3] != "/" {
					t.Fatalf("read_roots = %q", roots)
				}
				for _, r := range roots {
					if !filepath.IsAbs(r) || strings.Contains(r, "~") {
						t.Errorf("read root %q not made absolute", r)
					}
				}
			case "project keeps the global open network":
				if !sb.Network {
					t.Error("the global network = true was not applied")
				}
			case "project closes the network":
				if sb.Network {
					t.Error("the project's network = false was not applied")
				}
			}
		})
	}
}

// TestDescribeSandbox: config show says what confines unasked commands on
// this machine, or that nothing does, and honours mode = "off".
func TestDescribeSandbox(t *testing.T) {
	for _, tc := range []struct{ settings, want string }{
		{fixtureGlobal, sandbox.ProbeWithMounts().Text("workspace-write", false)},
		{fixtureGlobal + "[tools.sandbox]\nnetwork = true\n", sandbox.ProbeWithMounts().Text("workspace-write", true)},
		{fixtureGlobal + "[tools.sandbox]\nmode = \"off\"\n", "off (settings); the destructive-command guard stands alone"},
	} {
		w := newWorld(t)
		w.write(t, "home/settings.toml", tc.settings, 0o644)
		d, err := Describe(w.env())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(d.Text(), "# sandbox: "+tc.want+"\n") {
			t.Errorf("config show:\n%s\nwant the line # sandbox: %s", d.Text(), tc.want)
		}
	}
}
