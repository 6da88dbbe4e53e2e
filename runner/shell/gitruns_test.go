package shell

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitRunsLayout is gitLayout with repositories whose configuration files
// make git run a command or push by force: a pager, a tool's command,
// the ext:: transport allowed, an alias the repository sets over the
// person's global one of the same name, a setting included from a file
// in the workspace.
func gitRunsLayout(t *testing.T) (layout, Place) {
	t.Helper()
	l, at := gitLayout(t)
	files := map[string]string{
		filepath.Join(l.ws, "pager/.git/config"):    "[core]\n\tpager = git push -f origin main\n",
		filepath.Join(l.ws, "tool/.git/config"):     "[difftool \"x\"]\n\tcmd = git push --force origin main\n",
		filepath.Join(l.ws, "trailer/.git/config"):  "[trailer \"t\"]\n\tcmd = rm -rf ~/canary\n",
		filepath.Join(l.ws, "update/.git/config"):   "[submodule \"s\"]\n\tupdate = !git push --mirror\n",
		filepath.Join(l.ws, "ext/.git/config"):      "[protocol \"ext\"]\n\tallow = always\n",
		filepath.Join(l.ws, "local/.git/config"):    "[alias]\n\tlg = push --force\n",
		filepath.Join(l.ws, "included/.git/config"): "[include]\n\tpath = ../git.inc\n",
		filepath.Join(l.ws, "included/git.inc"):     "[alias]\n\tsend = push --mirror\n",
		filepath.Join(l.home, ".config/git/config"): "[alias]\n\tlg = log --graph\n\tover = log\n",
		filepath.Join(l.ws, ".hg/hgrc"):             "[alias]\nst2 = status\n",
		filepath.Join(l.ws, "hookrepo/.git/config"): "[core]\n\thooksPath = hk\n",
		filepath.Join(l.ws, "bracket/.git/config"):  "[remote \"x]y\"]\n\turl = z\n[alias]\n\tpf = push --force\n",
		filepath.Join(l.ws, "tabsec/.git/config"):   "[remote\t\"o\"]\n\tpush = +refs/heads/*:refs/heads/*\n",
		filepath.Join(l.ws, "crlf/.git/config"):     "[alias]\r\n\tpf = push \\\r\n --force\r\n",
		filepath.Join(l.ws, "bom/.git/config"):      "\uFEFF[alias]\n\tpf = push --force\n[remote \"o\"]\n\tpush = +refs/heads/*:refs/heads/*\n",
	}
	global, err := os.ReadFile(filepath.Join(l.home, ".gitconfig"))
	if err != nil {
		t.Fatal(err)
	}
	files[filepath.Join(l.home, ".gitconfig")] = string(global) + "[alias]\n\tover = push --force\n"
	writeFiles(t, files, 0o644)
	return l, at
}

