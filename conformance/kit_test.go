package conformance_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/conformance"
)

var brokenServer string

func TestMain(m *testing.M) {
	clienttest.Main(m, clienttest.Tool{Pkg: "./conformance/testdata/brokenserver", Path: &brokenServer})
}

// fixtureHome is an MC_HOME whose settings select the fixture provider.
func fixtureHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte(clienttest.FixtureSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestKitPassesAgainstMagiCode runs `magi-code conformance --server ...`
// against magi-code itself, as a frontend author would against theirs.
func TestKitPassesAgainstMagiCode(t *testing.T) {
	bin := clienttest.Binary(t)
	server := "MC_HOME=" + fixtureHome(t) + " " + bin + " serve --stdio"
	cmd := exec.Command(bin, "conformance", "--server", server)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("magi-code conformance: %v\n%s%s", err, out, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	all, _ := conformance.Load()
	kit := 0
	for _, tr := range all {
		if tr.Kit {
			kit++
		}
	}
	if want := kit + len(conformance.Checks) + 1; len(lines) != want || kit < 6 {
		t.Fatalf("%d lines for %d kit transcripts; want one per transcript and check plus a summary:\n%s", len(lines), kit, out)
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, "ok ") {
			t.Errorf("not ok: %s", l)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "PASS ") || !strings.Contains(last, " 0 failed") {
		t.Errorf("summary %q", last)
	}
}

// TestKitFailsAgainstBrokenServers: each way of breaking magi-code's
// output fails the kit with a line that names the broken check and says
// what is wrong.
func TestKitFailsAgainstBrokenServers(t *testing.T) {
	bin := clienttest.Binary(t)
	home := fixtureHome(t)
	cases := []struct {
		mode string
		want []string // substrings of one FAIL line each
	}{
		{"seq", []string{"FAIL  envelope", "seq 2 after seq 2 (must strictly increase)"}},
		{"echo", []string{"FAIL  errors", "the error object carries more than its code"}},
		{"field", []string{"FAIL  schema", "does not match protocol/schema.json", "debug"}},
		{"nopersist", []string{"FAIL  event grammar", "the run's first event must be input.persisted, or a run.finished with persistence not_started"}},
		{"notstarted", []string{"FAIL  event grammar", "persistence not_started after the run's input.persisted"}},
		{"notstarted-only", []string{"FAIL  event grammar", "persistence not_started with outcome completed"}},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			srv := conformance.Server{
				Shell: "MC_HOME=" + home + " " + brokenServer + " -mode " + c.mode + " " + bin + " serve --stdio",
				Env:   os.Environ(),
			}
			var out bytes.Buffer
			ok, err := conformance.Kit(context.Background(), srv, &out)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				t.Fatalf("the kit passes a server broken by -mode %s:\n%s", c.mode, out.String())
			}
			found := false
			for _, l := range strings.Split(out.String(), "\n") {
				hit := true
				for _, w := range c.want {
					hit = hit && strings.Contains(l, w)
				}
				found = found || hit
			}
			if !found {
				t.Errorf("no line with %q in:\n%s", c.want, out.String())
			}
			if !strings.Contains(out.String(), "FAIL  ") || !strings.HasPrefix(lastLine(out.String()), "FAIL ") {
				t.Errorf("summary does not say FAIL:\n%s", out.String())
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
