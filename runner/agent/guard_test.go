package agent

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/shell"
	"github.com/magi-code/magi-code/runner/tools"
)

// guardCases are the spellings of deleting (or opening up) ~/canary, a
// directory outside the workspace, that the guard rail must catch. need
// names a program the command needs on PATH.
var guardCases = []struct{ name, cmd, need string }{
	{"plain", "rm -rf ~/canary", ""},
	{"braces", `bash -c "rm -rf {~/canary,/nonexistent}"`, "bash"},
	{"locale-quote", `bash -c 'rm -rf $"$HOME/canary"'`, "bash"},
	{"process-subst", `bash -c "rm -rf <(true) ~/canary"`, "bash"},
	{"here-string", `bash -c 'bash <<< "rm -rf ~/canary"'`, "bash"},
	{"sh-c", `sh -c 'rm -rf "$HOME/canary"'`, ""},
	{"eval", `eval "rm -rf ~/canary"`, ""},
	{"xargs", `echo "$HOME/canary" | xargs rm -rf`, ""},
	{"env", "env FOO=1 rm -rf ~/canary", ""},
	{"command", "command rm -rf ~/canary", ""},
	{"exec", "exec rm -rf ~/canary", ""},
	{"nice", "nice -n 5 rm -rf ~/canary", ""},
	{"timeout", "timeout 10 rm -rf ~/canary", ""},
	{"find-exec", `find ~ -maxdepth 1 -name canary -exec rm -rf {} +`, ""},
	{"find-delete", "find ~/canary -delete", ""},
	{"function", `f() { rm -rf "$1"; }; f ~/canary`, ""},
	{"alias", "alias x='rm -rf'\nx ~/canary", ""},
	{"dotdot", "rm -rf ./sub/../../canary", ""},
	{"symlink", "rm -rf ./link/", ""},
	{"variable", `d=$HOME; rm -rf "$d/canary"`, ""},
	{"python", `python3 -c 'import shutil, os; shutil.rmtree(os.path.expanduser("~/canary"))'`, "python3"},
	{"perl", `perl -MFile::Path=rmtree -e 'rmtree("$ENV{HOME}/canary")'`, "perl"},
	{"node", `node -e 'require("fs").rmSync(require("os").homedir() + "/canary", {recursive: true})'`, "node"},
	{"chmod", "chmod -R 700 ~/canary", ""},
	{"proc-subst-script", `bash -c 'bash <(echo "rm -rf ~/canary")'`, "bash"},
	{"link-then-delete", "ln -s ~/canary x && rm -rf x/", ""},
	{"env-chdir", "env -C ~ rm -rf canary", ""},
	{"awk", `awk 'BEGIN { system("rm -rf " ENVIRON["HOME"] "/canary") }'`, "awk"},
	// Deleting under another name.
	{"tar-remove-files", "tar --remove-files -cf out.tar -C ~ canary", "tar"},
	{"mv-out", "mv ~/canary ./here", ""},
	{"git-rm", "git -C ~/canary init -q && git -C ~/canary add . && git -C ~/canary rm -r -f -q .", "git"},
}

// TestGuardRailRealShell runs each bypass form through the real shell tool
// under approval = "auto": the call asks (the approver denies) with a fixed
// reason, and the canary outside the workspace survives. Without the guard
// rail the same command really deletes (or changes) the canary, so each
// case is a real attack, and a rm -rf inside the workspace runs unasked.
func TestGuardRailRealShell(t *testing.T) {
	for _, tc := range guardCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.need != "" {
				if _, err := exec.LookPath(tc.need); err != nil {
					t.Skipf("%s not on PATH", tc.need)
				}
			}
			for _, guarded := range []bool{true, false} {
				home, ws, canary := guardLayout(t)
				asked, text := runShellCall(t, ws, home, tc.cmd, !guarded)
				survived := canaryIntact(canary)
				if guarded {
					if len(asked) != 1 || !hasReason(asked[0]) {
						t.Fatalf("guarded: asked %q; want one approval naming a reason", asked)
					}
					if !survived {
						t.Fatalf("guarded: the canary is gone or changed (tool said %q)", text)
					}
				} else if survived {
					t.Fatalf("unguarded: the canary survived (tool said %q); the case is no attack", text)
				}
			}
		})
	}
	home, ws, canary := guardLayout(t)
	if asked, text := runShellCall(t, ws, home, "rm -rf ./build && git clean -n 2>/dev/null; true", false); len(asked) != 0 {
		t.Fatalf("rm -rf ./build asked %q (%s)", asked, text)
	}
	if _, err := os.Stat(filepath.Join(ws, "build")); !os.IsNotExist(err) || !canaryIntact(canary) {
		t.Fatalf("rm -rf ./build: build still there (%v) or canary hurt", err)
	}
}

// guardLayout makes HOME with a canary (a directory, mode 0755, holding a
// file) and the workspace below HOME with a build directory and a link to
// the canary.
func guardLayout(t *testing.T) (home, ws, canary string) {
	t.Helper()
	home = t.TempDir()
	ws = filepath.Join(home, "proj")
	canary = filepath.Join(home, "canary")
	for _, d := range []string{canary, filepath.Join(ws, "build"), filepath.Join(ws, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(canary, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(canary, "keep.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(canary, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	return home, ws, canary
}

func canaryIntact(canary string) bool {
	fi, err := os.Stat(canary)
	if err != nil || fi.Mode().Perm() != 0o755 {
		return false
	}
	b, err := os.ReadFile(filepath.Join(canary, "keep.txt"))
	return err == nil && string(b) == "keep"
}

func hasReason(summary string) bool {
	for _, r := range shell.Reasons() {
		if strings.Contains(summary, string(r)) {
			return true
		}
	}
	return false
}

// runShellCall runs one turn whose model calls shell with cmd, under
// approval = "auto" with an approver that denies; it returns the approvals
// asked and the tool's result text.
func runShellCall(t *testing.T, ws, home, cmd string, noGuard bool) ([]string, string) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"command": cmd})
	sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"shell","arguments":`+string(args)+`}}]},{"steps":[{"text":"done"}]}]}`)
	ap := &approver{allow: false}
	set := tools.Builtin(tools.Options{Cwd: ws, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + home}, NoForceApproval: noGuard})
	cfg := Config{Provider: fixtureprov.New(sc), Tools: set, Approval: ApprovalAuto, Approver: ap}
	sink := &recorder{}
	if _, err := Run(context.Background(), cfg, nil, "go", sink); err != nil {
		t.Fatal(err)
	}
	return ap.asked, strings.Join(sink.events, "\n")
}
