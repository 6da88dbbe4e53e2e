package shell

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// gitLayout is newLayout with git configuration the checks must read: the
// workspace's own .git/config (which the repository controls), a global
// ~/.gitconfig with an include and an includeIf, a second repository
// whose remote forces every push, a worktree whose .git is a file, and a
// repository outside reached with --git-dir.
func gitLayout(t *testing.T) (layout, Place) {
	t.Helper()
	l, at := newLayout(t)
	files := map[string]string{
		filepath.Join(l.ws, ".git/config"): "[core]\n\tbare = false\n[alias]\n\tpf = push --force-with-lease\n" +
			"\tst = status\n\tsh = !rm -rf ~\n\tpush = push --force\n\tco = checkout -b\n" +
			"\tlong = \"push \\\n  --mirror\"  ; a comment\n[remote \"origin\"]\n\turl = x\n\tpush = refs/heads/main:refs/heads/main\n",
		filepath.Join(l.ws, "file.go"):                           "package x\n",
		filepath.Join(l.ws, "forced/.git/config"):                "[remote \"origin\"]\n\tpush = +refs/heads/*:refs/heads/*\n",
		filepath.Join(l.ws, "mirror/.git/config"):                "[remote.origin]\n\tmirror\n",
		filepath.Join(l.ws, "subs/.git/config"):                  "[push]\n\trecurseSubmodules = on-demand\n",
		filepath.Join(l.ws, "plain/.git/config"):                 "[remote \"origin\"]\n\tmirror = false\n\tpush = refs/heads/x:refs/heads/x\n",
		filepath.Join(l.ws, "wt/.git"):                           "gitdir: ../../real.git/worktrees/wt\n",
		filepath.Join(l.home, "real.git/worktrees/wt/commondir"): "../..\n",
		filepath.Join(l.home, "real.git/config"):                 "[alias]\n\tfp = push -f\n",
		filepath.Join(l.home, "other.git/config"):                "[alias]\n\tp = push --mirror\n",
		filepath.Join(l.home, ".gitconfig"): "[alias]\n\tshove = push --mirror\n\tsafe = log --oneline\n" +
			"[include]\n\tpath = ~/.gitconfig.d/more\n[includeIf \"gitdir:~/nowhere/\"]\n\tpath = cond.inc\n",
		filepath.Join(l.home, ".gitconfig.d/more"): "[alias]\n\tyolo = push -f\n\tci = commit\n",
		filepath.Join(l.home, "cond.inc"):          "[Alias]\n\tFORCE = \"push\" \"--force\"\n",
	}
	writeFiles(t, files, 0o644)
	return l, at
}

