package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/ostest"
)

// config show names what it loaded and what it skipped: a Claude Code
// skill loads and is listed with its source; a skill whose front matter
// does not parse, a committed skill linked to /proc/self/environ and a
// project instructions path outside the workspace are named with their
// file (and line) and the reason, and the start-up stays ready. Nothing
// the refused files hold is printed.
func TestConfigShowNamesDocuments(t *testing.T) {
	outside := ostest.OutsideTemp(t)
	const canary = "OUTSIDE-CANARY-91ad"
	if err := os.WriteFile(filepath.Join(outside, "notes.md"), []byte(canary), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"), "instructions = ["+clienttest.Quote(filepath.Join(outside, "notes.md"))+"]\n")
	ws.WriteFile(t, filepath.Join(ws.Cwd, ".claude", "skills", "pdf", "SKILL.md"),
		"---\nname: pdf\ndescription: >-\n  Reads PDFs.\nlicense: MIT\nallowed-tools: Read\nmetadata:\n  version: \"1\"\n---\nbody\n")
	ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "skills", "broken", "SKILL.md"), "---\nname: broken\ndescription: \"open\n---\nbody\n")
	environ := filepath.Join(ws.Cwd, ".magi-code", "skills", "env", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(environ), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self/environ", environ); err != nil {
		t.Fatal(err)
	}
	o := runIn(t, ws, "", []string{"config", "show"}, "SECRET_IN_ENV="+canary)
	o.want(t, "config show", 0, []string{
		"skill pdf  source=project  ",
		"# problem: ",
		"broken/SKILL.md:3: skill skipped: front matter is not valid YAML",
		"env/SKILL.md: skill skipped: it resolves to a file under /proc",
		"notes.md: instruction file refused: it resolves outside ",
		"# readiness: ready\n",
	}, nil)
	if strings.Contains(o.stdout, canary) || strings.Contains(o.stdout, "skill env ") || strings.Contains(o.stdout, "skill broken ") {
		t.Fatalf("config show printed a refused file or listed a skipped skill:\n%s", o.stdout)
	}
}

// config show exits 1 when the files themselves are wrong (here the
// selected agent profile's front matter does not parse), after naming the
// file, the line and the reason, and saying in words what readiness means;
// a missing credential is a readiness line, not a failure (exit 0).
func TestConfigShowExitsOneOnBrokenFiles(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings+"agent = \"rev\"\n")
	ws.WriteFile(t, filepath.Join(ws.Home, "agents", "rev.md"), "---\nname: rev\nmode: [primary\n---\nbody\n")
	runIn(t, ws, "", []string{"config", "show"}).want(t, "config show, broken profile", 1, []string{
		"rev.md:2: profile invalid", "# readiness: profile_invalid\n", "# that is: the selected agent profile is invalid",
	}, nil)

	keyless := clienttest.NewWorkspace(t, "provider = \"openai\"\nmodel = \"gpt-test\"\n")
	runIn(t, keyless, "", []string{"config", "show"}, "OPENAI_API_KEY=").want(t, "config show before login", 0, []string{
		"# readiness: provider_unavailable\n", "# that is: no usable credential",
	}, nil)
}
