package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layout is a real tree: HOME with a canary outside the workspace, the
// workspace below HOME (as in a checkout), a temp directory of its own,
// and symbolic links from the workspace to the canary.
type layout struct{ home, ws, tmp, canary string }

func newLayout(t *testing.T) (layout, Place) {
	t.Helper()
	root := t.TempDir()
	l := layout{home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp")}
	l.ws = filepath.Join(l.home, "proj")
	l.canary = filepath.Join(l.home, "canary")
	for _, d := range []string{l.ws, l.tmp, filepath.Join(l.canary, "sub"), filepath.Join(l.ws, "build"), filepath.Join(l.ws, "node_modules")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"link": l.canary, "sublink": filepath.Join(l.canary, "sub"), "local": "build"} {
		if err := os.Symlink(target, filepath.Join(l.ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	return l, Place{Cwd: l.ws, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + l.home, "TMPDIR=" + l.tmp}}
}

// TestBypasses: each spelling of deleting (or opening up) the canary asks,
// with its reason.
func TestBypasses(t *testing.T) {
	l, at := newLayout(t)
	tests := []struct {
		cmd  string
		want Reason
	}{
		{"rm -rf ~/canary", ReasonDeleteOutside},
		// Deleting under another command's name.
		{"git -C ~/canary rm -r .", ReasonDeleteOutside},
		{"git -C ~ rm -rf canary", ReasonDeleteOutside},
		{"cmake -E rm -rf ~/canary", ReasonDeleteOutside},
		{"cmake -E remove_directory ~/canary", ReasonDeleteOutside},
		{"rsync -a --remove-source-files ~/canary/ build/", ReasonDeleteOutside},
		{"tar --remove-files -cf x.tar ~/canary", ReasonDeleteOutside},
		{"mv ~/canary /tmp/x", ReasonDeleteOutside},
		{"mv -t build ~/canary", ReasonDeleteOutside},
		{"rm -rf " + l.canary, ReasonDeleteOutside},
		{"rm -r ~/canary/sub", ReasonDeleteOutside},
		{"rm --recursive ~/canary", ReasonDeleteOutside},
		{"rm --rec ~/canary", ReasonDeleteOutside},
		{"rm -R -- ~/canary", ReasonDeleteOutside},
		{"rm -rf ~/canary*", ReasonDeleteOutside},
		{"rm -rf ~/c?nary", ReasonDeleteOutside},
		// Brace expansion.
		{"rm -rf {~/canary,/nonexistent}", ReasonDeleteOutside},
		{`bash -c "rm -rf {~/canary,/nonexistent}"`, ReasonDeleteOutside},
		{"rm -rf {./build,../canary}", ReasonDeleteOutside},
		{"rm -rf ~/{canary,x}", ReasonDeleteOutside},
		{"rm -rf {~,/nonexistent}", ReasonDeleteOutside},
		{"rm -rf ../canar{y,z}", ReasonDeleteOutside},
		// Quoting.
		{`bash -c 'rm -rf $"$HOME/canary"'`, ReasonDeleteOutside},
		{`rm -rf $"$HOME/canary"`, ReasonDeleteOutside},
		{`rm -rf $'\x2e\x2e'/canary`, ReasonDeleteOutside},
		{`rm -rf "$HOME"/canary`, ReasonDeleteOutside},
		{`rm -rf ${HOME}/canary`, ReasonDeleteOutside},
		{`r\m -r\f ~/canary`, ReasonDeleteOutside},
		// Process and command substitution.
		{`bash -c "rm -rf <(true) ~/canary"`, ReasonDeleteOutside},
		{"rm -rf <(true) ~/canary", ReasonDeleteOutside},
		{"rm -rf $(echo ~/canary)", ReasonDeleteOutside},
		{`rm -rf "$(echo ~)/canary"`, ReasonDeleteOutside},
		{"echo $(rm -rf ~/canary)", ReasonDeleteOutside},
		{"cat <(rm -rf ~/canary)", ReasonDeleteOutside},
		{"echo ${x:-$(rm -rf ~/canary)}", ReasonDeleteOutside},
		{"cat <<EOF\n$(rm -rf ~/canary)\nEOF", ReasonDeleteOutside},
		// Here-strings and here-documents into a shell.
		{"bash <<< 'rm -rf ~/canary'", ReasonDeleteOutside},
		{`sh <<<"rm -rf $HOME/canary"`, ReasonDeleteOutside},
		{"bash -s <<'EOF'\nrm -rf ~/canary\nEOF", ReasonDeleteOutside},
		{"echo 'rm -rf ~/canary' | sh", ReasonOpaque},
		// Wrappers.
		{"sudo rm -rf ~/canary", ReasonDeleteOutside},
		{"env rm -rf ~/canary", ReasonDeleteOutside},
		{"env FOO=1 rm -rf ~/canary", ReasonDeleteOutside},
		{"env -S 'rm -rf' ~/canary", ReasonDeleteOutside},
		{"env --split-string='rm -rf ~/canary'", ReasonDeleteOutside},
		{"command rm -rf ~/canary", ReasonDeleteOutside},
		{"exec rm -rf ~/canary", ReasonDeleteOutside},
		{"nice -n 5 rm -rf ~/canary", ReasonDeleteOutside},
		{"timeout 10 rm -rf ~/canary", ReasonDeleteOutside},
		{"nohup rm -rf ~/canary", ReasonDeleteOutside},
		{"echo ~/canary | xargs rm -rf", ReasonDeleteOutside},
		{"xargs -I{} rm -rf {} < list", ReasonDeleteOutside},
		{`eval "rm -rf ~/canary"`, ReasonDeleteOutside},
		{`eval rm -rf '~/canary'`, ReasonDeleteOutside},
		{`sh -c 'rm -rf "$1"' sh ~/canary`, ReasonDeleteOutside},
		{`bash -c 'bash -c "rm -rf ~/canary"'`, ReasonDeleteOutside},
		{"trap 'rm -rf ~/canary' EXIT", ReasonDeleteOutside},
		{"watch -n 1 rm -rf ~/canary", ReasonDeleteOutside},
		{"su -c 'rm -rf ~/canary'", ReasonDeleteOutside},
		{"busybox rm -rf ~/canary", ReasonDeleteOutside},
		// systemd-run: its boolean options are not arguments of the
		// option before the command (and the user's manager runs it
		// outside any OS sandbox).
		{"systemd-run --user rm -rf ~/canary", ReasonDeleteOutside},
		{"systemd-run --user --wait rm -rf ~/canary", ReasonDeleteOutside},
		{"systemd-run -G rm -rf ~/canary", ReasonDeleteOutside},
		{"systemd-run --unit x -p Nice=5 rm -rf ~/canary", ReasonDeleteOutside},
		{"sudo --user root rm -rf ~/canary", ReasonDeleteOutside},
		// find.
		{"find ~/canary -delete", ReasonDeleteOutside},
		{"find ~/canary -name '*.txt' -delete", ReasonDeleteOutside},
		{"find ~ -name canary -exec rm -rf {} +", ReasonDeleteOutside},
		{"find . -exec sh -c 'rm -rf ~/canary' \\;", ReasonDeleteOutside},
		{"find -L . -name '*.o' -delete", ReasonDeleteOutside},
		{"find ./link/ -delete", ReasonDeleteOutside},
		{"find . -exec sudo rm {} +", ReasonDeleteWorkspace},
		{"find . -type f -exec /bin/rm -f {} +", ReasonDeleteWorkspace},
		// Functions and aliases.
		{`f() { rm -rf "$1"; }; f ~/canary`, ReasonDeleteOutside},
		{"f() { rm -rf ~/canary; }", ReasonDeleteOutside},
		{"function g { rm -rf $HOME/canary; }; g", ReasonDeleteOutside},
		{"alias x='rm -rf'; x ~/canary", ReasonDeleteOutside},
		{"alias x='rm -rf ~/canary'\nx", ReasonDeleteOutside},
		// Unknown values.
		{"rm -rf $X", ReasonDeleteOutside},
		{`rm -rf "$D/canary"`, ReasonDeleteOutside},
		{"X=~/canary; rm -rf $X", ReasonDeleteOutside},
		{"HOME=/elsewhere; rm -rf ~/canary", ReasonDeleteOutside},
		{"export TMPDIR=~; rm -rf $TMPDIR/canary", ReasonDeleteOutside},
		{"rm -rf ./build/$X", ReasonDeleteOutside},
		{`rm "$F" ~/canary`, ReasonDeleteOutside},
		{"rm $FLAGS", ReasonDeleteOutside},
		{`"$X" -rf ~/canary`, ReasonDeleteOutside},
		{"$X -rf ~/canary", ReasonOpaque},
		{`sh -c "$SCRIPT"`, ReasonOpaque},
		{`eval "$X"`, ReasonOpaque},
		// .. and symbolic links out of the workspace.
		{"rm -rf ./build/../../canary", ReasonDeleteOutside},
		{"rm -rf link/", ReasonDeleteOutside},
		{"rm -rf link/.", ReasonDeleteOutside},
		{"rm -rf link/sub", ReasonDeleteOutside},
		{"rm -rf sublink/..", ReasonDeleteOutside},
		{"rm -rf */", ReasonDeleteWorkspace},
		{"rm -rf build/*/ sublink/*/", ReasonDeleteOutside},
		{"rm -rf l*/", ReasonDeleteOutside}, // matches link/: the canary's contents
		{"cd link && rm -rf sub", ReasonDeleteOutside},
		{"cd .. && rm -rf canary", ReasonDeleteOutside},
		// Permission changes.
		{"chmod -R 777 ~/canary", ReasonPermOutside},
		{"chown -R nobody ~", ReasonPermOutside},
		{"chgrp --recursive staff ~/canary", ReasonPermOutside},
		{"chmod -R 777 link", ReasonPermOutside},
		{"chmod -RL 755 .", ReasonPermWorkspace},
		{"chmod -R -L 755 ./build", ReasonPermOutside},
		// Interpreters.
		{`python3 -c 'import shutil; shutil.rmtree("/home/u/canary")'`, ReasonInterpreter},
		{`python -c "import os; os.remove('x')"`, ReasonInterpreter},
		{`python3 -c 'import os; os.rmdir("x")'`, ReasonInterpreter},
		{`python3 -c 'import os; os.unlink("x")'`, ReasonInterpreter},
		{`python3 -c 'import pathlib; pathlib.Path("x").unlink()'`, ReasonInterpreter},
		{`python3 -c 'from pathlib import Path; Path("x").rmdir()'`, ReasonInterpreter},
		{`python3 -Bc 'import os; os.system("rm -rf x")'`, ReasonInterpreter},
		{`python3 -c 'getattr(__import__("shutil"), "rmt"+"ree")("x")'`, ReasonInterpreter},
		{"python3 - <<'EOF'\nimport shutil\nshutil.rmtree('x')\nEOF", ReasonInterpreter},
		{"python3 <<< 'import shutil; shutil.rmtree(\"x\")'", ReasonInterpreter},
		{`echo 'import shutil' | python3`, ReasonOpaque},
		{`python3 -c "$CODE"`, ReasonOpaque},
		{`perl -e 'use File::Path; rmtree("x")'`, ReasonInterpreter},
		{`perl -MFile::Path=remove_tree -e 'remove_tree("x")'`, ReasonInterpreter},
		{`perl -le 'unlink glob "x/*"'`, ReasonInterpreter},
		{"perl -e '`rm -rf x`'", ReasonInterpreter},
		{`node -e 'require("fs").rmSync("x", {recursive: true})'`, ReasonInterpreter},
		{`node -e 'require("fs").rm("x", () => {})'`, ReasonInterpreter},
		{`node --eval='fs.rmdirSync("x")'`, ReasonInterpreter},
		{`node -e 'require("child_process").execSync("x")'`, ReasonInterpreter},
		{`ruby -e 'require "fileutils"; FileUtils.rm_r("x")'`, ReasonInterpreter},
		{`php -r 'unlink("x");'`, ReasonInterpreter},
		{`sudo python3 -c 'import shutil; shutil.rmtree("x")'`, ReasonInterpreter},
		// git.
		{"git -C ~/canary clean -fdx", ReasonDeleteOutside},
		{"git -c alias.x='!rm -rf ~/canary' x", ReasonDeleteOutside},
		{"git push origin +$BRANCH", ReasonGitPush},
		{"git push $ARGS", ReasonGitPush},
		// Directories, links and scripts the check cannot see.
		{"CDPATH=~ cd canary && rm -rf .", ReasonDeleteOutside},
		{"export CDPATH=$HOME; cd canary; rm -rf *", ReasonDeleteOutside},
		{"ln -s ~/canary x && rm -rf x/", ReasonDeleteOutside},
		{"env -C ~ rm -rf canary", ReasonDeleteOutside},
		{"sudo -D ~ rm -rf canary", ReasonDeleteOutside},
		{"bash <(echo 'rm -rf ~/canary')", ReasonOpaque},
		{"source <(echo 'rm -rf ~/canary')", ReasonOpaque},
		{". /dev/stdin <<< 'rm -rf ~/canary'", ReasonDeleteOutside},
		{"bash /dev/stdin <<< 'rm -rf ~/canary'", ReasonDeleteOutside},
		{"python3 <(echo 'import shutil')", ReasonOpaque},
		{`python3 /dev/stdin <<< 'import shutil; shutil.rmtree("x")'`, ReasonInterpreter},
		{`awk 'BEGIN { system("rm -rf ~/canary") }'`, ReasonInterpreter},
		{`awk 'BEGIN { "rm -rf x" | getline }'`, ReasonInterpreter},
		{"find . -name keep -o -delete", ReasonDeleteWorkspace},
		{"rsync -a --delete empty/ ~/canary/", ReasonDeleteOutside},
		{"cd -P sublink/.. && rm -rf sub", ReasonDeleteOutside},
		{"rm -rf ./*/", ReasonDeleteWorkspace},
		{"npx rimraf ~/canary", ReasonDeleteOutside},
		{"npx -c 'rm -rf ~/canary'", ReasonDeleteOutside},
		{`$'\x72\x6d' -rf ~/canary`, ReasonDeleteOutside},
		{"ssh localhost 'rm -rf ~/canary'", ReasonDeleteOutside},
		{"ssh -p 22 -o BatchMode=yes localhost rm -rf canary", ReasonDeleteOutside},
		// Variables and git settings whose value a program runs.
		{`GIT_PAGER='rm -rf ~/canary' git -p log`, ReasonDeleteOutside},
		{`PAGER='rm -rf ~/canary' man ls`, ReasonDeleteOutside},
		{`export GIT_SSH_COMMAND='rm -rf ~/canary'; git fetch`, ReasonDeleteOutside},
		{`EDITOR="rm -rf ~/canary;" git commit`, ReasonDeleteOutside},
		{`GIT_EXTERNAL_DIFF=$X git diff`, ReasonOpaque},
		{`BASH_ENV=<(echo 'rm -rf ~/canary') bash -c true`, ReasonOpaque},
		{`export BASH_ENV=/dev/stdin; bash -c true <<< 'rm -rf ~/canary'`, ReasonOpaque},
		{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf ~/canary' git status`, ReasonOpaque},
		{`git -c core.fsmonitor='rm -rf ~/canary' status`, ReasonDeleteOutside},
		{`git -c core.pager='rm -rf ~/canary' -p log`, ReasonDeleteOutside},
		{`git -c core.sshCommand='rm -rf ~/canary' fetch`, ReasonDeleteOutside},
		{`git -c diff.external='sh -c "rm -rf ~/canary"' diff`, ReasonDeleteOutside},
		{`git -c filter.x.smudge='rm -rf ~/canary' checkout .`, ReasonDeleteOutside},
		{`git -c credential.helper='!rm -rf ~/canary' fetch`, ReasonDeleteOutside},
		{`git -c core.editor='rm -rf ~/canary' commit`, ReasonDeleteOutside},
		{`git -c sequence.editor='rm -rf ~/canary' rebase -i HEAD~2`, ReasonDeleteOutside},
		{`git -c core.askPass='rm -rf ~/canary' fetch`, ReasonDeleteOutside},
		{`git -c core.gitProxy='rm -rf ~/canary' fetch git://example.com/r`, ReasonDeleteOutside},
		{`git -c uploadpack.packObjectsHook='rm -rf ~/canary' fetch`, ReasonDeleteOutside},
		{`git -c web.browser='rm -rf ~/canary' help -w log`, ReasonDeleteOutside},
		{`git -c gpg.program='rm -rf ~/canary' commit -S`, ReasonDeleteOutside},
		{`git -c core.hooksPath=./hooks commit`, ReasonOpaque},
		{`git --config-env=core.pager=P log`, ReasonOpaque},
		// Servers and daemons that run a command later, perhaps outside
		// any OS sandbox (the person's tmux server, cron, atd).
		{"tmux new-window -d 'rm -rf ~/canary'", ReasonOpaque},
		{"tmux -L x new -d 'sh x.sh'", ReasonOpaque},
		{"tmux send-keys -t 0 'rm -rf ~/canary' Enter", ReasonOpaque},
		{`tmux ls \; run-shell 'rm -rf ~/canary'`, ReasonOpaque},
		{"tmux ls; tmux splitw 'rm -rf ~/canary'", ReasonOpaque},
		{"tmux $CMD", ReasonOpaque},
		{"screen -dm rm -rf ~/canary", ReasonOpaque},
		{"screen -S s -X stuff 'rm -rf ~/canary\n'", ReasonOpaque},
		{"at now <<< 'rm -rf ~/canary'", ReasonOpaque},
		{"echo 'rm -rf ~/canary' | batch", ReasonOpaque},
		{"crontab <<< '* * * * * rm -rf ~/canary'", ReasonOpaque},
		{"crontab jobs.txt", ReasonOpaque},
		// Work past the bounds.
		{"echo {1..100}{1..100}{1..100}", ReasonTooDeep},
		{strings.Repeat("echo {a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n};", 200), ReasonTooDeep},
		// Parse failures.
		{"rm -rf 'unterminated", ReasonUnparsable},
		{"echo $(", ReasonUnparsable},
		{"if true; then", ReasonUnparsable},
		{`bash -c "rm -rf 'x"`, ReasonUnparsable},
	}
	for _, tc := range tests {
		if got, why := Destructive(tc.cmd, at); !got || why != tc.want {
			t.Errorf("Destructive(%q) = %v, %q; want true, %q", tc.cmd, got, why, tc.want)
		}
	}
}

// TestAllowed: ordinary commands, and deletes inside the workspace and
// the temp directory, do not ask.
func TestAllowed(t *testing.T) {
	_, at := newLayout(t)
	for _, cmd := range []string{
		"go test ./...",
		"go build -o bin/app ./cmd/app && ./bin/app --help",
		"tmux ls", "tmux list-windows -a", "screen -ls", "crontab -l", "at -l",
		"GIT_PAGER=cat git log -3", "PAGER= git log", "export GIT_EDITOR=true; git commit --amend",
		"git -c core.pager=cat log", "git -c user.name=x -c user.email=y commit -m z", "X=1 BASH_ENV= bash -c true",
		"rm -rf ./node_modules",
		"git rm -r build", "git rm -r --cached build", "cmake -E rm -rf build", "cmake -E remove_directory build",
		"rsync -a --remove-source-files build/ $TMPDIR/out/", "tar --remove-files -cf build.tar build",
		"mv build dist", "mv -t dist build", "mv $TMPDIR/x build/",
		"rm -rf node_modules build dist",
		"rm -rf build && mkdir build",
		"rm -rf build/*",
		"rm -rf ./build/*.o",
		"rm -r -- build",
		"rm -rf local",
		"rm -rf link",
		"rm -rf $TMPDIR/x",
		`rm -rf "$TMPDIR"/x*`,
		"rm -rf {build,dist}",
		"rm -rf ./{a,b}/out",
		"rm -rf ~/proj/build",
		`rm -rf $'\x7e'/canary`, // a quoted ~ is a directory named ~ here
		"rm -rf $PWD/build",
		`rm -rf "$(pwd)/build"`,
		`rm -f "$TMPFILE"`,
		"cd build && rm -rf *",
		"cd build; cd ..; rm -rf dist",
		"git push origin main",
		"git push -u origin HEAD",
		"find . -name '*.pyc' -delete",
		"find . -type d -name __pycache__ -exec rm -rf {} +",
		"find build -delete",
		"find . -name '*.go' -exec gofmt -l {} +",
		"chmod -R u+w ./build",
		"chown -R me build",
		"chmod +x ~/bin/tool",
		"chmod 644 ~/canary/file",
		"rm ~/canary/file",
		"ls -la ~/canary",
		"cat <<'EOF' > notes.txt\nrm -rf ~/canary\nEOF",
		"echo 'rm -rf ~/canary'",
		"grep -rn 'shutil.rmtree' .",
		"python3 -c 'print(1)'",
		`python3 -c 'import json,sys; print(json.load(sys.stdin)["x"])' < data.json`,
		"python3 script.py --delete",
		"python3 -m pytest -x",
		"node -e 'console.log(process.version)'",
		"perl -ne 'print if /TODO/' main.go",
		"ruby -e 'puts 1'",
		"npm ci && npm test",
		"cargo build --release",
		"make clean all",
		"bash ./scripts/test.sh",
		"sh -c 'rm -rf ./build && make'",
		"sudo apt-get install -y jq",
		"xargs -0 grep -l TODO < files",
		"f() { rm -rf ./build; }; f",
		`f() { rm -rf "./$1"; }; f out`,
		"alias ll='ls -la'; ll",
		"awk '{print $1}' go.sum",
		"awk -F: '{ n += $3 } END { print n }' data",
		"rsync -a --delete src/ ./mirror/",
		"source ./env.sh && . venv/bin/activate",
		"ln -s ../shared shared",
		"env -C build make",
		"npx rimraf ./dist",
		"rm -rf l*", // the links themselves
		"npx prettier --write .",
		"ssh -p 2222 host uptime",
		"cd sublink/.. && rm -rf sub", // cd -L: .. is lexical, back in the workspace
		"for f in *.txt; do wc -l \"$f\"; done",
		"if [ -d build ]; then rm -rf build; fi",
		"docker run --rm -v $PWD:/src img",
		"kill $!",
		"",
		"# just a comment",
	} {
		if got, why := Destructive(cmd, at); got {
			t.Errorf("Destructive(%q) = true, %q; want false", cmd, why)
		}
	}
}

// TestReasonsFixed: a reason never carries the command's text.
func TestReasonsFixed(t *testing.T) {
	_, at := newLayout(t)
	for _, cmd := range []string{"rm -rf /secret-TOKEN-1", "python3 -c 'shutil.rmtree(\"TOKEN\")'", "rm -rf 'TOKEN"} {
		_, why := Destructive(cmd, at)
		found := false
		for _, r := range Reasons() {
			found = found || r == why
		}
		if !found {
			t.Errorf("Destructive(%q) reason %q is not one of Reasons()", cmd, why)
		}
	}
}

// TestHomeBelowTemp: with no TMPDIR the temp directory is /tmp; a HOME
// below it (as in these tests, or a CI runner) is still home: the
// innermost directory decides.
func TestHomeBelowTemp(t *testing.T) {
	l, _ := newLayout(t)
	if !strings.HasPrefix(resolve(l.home, true), "/tmp/") {
		t.Skip("the test's temp directory is not below /tmp")
	}
	at := Place{Cwd: l.ws, Env: []string{"HOME=" + l.home}}
	for _, cmd := range []string{"rm -rf ~/canary", "rm -rf ~", "rm -rf " + l.home, "rm -rf ~/*"} {
		if got, why := Destructive(cmd, at); !got || why != ReasonDeleteOutside {
			t.Errorf("%s = %v, %q with HOME below /tmp", cmd, got, why)
		}
	}
	// A home apart from the workspace, itself below /tmp.
	apart := Place{Cwd: l.ws, Env: []string{"HOME=" + l.tmp}}
	if got, why := Destructive("rm -rf ~", apart); !got || why != ReasonDeleteOutside {
		t.Errorf("rm -rf ~ = %v, %q with HOME apart, below /tmp", got, why)
	}
	if got, why := Destructive("rm -rf /tmp/some-build-dir", at); got {
		t.Errorf("rm -rf /tmp/some-build-dir = %v, %q", got, why)
	}
}

// TestComputedAssignments: a script that may assign a variable under a
// name it computes (or rewrite the positional parameters) loses what it
// knew: $TMPDIR and "$1" are then unknown, and the path outside.
func TestComputedAssignments(t *testing.T) {
	_, at := newLayout(t)
	for _, cmd := range []string{
		"TMPDIR=~; rm -rf $TMPDIR/canary",
		`read TMP""DIR <<< ~; rm -rf $TMPDIR/canary`,
		`n=TMP; n+=DIR; printf -v "$n" %s ~; rm -rf $TMPDIR/canary`,
		`declare -n r=TMP""DIR; r=~; rm -rf $TMPDIR/canary`,
		`eval "TMP""DIR=~"; rm -rf $TMPDIR/canary`,
		`export {TMP,}DIR=~; rm -rf $TMPDIR/canary`,
		`: ${TMPDIR:=~}; rm -rf $TMPDIR/canary`,
		`set -- ~/canary; rm -rf "$1"`,
		`f() { shift; rm -rf "$1"; }; f ./build ~/canary`,
		`sh -c 'shift; rm -rf "$1"' sh ./build ~/canary`,
		`cd() { builtin cd ~; }; cd build; rm -rf *`,
	} {
		if got, why := Destructive(cmd, at); !got {
			t.Errorf("Destructive(%q) = false, %q; want true", cmd, why)
		}
	}
	for _, cmd := range []string{"rm -rf $TMPDIR/x", `f() { rm -rf "./$1"; }; f out`, `sh -c 'rm -rf "./$1"' sh out`} {
		if got, why := Destructive(cmd, at); got {
			t.Errorf("Destructive(%q) = true, %q; want false", cmd, why)
		}
	}
}

// TestCDPATHFromEnv: with CDPATH in the environment, cd NAME may leave the
// workspace.
func TestCDPATHFromEnv(t *testing.T) {
	l, _ := newLayout(t)
	at := Place{Cwd: l.ws, Env: []string{"HOME=" + l.home, "CDPATH=" + l.home}}
	if got, why := Destructive("cd canary && rm -rf *", at); !got {
		t.Errorf("cd canary && rm -rf * = %v, %q with CDPATH=$HOME", got, why)
	}
}