// TestGitEffectiveCommand: git's configuration, aliases and option
// abbreviations decide what a git command does; each spelling that may
// overwrite or delete remote history, or discard uncommitted work, asks.
func TestGitEffectiveCommand(t *testing.T) {
	_, at := gitLayout(t)
	for _, tc := range []struct {
		cmd  string
		want Reason
	}{
		// -c settings.
		{"git -c remote.origin.push=+refs/heads/main:refs/heads/main push origin", ReasonGitPush},
		{"git -c Remote.Origin.PUSH=+main push", ReasonGitPush},
		{"git -c remote.origin.push=:refs/heads/x push", ReasonGitPush},
		{"git -c remote.o.mirror=true push o", ReasonGitPush},
		{"git -c remote.o.mirror push o", ReasonGitPush},
		{"git -c push.recurseSubmodules=on-demand push", ReasonGitPush},
		// -c aliases, of aliases, in any case.
		{"git -c alias.p='push --force' p origin main", ReasonGitPush},
		{"git -c alias.p='push -f' p", ReasonGitPush},
		{"git -c alias.P='push -f' p", ReasonGitPush},
		{"git -c alias.p='push' -c alias.q='p --force' q", ReasonGitPush},
		{"git -c alias.p='-c remote.origin.push=+x push' p", ReasonGitPush},
		{"git -c alias.p='reset --hard' p", ReasonGitReset},
		{`git -c alias.p="push '+main'" p origin`, ReasonGitPush},
		// The repository's own configuration.
		{"git pf", ReasonGitPush},
		{"git long", ReasonGitPush},
		{"git sh", ReasonOpaque},
		{"git -C forced push", ReasonGitPush},
		{"cd forced && git push origin", ReasonGitPush},
		{"git -C mirror push", ReasonGitPush},
		{"git -C subs push", ReasonGitPush},
		{"git -C wt fp", ReasonGitPush},
		{"git --git-dir=$HOME/other.git p", ReasonGitPush},
		{"git --git-dir ~/other.git p", ReasonGitPush},
		// The global file, its include and includeIf (read whatever the condition).
		{"git shove", ReasonGitPush},
		{"git yolo origin", ReasonGitPush},
		{"git force", ReasonGitPush},
		// Not known: the repository, HOME, or the files git would read.
		{`cd "$X" && git push`, ReasonGitPush},
		{`git -C "$D" push`, ReasonGitPush},
		{`cd "$X" && git pf`, ReasonOpaque},
		{"HOME=/elsewhere git push", ReasonGitPush},
		{"GIT_DIR=/x/.git git push", ReasonOpaque},
		{"XDG_CONFIG_HOME=/x git yolo", ReasonOpaque},
		{"export GIT_DIR=/x/.git; git push", ReasonOpaque},
		{`git "$SUB" origin`, ReasonOpaque},
		{`git --config-env=alias.p=V p`, ReasonOpaque},
		{`git --config-env alias.p=V p`, ReasonOpaque},
		// push and send-pack, every spelling.
		{"git push --f", ReasonGitPush},
		{"git push --fo", ReasonGitPush},
		{"git push --forc", ReasonGitPush},
		{"git push --force-w origin", ReasonGitPush},
		{"git push --force-with origin", ReasonGitPush},
		{"git push --force-i", ReasonGitPush},
		{"git push --mi backup", ReasonGitPush},
		{"git push --mirr backup", ReasonGitPush},
		{"git push --de origin x", ReasonGitPush},
		{"git push --del origin x", ReasonGitPush},
		{"git push --pru origin", ReasonGitPush},
		{"git push --prune origin", ReasonGitPush},
		{"git push -fu origin x", ReasonGitPush},
		{"git push -d origin x", ReasonGitPush},
		{"git push --recurse-submodules=on-demand", ReasonGitPush},
		{"git push --recurse=only", ReasonGitPush},
		{`git push origin "$REF"`, ReasonGitPush},
		{`git push origin $REF`, ReasonGitPush},
		{"git push origin -- +main", ReasonGitPush},
		{"git push --receive-pack='rm -rf ~' ../repo", ReasonDeleteOutside},
		{"git push --exec 'rm -rf ~' ../repo", ReasonDeleteOutside},
		{"git send-pack --force ../repo main", ReasonGitPush},
		{"git send-pack ../repo +main", ReasonGitPush},
		// Discarding uncommitted work, every spelling.
		{"git reset --hard", ReasonGitReset},
		{"git reset --har", ReasonGitReset},
		{"git reset --ha HEAD~1", ReasonGitReset},
		{"git reset --h", ReasonGitReset},
		{"git checkout -- .", ReasonGitDiscard},
		{"git checkout .", ReasonGitDiscard},
		{"git checkout file.go", ReasonGitDiscard},
		{"git checkout main file.go", ReasonGitDiscard},
		{"git checkout '*.go'", ReasonGitDiscard},
		{`git checkout "$F"`, ReasonGitDiscard},
		{"git checkout -f main", ReasonGitDiscard},
		{"git checkout --force main", ReasonGitDiscard},
		{"git checkout --fo main", ReasonGitDiscard},
		{"git checkout --ours x", ReasonGitDiscard},
		{"git checkout --theirs x", ReasonGitDiscard},
		{"git checkout -m main", ReasonGitDiscard},
		{"git checkout -qf main", ReasonGitDiscard},
		{"git checkout --pathspec-from-file=list", ReasonGitDiscard},
		{"git restore .", ReasonGitDiscard},
		{"git restore file.go", ReasonGitDiscard},
		{"git restore --staged --worktree file.go", ReasonGitDiscard},
		{"git restore -S -W file.go", ReasonGitDiscard},
		{"git restore -SW file.go", ReasonGitDiscard},
		{"git restore --source=HEAD~1 file.go", ReasonGitDiscard},
		{"git restore -sS file.go", ReasonGitDiscard},
		{"git restore --staged --w file.go", ReasonGitDiscard},
		{"git clean -f", ReasonGitDiscard},
		{"git clean -fdx", ReasonGitDiscard},
		{"git clean --force -d", ReasonGitDiscard},
		{"git clean --fo", ReasonGitDiscard},
		{"git clean -d -f", ReasonGitDiscard},
		{"git clean -fen", ReasonGitDiscard},
		{"git clean -f -e n", ReasonGitDiscard},
		{"git -c clean.requireForce=false clean", ReasonGitDiscard},
		{"git stash drop", ReasonGitDiscard},
		{"git stash drop stash@{1}", ReasonGitDiscard},
		{"git stash clear", ReasonGitDiscard},
		{"git switch -f main", ReasonGitDiscard},
		{"git switch --force main", ReasonGitDiscard},
		{"git switch --fo main", ReasonGitDiscard},
		{"git switch --discard-changes main", ReasonGitDiscard},
		{"git switch --disc main", ReasonGitDiscard},
		{"git rm -f file.go", ReasonGitDiscard},
		{"git rm --force file.go", ReasonGitDiscard},
		{"git rm -rf build", ReasonGitDiscard},
		{"git worktree remove -f ../w", ReasonGitDiscard},
		{"git worktree remove --force ../w", ReasonGitDiscard},
		{"git -c alias.undo='checkout -- .' undo", ReasonGitDiscard},
		{"git -c alias.r=restore r .", ReasonGitDiscard},
		// Other commands that overwrite uncommitted changes.
		{"git reset --merge", ReasonGitDiscard},
		{"git reset --mer HEAD", ReasonGitDiscard},
		{"git reset --me", ReasonGitDiscard},
		{"git -c alias.rm2='reset --merge' rm2", ReasonGitDiscard},
		{"git diff | git apply -R", ReasonGitDiscard},
		{"git apply --reverse p.diff", ReasonGitDiscard},
		{"git apply --rev p.diff", ReasonGitDiscard},
		{"git apply -Rv p.diff", ReasonGitDiscard},
		{"git apply -vR3 p.diff", ReasonGitDiscard},
		{"git apply --index -R p.diff", ReasonGitDiscard},
		{"git apply -R --check --apply p.diff", ReasonGitDiscard},
		{"git apply -R --stat --ap p.diff", ReasonGitDiscard},
		{"git apply $OPTS p.diff", ReasonGitDiscard},
		{"git checkout-index -f -a", ReasonGitDiscard},
		{"git checkout-index -fa", ReasonGitDiscard},
		{"git checkout-index -qaf", ReasonGitDiscard},
		{"git checkout-index --force --all", ReasonGitDiscard},
		{"git checkout-index --f file.go", ReasonGitDiscard},
		{"git read-tree -u --reset HEAD", ReasonGitDiscard},
		{"git read-tree --reset -u HEAD", ReasonGitDiscard},
		{"git read-tree -vu --res HEAD", ReasonGitDiscard},
		{"git mv -f a.go file.go", ReasonGitDiscard},
		{"git mv --force a.go file.go", ReasonGitDiscard},
		{"git mv -kf a.go file.go", ReasonGitDiscard},
		{"git merge --abort", ReasonGitDiscard},
		{"git merge --ab", ReasonGitDiscard},
		{"git rebase --abort", ReasonGitDiscard},
		{"git rebase --skip", ReasonGitDiscard},
		{"git am --abo", ReasonGitDiscard},
		{"git cherry-pick --skip", ReasonGitDiscard},
		{"git revert --abort", ReasonGitDiscard},
		{"git submodule update -f", ReasonGitDiscard},
		{"git submodule update --init --force", ReasonGitDiscard},
		{"git submodule --quiet deinit -f --all", ReasonGitDiscard},
		{"git submodule deinit --for x", ReasonGitDiscard},
		{`git submodule "$V" -f`, ReasonOpaque},
		// Commands that git runs from its own arguments.
		{"git grep -O'git checkout -- .' x", ReasonGitDiscard},
		{"git grep -O'rm -rf ~' x", ReasonDeleteOutside},
		{"git grep -iO'rm -rf ~' x", ReasonDeleteOutside},
		{"git grep --open-files-in-pager='rm -rf ~' x", ReasonDeleteOutside},
		{"git grep --open='rm -rf ~' x", ReasonDeleteOutside},
		{"git ls-remote --upload-pack='git checkout-index -fa;' .", ReasonGitDiscard},
		{"git ls-remote --upload-pack 'rm -rf ~;' .", ReasonDeleteOutside},
		{"git ls-remote --u='rm -rf ~;' .", ReasonDeleteOutside},
		{"git ls-remote --exec='rm -rf ~;' .", ReasonDeleteOutside},
		{"git fetch --upload-pack='rm -rf ~;' ../r", ReasonDeleteOutside},
		{"git pull --upload-pack 'rm -rf ~;' ../r", ReasonDeleteOutside},
		{"git fetch-pack --exec='rm -rf ~;' ../r", ReasonDeleteOutside},
		{"git clone -u 'rm -rf ~;' ../r d", ReasonDeleteOutside},
		{"git clone -qu'rm -rf ~;' ../r d", ReasonDeleteOutside},
		{"git clone --upload-pack='rm -rf ~;' ../r d", ReasonDeleteOutside},
		{"git archive --remote=../r --exec='rm -rf ~;' HEAD", ReasonDeleteOutside},
		{"git rebase -x 'rm -rf ~' HEAD~1", ReasonDeleteOutside},
		{"git rebase -ix 'rm -rf ~' HEAD~1", ReasonDeleteOutside},
		{"git rebase --exec='git reset --hard' main", ReasonGitReset},
		{"git rebase --ex 'git checkout -- .' main", ReasonGitDiscard},
		{"git difftool -y -x 'rm -rf ~'", ReasonDeleteOutside},
		{"git difftool --extcmd='git checkout --'", ReasonGitDiscard},
		{"git grep -O'git checkout --' x", ReasonGitDiscard},
		{"git ls-remote --upload-pack='git checkout' .", ReasonGitDiscard},
		{"git fetch --upload-pack='git checkout' .", ReasonGitDiscard},
		{"git filter-branch --tree-filter 'rm -rf ~' HEAD", ReasonDeleteOutside},
		{"git filter-branch --msg-filter='rm -rf ~' HEAD", ReasonDeleteOutside},
		{"git submodule foreach 'git reset --hard'", ReasonGitReset},
		{"git submodule foreach --recursive git checkout -- .", ReasonGitDiscard},
		{`git submodule "$V" 'rm -rf build'`, ReasonOpaque},
		{"git bisect run sh -c 'rm -rf ~'", ReasonDeleteOutside},
		{"git bisect run git checkout -- .", ReasonGitDiscard},
		{"git for-each-repo --config=maintenance.repo reset --hard", ReasonGitReset},
		{"git for-each-repo --config maintenance.repo checkout -- .", ReasonGitDiscard},
		{"git for-each-repo --config=maintenance.repo clean -fdx", ReasonDeleteOutside},
		{"git -c protocol.ext.allow=always ls-remote 'ext::sh -c rm% -rf% ~'", ReasonOpaque},
	} {
		if got, why := Destructive(tc.cmd, at); !got || why != tc.want {
			t.Errorf("Destructive(%q) = %v, %q; want true, %q", tc.cmd, got, why, tc.want)
		}
	}
}