// writeFiles writes each file (an absolute path) with its content and mode,
// making its directories.
func writeFiles(t *testing.T, files map[string]string, mode os.FileMode) {
	t.Helper()
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGitRunsAndConfigures: every way git's command line, its
// configuration files, a setting the same line writes, or a variable
// assigned from data gets git to push by force (or to run a command that
// does) asks; checked with and without the sandbox's read-only .git,
// since a command that only reads .git asks for nothing else.
func TestGitRunsAndConfigures(t *testing.T) {
	_, at := gitRunsLayout(t)
	ro := at
	ro.GitReadOnly = true
	for _, tc := range []struct {
		cmd  string
		want Reason
	}{
		// -c wins over the files, the repository's file over the global
		// ones (git's order; the last value wins).
		{"git -c alias.st='push -f' st origin main", ReasonGitPush},
		{"git -c alias.safe='push --mirror' safe", ReasonGitPush},
		{"git -C local lg", ReasonGitPush},
		{"git -C included send", ReasonGitPush},
		{"git -C bom pf", ReasonGitPush}, // a file that starts with a UTF-8 byte order mark
		{"git -C bom push o", ReasonGitPush},
		{"git -C bracket pf", ReasonGitPush},    // a "]" inside a subsection's quotes
		{"git -C tabsec push o", ReasonGitPush}, // a tab before the subsection
		{"git -C crlf pf", ReasonGitPush},       // a continuation ending in CR LF
		{"git over", ReasonGitPush},             // ~/.gitconfig is read after $XDG_CONFIG_HOME/git/config
		// A force spelled through parameter expansions with operators,
		// quotes, escapes and braces.
		{"B=xmain; git push origin +${B#x}", ReasonGitPush},
		{"B=+xmain; git push origin ${B/x/}", ReasonGitPush},
		{"B=-xf; git push ${B/x/} origin main", ReasonGitPush},
		{"B=--forcex; git push ${B%x} origin main", ReasonGitPush},
		{`B=x--force; git push "${B#x}" origin main`, ReasonGitPush},
		{"B=--force; git push ${B%%x*} origin main", ReasonGitPush},
		{"git push origin ${B:-+main}", ReasonGitPush},
		{"git push ${F:+-f} origin main", ReasonGitPush},
		{"V=pxsh; git ${V/x/u} -f origin main", ReasonOpaque}, // the subcommand is not known
		{"git pu\\sh -f origin main", ReasonGitPush},
		{`git "pu""sh" -f origin main`, ReasonGitPush},
		{`git $'\x70ush' -f origin main`, ReasonGitPush},
		{`git push $'--\x66orce' origin main`, ReasonGitPush},
		{`git push --fo"r"ce origin main`, ReasonGitPush},
		{"git push -{f,} origin main", ReasonGitPush},
		{"git push --fo$(echo rce) origin main", ReasonGitPush},
		// Options whose value git runs as a command, in each spelling.
		{"git grep -O'git push -f origin main #' x", ReasonGitPush},
		{"git grep -iO'git push -f origin main #' x", ReasonGitPush},
		{"git grep --open-files-in-pager='git push -f' x", ReasonGitPush},
		{"git grep --open='git push -f' x", ReasonGitPush},
		{"git ls-remote --upload-pack='git push -f origin main; git-upload-pack' .", ReasonGitPush},
		{"git ls-remote --upl 'git push -f origin main; git-upload-pack' .", ReasonGitPush},
		{"git ls-remote --exec='git push -f' .", ReasonGitPush},
		{"git fetch --upload-pack 'git push -f' .", ReasonGitPush},
		{"git pull --upload-pack='git push -f' .", ReasonGitPush},
		{"git fetch-pack --exec='git push -f' .", ReasonGitPush},
		{"git clone -u 'git push -f' . d", ReasonGitPush},
		{"git clone -c core.pager='git push -f' ../r d", ReasonGitPush},
		{"git clone -u'git push -f' . d", ReasonGitPush},
		{"git clone --upload-pack='git push -f' . d", ReasonGitPush},
		{"git archive --remote=. --exec='git push -f; git-upload-archive' HEAD", ReasonGitPush},
		{"git push --receive-pack='git push -f' ../r", ReasonGitPush},
		{"git send-pack --rec='git push -f' ../r main", ReasonGitPush},
		{"git rebase -x 'git push -f origin main' main", ReasonGitPush},
		{"git rebase -ix 'git push -f origin main' main", ReasonGitPush},
		{"git rebase --exec='git push -f' main", ReasonGitPush},
		{"git rebase --exe 'git push -f' main", ReasonGitPush},
		{"git difftool -x 'git push -f'", ReasonGitPush},
		{"git difftool --extcmd='git push -f'", ReasonGitPush},
		{"git submodule foreach 'git push -f'", ReasonGitPush},
		{"git submodule foreach git push -f origin main", ReasonGitPush},
		{"git submodule foreach --recursive -- git push --force", ReasonGitPush},
		{"git submodule --quiet foreach 'git push --mirror'", ReasonGitPush},
		{`git submodule "$S" 'git push -f'`, ReasonOpaque},
		{`git submodule foreach "$C"`, ReasonOpaque},
		{"git bisect run git push -f", ReasonGitPush},
		{`git bisect "$B" git push -f`, ReasonOpaque},
		{"git for-each-repo --config=maintenance.repo push origin main", ReasonGitPush},
		{"git for-each-repo --config maintenance.repo -- push origin main", ReasonGitPush},
		{"git send-email --to-cmd='git push -f' x.patch", ReasonGitPush},
		{"git send-email --smtp-server='git push -f' x.patch", ReasonGitPush},
		{"git filter-branch --tree-filter 'git push -f' HEAD", ReasonGitPush},
		{"git instaweb --httpd='git push -f'", ReasonGitPush},
		// Pushes that send-pack, http-push and receive-pack make.
		{"printf '+HEAD:refs/heads/main\\n' | git send-pack --stdin ../r", ReasonGitPush},
		{"git send-pack --stdin ../r < refs.txt", ReasonGitPush},
		{"git http-push --force https://h/r.git main", ReasonGitPush},
		{"git http-push -D https://h/r.git main", ReasonGitPush},
		{"git http-push https://h/r.git +main", ReasonGitPush},
		{"git receive-pack ../r.git", ReasonGitPush},
		// Settings that make git run a command: -c, and the files.
		{"git -c man.viewer=x -c man.x.cmd='git push -f origin main' help -m push", ReasonGitPush},
		{"git -c browser.x.cmd='git push -f' help -w push", ReasonGitPush},
		{"git -c man.x.path='rm -rf ~/canary' help -m push", ReasonDeleteOutside},
		{"git -c difftool.x.cmd='git push -f origin main' difftool -t x", ReasonGitPush},
		{"git -c mergetool.x.cmd='git push -f' mergetool -t x", ReasonGitPush},
		{"git -c interactive.diffFilter='git push -f' add -p", ReasonGitPush},
		{"git -c trailer.x.cmd='git push -f' commit --trailer x=y", ReasonGitPush},
		{"git -c sendemail.tocmd='git push -f' send-email x.patch", ReasonGitPush},
		{"git -c sendemail.smtpServer='git push -f' send-email x.patch", ReasonGitPush},
		{"git -c core.alternateRefsCommand='git push -f' fetch .", ReasonGitPush},
		{"git -c gpg.ssh.defaultKeyCommand='git push -f' commit -S -m x", ReasonGitPush},
		{"git -c imap.tunnel='git push -f' imap-send", ReasonGitPush},
		{"git -c submodule.x.update='!git push -f origin main' submodule update", ReasonGitPush},
		{"git -c protocol.ext.allow=always ls-remote 'ext::sh -c git% push% -f'", ReasonOpaque},
		{"git -c protocol.allow=user ls-remote x", ReasonOpaque},
		{"git -C pager log", ReasonGitPush},
		{"git -C tool status", ReasonGitPush},
		{"git -C trailer status", ReasonDeleteOutside},
		{"git -C update submodule update", ReasonGitPush},
		{"git -C ext status", ReasonOpaque},
		// What the same line writes into the configuration before git
		// reads it: checked as it is written, then unsure.
		{"git config alias.p 'push -f' && git p origin main", ReasonOpaque},
		{"git config alias.st 'push -f' && git st origin main", ReasonOpaque},
		{"git config --global alias.p 'push -f'; git p", ReasonOpaque},
		{"git config set alias.p 'push -f' && git p", ReasonOpaque},
		{"git config remote.origin.push +refs/heads/main:refs/heads/main && git push origin", ReasonGitPush},
		{"git config remote.origin.mirror true && git push origin", ReasonGitPush},
		{"git remote add --mirror=push m ../r && git push m", ReasonGitPush},
		{"git init d && cd d && git config alias.p 'push -f' && git p", ReasonOpaque},
		{"git clone -c remote.origin.push=+refs/heads/*:refs/heads/* ../r d && git -C d push", ReasonGitPush},
		{"git clone --config alias.x='!git push -f' ../r d", ReasonGitPush},
		{"git clone -calias.x='!git push -f' ../r d", ReasonGitPush},
		{"git clone --config=core.pager='git push -f' ../r d", ReasonGitPush},
		{"git config core.pager 'git push -f origin main'", ReasonGitPush},
		{"git config --file x.cfg core.sshCommand 'git push -f'", ReasonGitPush},
		{"git config --fil x.cfg core.sshCommand 'git push -f'", ReasonGitPush}, // options in any abbreviation
		{"git config --ty bool core.sshCommand 'git push -f'", ReasonGitPush},
		{"git config --valu x core.sshCommand 'git push -f'", ReasonGitPush},
		{"git config set --comm x core.sshCommand 'git push -f'", ReasonGitPush},
		{"git config -zf x.cfg core.sshCommand 'git push -f'", ReasonGitPush},
		{"git config --fil .git/config core.fsmonitor 'git push -f'; git status", ReasonGitPush},
		{"git config alias.x '!git push --mirror'", ReasonGitPush},
		{"git config alias.x \"$V\"", ReasonOpaque},
		{"printf '[alias]\\n\\tp = push -f\\n' >> .git/config; git p origin main", ReasonOpaque},
		{"printf '[remote \"origin\"]\\n\\tpush = +main:main\\n' >> .git/config; git push origin", ReasonGitPush},
		{"echo x | tee -a .git/config; git push origin", ReasonGitPush},
		{"cp evil.cfg .git/config && git push", ReasonGitPush},
		{"mv evil .git && git push", ReasonGitPush},
		{"echo '[alias] send = push -f' > included/git.inc; git -C included send", ReasonOpaque},
		{`echo x > "$F"; git push`, ReasonGitPush},
		// A hook the line writes, then a git command that may run it.
		{"printf 'git push -f origin main\\n' > .git/hooks/pre-commit; git commit -m x", ReasonOpaque},
		{"cp evil .git/hooks/pre-push && git push origin main", ReasonOpaque},
		{"echo 'git push -f' | tee .git/hooks/post-checkout; git checkout main", ReasonOpaque},
		{"mkdir hk; echo x > hk/pre-commit; git -c core.hooksPath=hk commit -m x", ReasonOpaque},
		{"echo x > ~/real.git/hooks/reference-transaction; git -C wt branch x", ReasonOpaque}, // a worktree: the common directory's hooks
		{`echo x > "$F"; git commit -m x`, ReasonOpaque},
		{`echo x > notes.txt; cd "$D" && git commit -m x`, ReasonOpaque},               // the repository not known
		{"echo x > hookrepo/hk/pre-commit; git -C hookrepo commit -m x", ReasonOpaque}, // core.hooksPath of the repository
		// Variables that load git configuration, given by env or assigned
		// from data or arithmetic.
		{"env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push -f' git p origin main", ReasonOpaque},
		{"env GIT_CONFIG_GLOBAL=x.cfg git p origin main", ReasonOpaque},
		{"env -S 'GIT_CONFIG_GLOBAL=x.cfg git p origin main'", ReasonOpaque},
		{"env PAGER='rm -rf ~/canary' git log", ReasonDeleteOutside},
		{"alias g='GIT_CONFIG_GLOBAL=x.cfg git'; g p", ReasonOpaque},
		{"export GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push -f'; git p", ReasonOpaque},
		{"read -r GIT_CONFIG_GLOBAL <<< x.cfg; export GIT_CONFIG_GLOBAL; git p", ReasonOpaque},
		{"read -a GIT_CONFIG_COUNT <<< 1; git p", ReasonOpaque},
		{"printf -v GIT_CONFIG_GLOBAL x.cfg; export GIT_CONFIG_GLOBAL; git p", ReasonOpaque},
		{"printf -vGIT_CONFIG_GLOBAL x.cfg; git p", ReasonOpaque},
		{"mapfile -t GIT_CONFIG_GLOBAL <<< x.cfg; git p", ReasonOpaque},
		{"readarray GIT_CONFIG_PARAMETERS < f; git p", ReasonOpaque},
		{"getopts x GIT_CONFIG_GLOBAL; git p", ReasonOpaque},
		{"wait -p GIT_CONFIG_COUNT; git p", ReasonOpaque},
		{"wait -fnp GIT_CONFIG_COUNT; git p", ReasonOpaque},
		{"wait -n -p GIT_CONFIG_COUNT; git p", ReasonOpaque},
		{": ${GIT_CONFIG_GLOBAL:=x.cfg}; export GIT_CONFIG_GLOBAL; git p", ReasonOpaque},
		{": ${GIT_CONFIG_GLOBAL=x.cfg}; git p", ReasonOpaque},
		{"for GIT_CONFIG_GLOBAL in x.cfg; do export GIT_CONFIG_GLOBAL; git p; done", ReasonOpaque},
		{"select GIT_CONFIG_GLOBAL in x.cfg; do break; done; git p", ReasonOpaque},
		{"let GIT_CONFIG_COUNT=1; git p", ReasonOpaque},
		{"(( GIT_CONFIG_COUNT=1 )); git p", ReasonOpaque},
		{"(( GIT_CONFIG_COUNT+=1 )); git p", ReasonOpaque},
		{"(( GIT_CONFIG_COUNT++ )); git p", ReasonOpaque},
		{"(( --GIT_CONFIG_COUNT )); git p", ReasonOpaque},
		{"command export GIT_CONFIG_GLOBAL=x.cfg; git p", ReasonOpaque},
		{"read -r PAGER < f; git log", ReasonOpaque},
		// printf assigns only after -v: HOME (where the global files are)
		// then unknown, so is the configuration.
		{"printf -v HOME /x; git push origin main", ReasonGitPush},
		{"printf -vHOME /x; git push origin main", ReasonGitPush},
		{"printf -\\v HOME /x; git push origin main", ReasonGitPush},
		{`printf "$F" HOME /x; git push origin main`, ReasonGitPush},
		{`printf -v "$N" /x; git push origin main`, ReasonGitPush},
		{`printf -v "$N"; git push origin main`, ReasonGitPush},
		{`printf -\v "$N" /x; git push origin main`, ReasonGitPush},
		// Another repository's history: a local remote, another project,
		// one whose path is not known.
		{"git -C ../r.git fetch ../proj +HEAD:main", ReasonRemoteHistory},
		{"git --git-dir=$HOME/other.git fetch . +HEAD:refs/heads/main", ReasonRemoteHistory},
		{"git -C ~/other.git fetch -f . HEAD:main", ReasonRemoteHistory},
		{"git -C ~/other.git fetch --prune origin", ReasonRemoteHistory},
		{"git -C ~/other.git pull --force", ReasonRemoteHistory},
		{"git --git-dir=$HOME/other.git update-ref refs/heads/main HEAD~1", ReasonRemoteHistory},
		{"cd ~/other.git && git update-ref -d refs/heads/main", ReasonRemoteHistory},
		{"git -C ~/other.git branch -f main HEAD~1", ReasonRemoteHistory},
		{"git -C ~/other.git branch -D x", ReasonRemoteHistory},
		{"git -C ~/other.git branch -d x", ReasonRemoteHistory},
		{"git -C ~/other.git branch --delete x", ReasonRemoteHistory},
		{"git -C ~/other.git branch --mov x y", ReasonRemoteHistory},
		{"git -C ~/other.git branch -C x main", ReasonRemoteHistory},
		{"git -C ~/other.git tag -d v1", ReasonRemoteHistory},
		{"git -C ~/other.git tag --force v1 HEAD~1", ReasonRemoteHistory},
		{"git -C ~/other.git reset --soft HEAD~1", ReasonRemoteHistory},
		{"git -C ~/other.git rebase -i HEAD~3", ReasonRemoteHistory},
		{"git -C ~/other.git commit --amend -m x", ReasonRemoteHistory},
		{"git -C ~/other.git checkout -B main HEAD~1", ReasonRemoteHistory},
		{"git -C ~/other.git switch -C main HEAD~1", ReasonRemoteHistory},
		{"git -C ~/other.git symbolic-ref HEAD refs/heads/x", ReasonRemoteHistory},
		{"git -C ~/other.git symbolic-ref -d HEAD", ReasonRemoteHistory},
		{"git -C ~/other.git replace HEAD HEAD~1", ReasonRemoteHistory},
		{"git -C ~/other.git reflog expire --expire=now --all", ReasonRemoteHistory},
		{"git -C ~/other.git gc --prune=now", ReasonRemoteHistory},
		{"git -C ~/other.git prune", ReasonRemoteHistory},
		{"git -C ~/other.git filter-branch HEAD", ReasonRemoteHistory},
		{"git -C ~/other.git fast-import --force < stream", ReasonRemoteHistory},
		{`git -C "$R" update-ref refs/heads/main HEAD~1`, ReasonRemoteHistory},
		{`git -C ~/other.git branch $F x`, ReasonRemoteHistory},
		// Variables and options that make git run other programs or
		// allow ext::.
		{"GIT_ALLOW_PROTOCOL=ext git ls-remote 'ext::sh -c git% push% -f'", ReasonOpaque},
		{"export GIT_ALLOW_PROTOCOL=ext:https; git fetch x", ReasonOpaque},
		{"GIT_PROXY_COMMAND='git push -f origin main' git fetch git://h/r", ReasonGitPush},
		{"GIT_EXEC_PATH=./bin git push origin main", ReasonOpaque},
		{"git --exec-path=./bin push origin main", ReasonOpaque},
		{"GIT_TEMPLATE_DIR=./tpl git clone ../r d", ReasonOpaque},
		// env - (env -i) still runs its command.
		{"env - git push -f", ReasonGitPush},
		{"env - PAGER='rm -rf ~/canary' git log", ReasonDeleteOutside},
	} {
		for _, p := range []Place{at, ro} {
			if got, why := Destructive(tc.cmd, p); !got || why != tc.want {
				t.Errorf("GitReadOnly %v: Destructive(%q) = %v, %q; want true, %q", p.GitReadOnly, tc.cmd, got, why, tc.want)
			}
		}
	}
}

// TestGitRunsAllowed: the ordinary forms of the same commands, and
// settings that run nothing, do not ask (without the sandbox).
func TestGitRunsAllowed(t *testing.T) {
	_, at := gitRunsLayout(t)
	for _, cmd := range []string{
		"git grep -e foo", "git grep -O foo", "git grep -Oless foo", "git grep -n -i foo",
		"git fetch origin", "git pull --rebase", "git clone ../r d", "git clone -q ../r d",
		"git ls-remote origin", "git archive -o x.tar HEAD", "git rebase main", "git rebase -i main",
		"git submodule update --init", "git submodule status", "git bisect start", "git bisect good",
		"git difftool --tool=vimdiff", "git send-pack ../r main", "git send-pack --all ../r",
		"git help push", "git -C local log", "git -C included status",
		"git -c core.pager=less log", "git -c protocol.ext.allow=never fetch",
		"git -c submodule.x.update='!true' submodule update", "git -c alias.l='!ls' status",
		"git config user.name x && git commit -m x", "git config --get user.name && git st",
		"git config -l; git push origin main", "git remote -v && git push origin main",
		"git add . && git commit -m x && git push origin main",
		"echo x > notes.txt && git push origin main", "git log > log.txt; git push",
		"echo x > notes.txt; git commit -am x", "echo x > .git/hooks/pre-commit; git status",
		"echo x > hookrepo/notes.txt; git -C hookrepo commit -am x",
		"env GIT_CONFIG_NOSYSTEM=1 git push", "unset GIT_DIR; git status", "export PAGER=less; git log",
		"env -u PAGER git log", "read -r name; echo $name", "for f in *.go; do git add $f; done",
		"(( n = 1 )); git status", "git --exec-path", "git --exec-path status", "printf 'x\\n' > notes.txt; git push origin main",
		"printf '%s\\n' a b > f && git push origin main", "printf -v n '%d' 3; git push origin main",
		"git update-ref refs/heads/x HEAD", "git branch -D x", "git tag -d v1", "git reset --soft HEAD~1",
		"git fetch origin +main:main", "git -C $TMPDIR/x.git update-ref refs/heads/main HEAD",
		"git -C ~/other.git branch", "git -C ~/other.git symbolic-ref HEAD", "git -C ~/other.git fetch origin",
		"git -C ~/other.git log", "git -C ~/other.git tag -l", "git -C ~/other.git replace -l",
		"git -C ~/other.git branch new main", "git -C ~/other.git reflog",
	} {
		if got, why := Destructive(cmd, at); got {
			t.Errorf("Destructive(%q) = true, %q; want false", cmd, why)
		}
	}
}

// TestWrappersRunPrograms: a wrapper (command, exec, env, sudo, xargs,
// find -exec, runuser, jj util exec, git bisect run) runs a program, never
// the shell's function of that name: a function that hides the program
// (or calls it, as git() { command git "$@"; } does) changes nothing of
// what the program does. And the forges' API requests whose body is not
// seen, or which ask to force a branch, ask.
func TestWrappersRunPrograms(t *testing.T) {
	_, at := gitRunsLayout(t)
	checkCases(t, at, []vcsCase{
		{`git() { command git "$@"; }; git push -f origin main`, ReasonOpaque},
		{"git() { :; }; command git push -f origin main", ReasonGitPush},
		{"git() { :; }; exec git push -f origin main", ReasonGitPush},
		{"git() { :; }; env git push --force", ReasonGitPush},
		{"git() { :; }; sudo git push --mirror", ReasonGitPush},
		{"git() { :; }; echo x | xargs git push -f", ReasonGitPush},
		{"git() { :; }; find . -maxdepth 0 -exec git push -f \\;", ReasonGitPush},
		{"git() { :; }; command git bisect run git push -f", ReasonGitPush},
		{"rm() { :; }; command rm -rf ~/canary", ReasonDeleteOutside},
		{"rm() { :; }; runuser -u nobody rm -rf ~/canary", ReasonDeleteOutside},
		{"rm() { :; }; jj util exec -- rm -rf ~/canary", ReasonDeleteOutside},
		{"alias git=true; command git push -f", ReasonGitPush},
		{"pkexec git push -f", ReasonGitPush},
		{"pkexec --user x git push --mirror", ReasonGitPush},
		{"parallel git push -f ::: origin", ReasonGitPush},
		{"parallel 'git push -f {}' ::: origin", ReasonGitPush},
		{"parallel --gnu git push ::: -f", ReasonGitPush},
		{"parallel -j 4 git push {} main ::: -f", ReasonGitPush},
		{"parallel --jobs 2 -- git push {1} ::: --force", ReasonGitPush},
		{"parallel -j4 'rm -rf {}' ::: ~/canary", ReasonDeleteOutside},
		{"parallel rm -rf :::: list.txt", ReasonDeleteOutside},
		{"ls | parallel", ReasonOpaque},
		{"parallel 'git {} -f' ::: status push", ReasonGitPush}, // each run its own argument
		{"parallel git {1} {2} ::: push ::: -f", ReasonGitPush}, // each combination of the groups
		{"parallel git ::: status push ::: -f", ReasonOpaque},
		{"parallel rm -rf {//} ::: ./x", ReasonDeleteOutside}, // a value not computed
		{"parallel rm -rf ::: a :::: list.txt", ReasonDeleteOutside},
		{"parallel -n2 git {1} {2} ::: push -f", ReasonOpaque}, // options that change what a run gets
		{"parallel -I ,, git ,, -f ::: push", ReasonOpaque},
		{`parallel 'echo {=system"x"=}' ::: x`, ReasonOpaque}, // Perl
		// Other programs that run their operands as a command.
		{"valgrind --tool=memcheck -q git push -f", ReasonGitPush},
		{"setpriv --reuid 0 --clear-groups git push -f", ReasonGitPush},
		{"eatmydata git push -f", ReasonGitPush},
		{"xvfb-run -s '-screen 0' git push -f", ReasonGitPush},
		{"dbus-run-session -- git push -f", ReasonGitPush},
		{"proxychains4 -f x.conf git push -f", ReasonGitPush},
		{"torsocks git push -f", ReasonGitPush},
		{"cpulimit -l 50 -- git push -f", ReasonGitPush},
		{"trickle -u 10 git push -f", ReasonGitPush},
		{"chpst -u nobody git push -f", ReasonGitPush},
		{"chroot --userspec=a:b / git push -f", ReasonGitPush},
		{"chroot --userspec a:b / git push -f", ReasonGitPush},
		{"faketime '2020-01-01' git push -f", ReasonGitPush},
		{"sem -j2 git push -f", ReasonGitPush},
		{"sg wheel -c 'git push -f'", ReasonGitPush},
		{"sg wheel git push -f", ReasonGitPush},
		{"ip netns exec ns1 git push -f", ReasonGitPush},
		{"ip vrf exec blue git push --mirror", ReasonGitPush},
		{"ip -n x netns exec y git push -f", ReasonGitPush}, // options and abbreviations
		{"ip -all netns exec git push -f", ReasonGitPush},
		{"ip -a net e git push -f", ReasonGitPush},
		{"ip --netns x netns exec y git push -f", ReasonGitPush},
		{"ip netns e x git push -f", ReasonGitPush},
		{"ip v exec blue git push -f", ReasonGitPush},
		{"ip -b cmds.txt", ReasonOpaque},
		{`ip $OPT netns exec x git status`, ReasonOpaque},
		{"perf stat -e cycles git push -f", ReasonGitPush},
		{"perf record git push -f", ReasonGitPush},
		{"hyperfine 'git push -f'", ReasonGitPush},
		{"hyperfine -p 'git push -f' ls", ReasonGitPush},
		{"hyperfine --prepare='git push -f' ls", ReasonGitPush},
		{"hyperfine -p'git push -f' ls", ReasonGitPush}, // attached, in a cluster
		{"hyperfine -ip='git push -f' ls", ReasonGitPush},
		{"hyperfine -S 'git push -f' ls", ReasonGitPush}, // the shell, run with -c ls
		{"hyperfine -L c 'push -f' 'git {c}'", ReasonGitPush},
		{"hyperfine --parameter-list=c status,push -N 'git {c} -f'", ReasonGitPush},
		{"hyperfine -L a push -L b x,-f 'git {a} {b}'", ReasonGitPush},
		{"hyperfine -P n 1 3 -- 'rm -rf ~/canary/{n}'", ReasonDeleteOutside},
		{`hyperfine -L "$N" 'push -f' 'git {c}'`, ReasonOpaque},
		{"watchexec -e go -- git push -f", ReasonGitPush},
		{"watchexec 'git push -f'", ReasonGitPush},
		{"watchexec --exts rs -- git push -f", ReasonGitPush}, // a long option's value
		{"watchexec --watch . git push -f", ReasonGitPush},
		{"watchexec --restart git push -f", ReasonGitPush},
		{"watchexec -r -e rs git push -f", ReasonGitPush},
		{"entr -s 'git push -f'", ReasonGitPush},
		{"entr -r git push -f", ReasonGitPush},
		// Inline programs of other interpreters, and programs whose
		// option or input is a shell command or a makefile.
		{`lua -e 'os.execute("git push -f")'`, ReasonInterpreter},
		{`luajit -e 'io.popen("git push -f")'`, ReasonInterpreter},
		{`Rscript -e 'system("git push -f")'`, ReasonInterpreter},
		{"julia -e 'run(`git push -f`)'", ReasonInterpreter},
		{`julia --eval 'run(pipeline("x"))'`, ReasonInterpreter},
		{`julia -e 'run(Cmd(["git", "push", "-f"]))'`, ReasonInterpreter},
		{`deno eval 'new Deno.Command("git",{args:["push","-f"]}).outputSync()'`, ReasonInterpreter},
		{"bun -e 'await Bun.$`git push -f`'", ReasonInterpreter},
		{"expect -c 'spawn git push -f'", ReasonInterpreter},
		{"tclsh <<< 'exec git push -f'", ReasonInterpreter},
		{"pwsh -c 'git push -f'", ReasonOpaque},
		{"pwsh -Comm 'git push -f'", ReasonOpaque},
		{"powershell -EncodedCommand ZwBpAHQA", ReasonOpaque},
		{"pwsh --command 'git push -f'", ReasonOpaque}, // -- and stdin
		{"pwsh - <<< 'git push -f'", ReasonOpaque},
		{"echo 'git push -f' | pwsh", ReasonOpaque},
		{"pwsh -NoProfile <<< 'git push -f'", ReasonOpaque},
		{"echo 'git push -f' | pwsh -wd src", ReasonOpaque},
		{"man -P 'git push -f' ls", ReasonGitPush},
		{"man --pager='git push -f' ls", ReasonGitPush},
		{"make -f - <<< $'all:\n\tgit push -f'", ReasonOpaque},
		{"make --eval=$'x:\n\tgit push -f' x", ReasonOpaque},
		{"make -E 'x: ; git push -f' x", ReasonOpaque},
		{"make -sE 'x: ; git push -f' x", ReasonOpaque}, // in a cluster
		{"make -sf - <<< $'all:\n\tgit push -f'", ReasonOpaque},
		{"make -sf- <<< $'all:\n\tgit push -f'", ReasonOpaque},
		{"make --fi - <<< $'all:\n\tgit push -f'", ReasonOpaque},
		{"make --makefile=- <<< $'all:\n\tgit push -f'", ReasonOpaque},
		{"make --ev=$'x:\n\tgit push -f' x", ReasonOpaque},
		// jj and Mercurial read their configuration as the line leaves it.
		{"jj config set --repo aliases.p '[\"git\", \"push\"]' && jj p", ReasonOpaque},
		{"hg config --edit; hg pf", ReasonOpaque},
		{"echo 'st2 = push --force' >> .hg/hgrc; hg st2", ReasonOpaque},
		{"gh api graphql --input q.json", ReasonRemoteHistory},
		{"gh api graphql --input=- < q.json", ReasonRemoteHistory},
		{"glab api -X POST projects/1/repository/commits -f branch=main -f force=true", ReasonRemoteHistory},
		{"glab api projects/1/repository/commits -F force=1 -f branch=main", ReasonRemoteHistory},
		{"glab api --method POST projects/1/repository/commits --input body.json", ReasonRemoteHistory},
		{"gh api repos/o/r --input body.json -X DELETE", ReasonRemoteHistory},
		{"gh api repos/o/r/git/refs/heads/main -X PATCH --field force=true --field sha=x", ReasonRemoteHistory},
		// Not asked.
		{"git() { :; }; git push -f", ""}, // the function runs, not git
		{"glab api -X POST projects/1/repository/commits -f branch=main -f commit_message=x -f force=false", ""},
		{"gh api -X PUT repos/o/r/contents/x -f message=m -f content=Y", ""},
		{"gh api graphql -f query='query { viewer { login } }'", ""},
		{"command git status", ""},
		{"env git log", ""},
		{"sudo git fetch", ""},
		{"pkexec git status", ""},
		{"parallel --jobs 2 echo ::: a b", ""},
		{"parallel gzip ::: a.txt b.txt", ""},
		{"ls | parallel gzip", ""},
		{"parallel -kj4 gzip ::: a b", ""}, {"parallel --jobs=4 gzip {} ::: a b", ""}, {"parallel 'rm {}' ::: build/a.o", ""},
		{"jj config set --user ui.color never && jj --ignore-working-copy log", ""},
		{"hg st2", ""},
		{"chroot / ls", ""},
		{"valgrind ls", ""},
		{"hyperfine 'sleep 0.1'", ""},
		{"hyperfine -L n 1,2 'sleep 0.{n}'", ""},
		{"hyperfine -P n 1 3 -w 2 'sleep {n}'", ""},
		{"ip addr", ""},
		{"pwsh -File build.ps1", ""}, {"echo data | pwsh -NoProfile -File build.ps1", ""}, {"pwsh < build.ps1", ""},
		{"watchexec -e rs cargo test", ""}, {"watchexec --exts rs -- cargo test", ""}, {"watchexec --watch src 'make test'", ""},
		{"ip -br -c addr", ""}, {"ip -n ns1 link show", ""}, {"ip netns exec ns1 ip addr", ""}, {"ip neigh", ""},
		{"perf list", ""},
		{"sg wheel ls", ""},
		{`lua -e 'print(1)'`, ""},
		{`Rscript -e 'print(1)'`, ""},
		{`julia -e 'println(1)'`, ""},
		{"pwsh ./build.ps1", ""},
		{"man ls", ""},
		{"make -j4 test", ""},
		{"make -f build.mk all", ""},
	})
}

// TestForgeAliasesFromConfig: gh and glab commands that are not the
// client's own are read from its alias file (gh's config.yml, glab's
// aliases.yml): an alias that deletes refs or the repository, or a shell
// alias that force-pushes, asks; an extension, or an alias file that is
// not read, asks; a harmless alias does not.
func TestForgeAliasesFromConfig(t *testing.T) {
	l, at := gitRunsLayout(t)
	writeFiles(t, map[string]string{
		filepath.Join(l.home, ".config/gh/config.yml"): "version: 1\naliases:\n    p: api -X DELETE repos/o/r/git/refs/heads/main\n" +
			"    rd: repo delete\n    sh: '!git push -f origin main'\n    ok: pr list\n    del: api -X $1 repos/o/r/git/refs/heads/main\n    ref: api repos/o/r/git/refs/heads/main\n",
		filepath.Join(l.home, ".config/glab-cli/aliases.yml"): "del: api -X DELETE projects/1/repository/branches/main\nmrs: mr list\n",
		filepath.Join(l.ws, "ghdir/config.yml"):               "aliases:\n    p: pr list\n",
	}, 0o644)
	checkCases(t, at, []vcsCase{
		{"gh p", ReasonRemoteHistory},
		{"gh rd o/r --yes", ReasonRemoteHistory},
		{"gh sh", ReasonGitPush},
		{"gh del DELETE", ReasonRemoteHistory},
		{"gh ref -X DELETE", ReasonRemoteHistory},
		{"glab del", ReasonRemoteHistory},
		{"gh nosuch", ReasonOpaque},
		{"glab nosuch", ReasonOpaque},
		{"GH_CONFIG_DIR=ghdir gh p", ReasonOpaque},
		{"echo 'aliases: {p: pr list}' > ~/.config/gh/config.yml; gh p", ReasonOpaque},
		{"gh ok", ""},
		{"glab mrs", ""},
		{"gh pr list", ""},
		{"gh api repos/o/r", ""},
		{"glab mr list", ""},
		{"gh co 12", ""},
		{"gh help", ""},
		{"gh ref", ""},
	})
	ghdir := at
	ghdir.Env = append(append([]string(nil), at.Env...), "GH_CONFIG_DIR="+filepath.Join(l.ws, "ghdir"))
	if got, why := Destructive("gh p", ghdir); got {
		t.Errorf("GH_CONFIG_DIR: Destructive(gh p) = true, %q; want false (its p is pr list)", why)
	}
}

// TestGitAutocorrect: with help.autocorrect on (-c, a file, or set by the
// line), git runs the built-in command closest to a name that is no
// command (git -c help.autocorrect=1 psh -f pushed by force on git 2.39):
// such a name asks, unless a git-NAME program exists, which git runs
// first.
func TestGitAutocorrect(t *testing.T) {
	l, at := gitRunsLayout(t)
	bin := filepath.Join(l.home, "bin")
	writeFiles(t, map[string]string{
		filepath.Join(l.ws, "corrects/.git/config"): "[help]\n\tautocorrect = 1\n",
		filepath.Join(bin, "git-tool"):              "#!/bin/sh\n",
	}, 0o755)
	at.Env = append(append([]string(nil), at.Env...), "PATH=/usr/bin:/bin:"+bin)
	checkCases(t, at, []vcsCase{
		{"git -c help.autocorrect=immediate pussh -f origin main", ReasonOpaque},
		{"git -c help.autocorrect=1 psh -f origin main", ReasonOpaque},
		{"git -c help.autocorrect=-1 psh -f origin main", ReasonOpaque},
		{"git -c help.autocorrect=prompt psh -f origin main", ReasonOpaque},
		{"git -c help.autocorrect=true psh -f origin main", ReasonOpaque},
		{"git -C corrects psh -f origin main", ReasonOpaque},
		{"git config help.autocorrect 1 && git psh -f origin main", ReasonOpaque},
		{"git psh -f origin main", ""},
		{"git -c help.autocorrect=0 psh", ""},
		{"git -c help.autocorrect=never psh", ""},
		{"git -c help.autocorrect=1 tool x", ""},
		{"git -C corrects tool x", ""},
		{"git -C corrects status", ""},
	})
}

// TestParseGitConfigAsGit: parseGitConfig reads what git itself reads
// (git config --file F --list), for files whose syntax the two could read
// apart: a "]" inside a subsection's quotes, a tab before the subsection,
// a continuation ending in CR LF, a byte order mark, a NUL in a value,
// escapes, comments, old-style sections. Files git refuses are not
// compared (git then runs no command). Skipped without git.
func TestParseGitConfigAsGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	for n, src := range []string{
		"[remote \"x]y\"]\n\turl = z\n[alias]\n\tpf = push -f\n",
		"[remote\t\"o\"]\n\tpush = +x\n", "[remote  \"o\"]\n\tpush = +x\n",
		"[alias]\n\tpf = push \\\r\n -f\n", "[alias]\r\n\tpf = push -f\r\n", "\uFEFF[alias]\n\tpf = push -f\n",
		"[alias]\n\tpf = push -f\x00x\n", "[alias]pf=push -f\n", "[alias]\n\tpf = push \\\n -f\n",
		"[alias]\n\tpf = push -f ; c\n\tpg = \"a#b\"\n", "[alias] # c\n\tpf = push -f\n", "[alias]\n\tpf = \"push\" -f\n",
		"[alias]\n\tpf = push\\t-f\n", "[remote \"o\\\"r\"]\n\tpush = +x\n", "[remote \"o\\\\\"]\n\tpush = +x\n",
		"[remote \"a\\b\"]\n\tpush = +x\n", "[alias]\n\tpf=push -f\n\tpf\n", "[alias]\n\tpf = a\\\"b\n",
		"[alias]\n\tp-f = push -f\n", "[alias \"x\"]\n\tpf = push -f\n", "[Remote \"Origin\"]\n\tPush = +x\n",
		"[remote.origin]\n\tpush = +x\n", "\n\n  [alias]\n  pf = push -f\n", "[alias]\n\tpf = \"push \\\n-f\"\n",
		"[alias]\n\tpf =\n", "[alias]\n\tpf = push -f\\n\n", "[alias]\n\tpf = push -f\r", "[alias]\n\tpf = push \"-f\" \"\"\n",
	} {
		f := filepath.Join(dir, fmt.Sprint(n))
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("git", "config", "--file", f, "--list", "-z").Output()
		if err != nil {
			continue // git refuses the file
		}
		var want, got []string
		for _, e := range strings.Split(string(out), "\x00") {
			if k, v, ok := strings.Cut(e, "\n"); ok {
				want = append(want, strings.ToLower(k)+"="+strings.ReplaceAll(v, "\t", " "))
			} else if e != "" {
				want = append(want, strings.ToLower(e)+"=true")
			}
		}
		for _, s := range parseGitConfig(src) {
			got = append(got, s.key+"="+strings.ReplaceAll(s.value, "\t", " ")) // git turns a tab outside quotes into a space; words split alike
		}
		if !slices.Equal(got, want) {
			t.Errorf("parseGitConfig(%q) = %q; git reads %q", src, got, want)
		}
	}
}

