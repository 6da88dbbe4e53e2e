package config

import (
	"os"
	"strings"
	"testing"
)

// TestSettingsErrorsNameTheFile: a settings file that cannot be loaded is
// named in the error `config show` prints, with where its TOML breaks
// (line and column) or why it could not be read, never its text.
func TestSettingsErrorsNameTheFile(t *testing.T) {
	for _, c := range []struct {
		name, rel, text string
		dir             bool
		want            string
	}{
		{"global TOML", "home/settings.toml", "provider = \"fixture\"\nbroken = = 1 # secret-text\n", false, "settings.toml: invalid TOML at line 2, column 10"},
		{"project TOML", "cwd/.magi-code/settings.toml", "[tools\n", false, ".magi-code/settings.toml: invalid TOML at line 1, column 7"},
		{"a directory", "home/settings.toml", "", true, "settings.toml: unreadable: not a regular file"},
		{"too large", "home/settings.toml", "# " + strings.Repeat("x", MaxFileBytes) + "\n", false, "settings.toml: unreadable: larger than"},
		{"bad instructions", "home/settings.toml", "instructions = 3\n", false, "settings.toml: instructions: not an array"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			if c.rel != "home/settings.toml" {
				w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
			}
			if c.dir {
				if err := os.MkdirAll(w.path(c.rel), 0o755); err != nil {
					t.Fatal(err)
				}
			} else {
				w.write(t, c.rel, c.text, 0o644)
			}
			_, err := Describe(w.env())
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), w.root) || strings.Contains(err.Error(), "secret-text") {
				t.Fatalf("error %v; want the file's path and %q", err, c.want)
			}
		})
	}
}