// TestGitAllowed: what does not overwrite remote history or discard work
// runs without asking, aliases of built-in commands included (git ignores
// them).
func TestGitAllowed(t *testing.T) {
	_, at := gitLayout(t)
	for _, cmd := range []string{
		"git push", "git push origin main", "git push -u origin x", "git push --follow-tags",
		"git push --tags origin", "git push -o ci.skip origin", "git push --no-verify",
		"git push --set-upstream origin x", "git push --dry-run", "git push --porcelain",
		"git push --progress", "git push --recurse-submodules=check", "git push --atomic origin a b",
		"git -c remote.origin.push=refs/heads/main:refs/heads/main push",
		"git -c remote.o.mirror=false push o", "git -C plain push",
		"git st", "git safe", "git co newbranch", "git push origin main # alias.push is ignored",
		"git reset --soft HEAD~1", "git reset HEAD file.go", "git reset --mixed", "git reset --keep HEAD~1",
		"git checkout main", "git checkout -b new", "git checkout -b new origin/main", "git checkout -",
		"git checkout -q main",
		"git restore --staged file.go", "git restore -S file.go", "git restore --sta file.go",
		"git clean -n", "git clean -fn", "git clean --dry-run -fd", "git clean -nf", "git clean --d -f",
		"git stash", "git stash list", "git stash pop", "git stash apply", "git stash push -m wip",
		"git switch main", "git switch -c new",
		"git rm file.go", "git rm -f --cached file.go", "git rm -r --cached build",
		"git worktree remove ../w", "git status", "git log --oneline",
		"git commit -m 'git push --force'", "git lfs pull",
		"git reset --keep HEAD~1 # stops when a local change is in the way",
		"git apply p.diff", "git apply --index p.diff", "git apply -R --cached p.diff", "git apply -R --check p.diff",
		"git apply --stat -R p.diff", "git apply --numstat --summary -R p.diff", "git apply -p1R p.diff",
		"git apply -- -R", "git checkout-index -a", "git checkout-index -u file.go",
		"git read-tree -u -m HEAD", "git read-tree --reset HEAD", "git mv a.go b.go", "git mv -k a.go b.go",
		"git merge feature", "git merge --continue", "git rebase main", "git rebase --continue",
		"git am --continue", "git cherry-pick --continue", "git revert HEAD",
		"git submodule update --init --recursive", "git submodule deinit x", "git submodule status -f",
		"git grep -O x", "git grep -eO x", "git grep -eO'rm -rf ~' x", "git rebase -sx 'rm -rf ~'", "git grep -O 'rm -rf ~' x", "git grep -e 'rm -rf ~' x", "git ls-remote origin",
		"git fetch origin", "git pull --rebase", "git clone ../r d", "git archive --remote=../r HEAD",
		"git rebase -i main", "git difftool -y", "git submodule foreach 'git status'",
		"git submodule foreach git log -1", "git bisect run make test", "git bisect start",
		"git for-each-repo --config=maintenance.repo status",
	} {
		if got, why := Destructive(cmd, at); got {
			t.Errorf("Destructive(%q) = true, %q; want false", cmd, why)
		}
	}
}