// TestGitConfigFromTheToolsEnvironment: the tool's environment (the
// person's) may name git's global and system files (GIT_CONFIG_GLOBAL,
// GIT_CONFIG_SYSTEM) or give settings (GIT_CONFIG_COUNT, KEY_n, VALUE_n):
// they are read in git's order; GIT_CONFIG_PARAMETERS, a GIT_DIR, a count
// that is not a number, leave the configuration unsure.
func TestGitConfigFromTheToolsEnvironment(t *testing.T) {
	l, at := gitRunsLayout(t)
	global, system := filepath.Join(l.home, "dotfiles", "gitconfig"), filepath.Join(l.home, "sys.gitconfig")
	writeFiles(t, map[string]string{
		global: "[alias]\n\tship = push --force\n",
		system: "[remote \"origin\"]\n\tpush = +refs/heads/*:refs/heads/*\n",
	}, 0o644)
	with := func(env ...string) Place {
		p := at
		p.Env = append(append([]string(nil), at.Env...), env...)
		return p
	}
	for _, tc := range []struct {
		env  []string
		cmd  string
		want Reason
	}{
		{[]string{"GIT_CONFIG_GLOBAL=" + global}, "git ship origin main", ReasonGitPush},
		{[]string{"GIT_CONFIG_GLOBAL=" + global}, "git yolo", ""}, // ~/.gitconfig is not read then (its include had yolo = push -f)
		{[]string{"GIT_CONFIG_SYSTEM=" + system}, "git push origin", ReasonGitPush},
		{[]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=alias.Q", "GIT_CONFIG_VALUE_0=push --mirror"}, "git q", ReasonGitPush},
		{[]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=git push -f"}, "git log", ReasonGitPush},
		{[]string{"GIT_CONFIG_COUNT=x"}, "git push origin main", ReasonGitPush},
		// A setting whose command is git itself is checked once.
		{[]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=credential.helper", "GIT_CONFIG_VALUE_0=!git credential-store"}, "git fetch", ""},
		{[]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=git -c color.ui=always log"}, "git log", ""},
		{[]string{"GIT_CONFIG_PARAMETERS='alias.p'='push -f'"}, "git p", ReasonOpaque},
		{[]string{"GIT_DIR=/elsewhere/.git"}, "git push origin main", ReasonGitPush},
		{[]string{"GIT_CONFIG_GLOBAL=relative/gitconfig"}, "git push origin main", ReasonGitPush},
		{[]string{"GIT_CONFIG_GLOBAL=" + os.DevNull}, "git push origin main", ""},
		{[]string{"GIT_CONFIG_COUNT=0"}, "git push origin main", ""},
	} {
		if got, why := Destructive(tc.cmd, with(tc.env...)); got != (tc.want != "") || why != tc.want {
			t.Errorf("%q: Destructive(%q) = %v, %q; want %q", tc.env, tc.cmd, got, why, tc.want)
		}
	}
}