// TestGitWritesUnderSandbox: where the OS sandbox holds .git read-only
// (Place.GitReadOnly), git commands that write it ask with ReasonGitWrite,
// the weakest reason (any other is named first); commands that only read
// .git do not; without the sandbox none of them asks for that.
func TestGitWritesUnderSandbox(t *testing.T) {
	_, at := gitLayout(t)
	ro := at
	ro.GitReadOnly = true
	for _, cmd := range []string{
		"git commit -m x", "git add .", "git checkout main", "git fetch", "git pull", "git merge x",
		"git rebase main", "git tag v1", "git tag -a v1 -m x", "git branch x", "git branch -d x",
		"git branch -D x", "git branch --unset-upstream", "git config user.name x", "git remote add o u",
		"git stash", "git stash pop", "git gc", "git lfs pull", "git -c alias.c=commit c -m x",
		"git ci -m x", "git reflog expire --all", "git update-ref -d refs/heads/x", "git init",
		"git worktree add ../w", "git notes add -m x", "git submodule update", "git switch main",
	} {
		if got, why := Destructive(cmd, ro); !got || why != ReasonGitWrite {
			t.Errorf("GitReadOnly: Destructive(%q) = %v, %q; want true, %q", cmd, got, why, ReasonGitWrite)
		}
		if got, why := Destructive(cmd, at); got {
			t.Errorf("without the sandbox: Destructive(%q) = true, %q; want false", cmd, why)
		}
	}
	for _, cmd := range []string{
		"git status", "git log -p", "git diff HEAD", "git show HEAD", "git branch", "git branch -a",
		"git branch --list 'f*'", "git branch -l 'f*'", "git branch -vv", "git tag", "git tag -l 'v*'",
		"git remote -v", "git remote show origin", "git stash list", "git config --get user.name",
		"git config -l", "git rev-parse HEAD", "git ls-files", "git blame file.go", "git reflog",
		"git worktree list", "git st", "git safe", "git describe --tags", "git grep x",
	} {
		if got, why := Destructive(cmd, ro); got {
			t.Errorf("GitReadOnly: Destructive(%q) = true, %q; want false", cmd, why)
		}
	}
	for _, tc := range []struct {
		cmd  string
		want Reason
	}{
		{"git commit -m x && rm -rf ~", ReasonDeleteOutside},
		{"git add . && git push -f", ReasonGitPush},
		{"git commit -am x; git reset --hard", ReasonGitReset},
	} {
		if got, why := Destructive(tc.cmd, ro); !got || why != tc.want {
			t.Errorf("GitReadOnly: Destructive(%q) = %v, %q; want true, %q", tc.cmd, got, why, tc.want)
		}
	}
}

// TestParseGitConfig: git's syntax as git reads it.
func TestParseGitConfig(t *testing.T) {
	src := "# c\n[Alias]\n\tA = push \"--force\"   # tail\n\tb=\"x ; y\" ; c\n\tbare\n" +
		"\tcont = one \\\ntwo\n\tesc = a\\tb\\\"c\\\\\\n\\b\n\topen = \"x\n\tnext = y\n[remote \"Or\\\"ig\"]\n\tpush = +x\n" +
		"[sec.Sub] k = v\n\tempty =\n[bad\n\tlost = 1\n"
	// A line git cannot read ends the file.
	if got := parseGitConfig("[a]\n\tk = v\n!x\n\tq = w\n"); !slices.Equal(got, []gitSetting{{"a.k", "v"}}) {
		t.Errorf("parseGitConfig past a bad line = %q", got)
	}
	want := []gitSetting{
		{"alias.a", "push --force"}, {"alias.b", "x ; y"}, {"alias.bare", "true"},
		{"alias.cont", "one two"}, {"alias.esc", "a\tb\"c\\\n\b"}, {"alias.open", "x"}, {"alias.next", "y"}, {"remote.or\"ig.push", "+x"},
		{"sec.sub.k", "v"}, {"sec.sub.empty", ""},
	}
	if got := parseGitConfig(src); !slices.Equal(got, want) {
		t.Errorf("parseGitConfig = %q\nwant %q", got, want)
	}
	for _, v := range []string{"false", "no", "off", "0", "", "FALSE"} {
		if gitTrue(v) {
			t.Errorf("gitTrue(%q) = true", v)
		}
	}
	for _, v := range []string{"true", "yes", "on", "1"} {
		if !gitTrue(v) {
			t.Errorf("gitTrue(%q) = false", v)
		}
	}
	if w, ok := splitGitWords(`push "a b" 'c d' e\ f`); !ok || !slices.Equal(w, []field{lit("push"), lit("a b"), lit("c d"), lit("e f")}) {
		t.Errorf("splitGitWords = %v, %v", w, ok)
	}
	if _, ok := splitGitWords(`push "open`); ok {
		t.Error("splitGitWords of an unclosed quote succeeded")
	}
}

// TestGitConfigBounds: configuration past the bounds (too many bytes, too
// many files, includes too deep) is unsure: a push then asks.
func TestGitConfigBounds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"too big", map[string]string{".gitconfig": "[alias]\n\tx = " + string(make([]byte, maxGitConfigBytes)) + "\n"}},
		{"includes too deep", map[string]string{".gitconfig": "[include]\n\tpath = ~/.gitconfig\n"}},
		{"an include of another user's home", map[string]string{".gitconfig": "[include]\n\tpath = ~bob/x\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, at := newLayout(t)
			for p, c := range tc.files {
				if err := os.WriteFile(filepath.Join(l.home, p), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got, why := Destructive("git push", at); !got || why != ReasonGitPush {
				t.Errorf("Destructive(git push) = %v, %q; want true, %q", got, why, ReasonGitPush)
			}
		})
	}
}
