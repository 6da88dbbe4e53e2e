package shell

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/ostest"
)

// vcsLayout makes a home and a workspace below a temporary root, writes
// files (paths relative to the root: "home/.hgrc", "ws/.hg/hgrc") and
// returns the workspace's Place.
func vcsLayout(t *testing.T, files map[string]string, env ...string) (root string, at Place) {
	t.Helper()
	return vcsLayoutAt(t, t.TempDir(), files, env...)
}

// vcsLayoutAt is vcsLayout below root.
func vcsLayoutAt(t *testing.T, root string, files map[string]string, env ...string) (string, Place) {
	t.Helper()
	for _, d := range []string{"home", "ws", "ws/.hg", "ws/sub/.jj/repo"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range files {
		writeFiles(t, map[string]string{filepath.Join(root, name): content}, 0o644)
	}
	env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + filepath.Join(root, "home"), "TMPDIR=/tmp"}, env...)
	return root, Place{Cwd: filepath.Join(root, "ws"), Env: env}
}

type vcsCase struct {
	cmd  string
	want Reason
}

func checkCases(t *testing.T, at Place, cases []vcsCase) {
	t.Helper()
	for _, tc := range cases {
		if got, why := Destructive(tc.cmd, at); got != (tc.want != "") || why != tc.want {
			t.Errorf("Destructive(%q) = %v, %q; want %q", tc.cmd, got, why, tc.want)
		}
	}
}

// TestVCSWritesUnderSandbox: where the OS sandbox holds version control
// metadata read-only (Place.GitReadOnly), a command of hg, sl, jj, pijul,
// darcs, bzr or fossil that may write its metadata asks with
// ReasonVCSWrite, and the verdict says the metadata must be writable once
// approved; the reading commands do not ask, in their synonyms and
// prefixes; jj's only when they do not snapshot the working copy. Without
// the sandbox none of them asks for that.
func TestVCSWritesUnderSandbox(t *testing.T) {
	_, at := vcsLayout(t, nil)
	ro := at
	ro.GitReadOnly = true
	for _, cmd := range []string{
		"hg commit -m x", "hg ci -m x", "hg com -m x", "hg add .", "hg up tip", "hg update default", "hg checkout x",
		"hg pull", "hg push", "hg push -r . --new-branch", "hg merge", "hg rebase -d main", "hg histedit", "hg amend",
		"hg bookmark x", "hg bookmarks -d x", "hg branch feature", "hg config --edit", "hg config -e", "hg shelve", "sl config --local ui.username x", "sl config --user ui.x y", "sl config --delete ui.x", "sl config -d ui.x", "sl config ui.x y", "hg config --ed",
		"hg resolve -m", "hg phase --public .", "hg phase -d .", "hg tag v1", "hg init", "hg clone u d", "hg graft x",
		"hg some-extension-command", "hg verify", "chg commit -m x", "/usr/bin/hg commit -m x", "sudo hg commit",
		"sl commit -m x", "sl goto main", "sl amend", "sl hide x", "sl push --to main",
		"jj", "jj log", "jj st", "jj status", "jj diff", "jj describe -m x", "jj new", "jj commit -m x", "jj rebase -d main",
		"jj squash", "jj abandon", "jj edit x", "jj bookmark set main", "jj git fetch", "jj git init",
		"jj config set --repo user.name x", "jj op log", "jj --at-op @- new", "jj --ignore-working-copy new",
		"jj no-such-command",
		"pijul record -m x", "pijul channel", "pijul push", "darcs record", "darcs rec", "darcs push",
		"bzr commit -m x", "brz add", "bzr push", "fossil commit -m x", "fossil status", "fossil co x", "fossil op x",
	} {
		v := Check(cmd, ro)
		if v.Why != ReasonVCSWrite || !v.WritesMetadata {
			t.Errorf("GitReadOnly: Check(%q) = %+v; want %q and the metadata writable", cmd, v, ReasonVCSWrite)
		}
		if got, why := Destructive(cmd, at); got {
			t.Errorf("without the sandbox: Destructive(%q) = true, %q; want false", cmd, why)
		}
	}
	for _, cmd := range []string{
		"hg status", "hg st", "hg sta", "hg stat", "hg log -r .", "hg history", "hg diff", "hg annotate f", "hg blame f",
		"hg cat -r . f", "hg files", "hg heads", "hg help push", "hg identify", "hg id", "hg incoming", "hg in",
		"hg outgoing", "hg paths", "hg root", "hg summary", "hg sum", "hg tags", "hg tip", "hg version",
		"hg --version", "hg", "hg bookmarks", "hg branch", "hg branches", "hg config ui.username", "hg showconfig",
		"hg resolve --list", "hg resolve -l", "hg shelve --list", "hg shelve -p", "hg phase .", "hg -R sub log",
		"hg --cwd sub status", "hg export tip", "chg status", "sl status", "sl", "sl smartlog", "sl ssl", "sl log", "sl show",
		"jj --ignore-working-copy log", "jj log --ignore-working-copy -r main", "jj --at-op @- log",
		"jj --at-operation=@- diff", "jj --ignore-working-copy st", "jj --ignore-working-copy file show f",
		"jj --ignore-working-copy op log", "jj --ignore-working-copy bookmark list", "jj help", "jj version",
		"jj --version", "jj --help", "jj log --help", "jj config list", "jj config get user.name", "jj config path --user",
		"jj util completion bash",
		"pijul log", "pijul diff", "pijul --version", "darcs log", "darcs changes", "darcs whatsnew", "darcs wh",
		"bzr log", "bzr st", "brz diff", "bzr help", "fossil help", "fossil version", "fossil vers",
	} {
		if v := Check(cmd, ro); v.Why != "" || v.WritesMetadata {
			t.Errorf("GitReadOnly: Check(%q) = %+v; want nothing", cmd, v)
		}
	}
	// A stronger reason is named first; the metadata is still writable
	// once the person approves.
	for _, tc := range []vcsCase{
		{"hg commit -m x && rm -rf ~", ReasonDeleteOutside},
		{"hg push --force", ReasonRemoteHistory},
		{"jj git push", ReasonRemoteHistory},
		{"hg strip -r .", ReasonVCSHistory},
	} {
		if v := Check(tc.cmd, ro); v.Why != tc.want || !v.WritesMetadata {
			t.Errorf("GitReadOnly: Check(%q) = %+v; want %q and the metadata writable", tc.cmd, v, tc.want)
		}
	}
	if v := Check("git commit -m x", ro); v.Why != ReasonGitWrite || !v.WritesMetadata {
		t.Errorf("git commit: %+v", v)
	}
	if v := Check("git status && hg status", ro); v.Why != "" || v.WritesMetadata {
		t.Errorf("reading git and hg: %+v", v)
	}
}

// TestVCSHistoryAndPush: whatever the sandbox, commands that destroy
// local history or uncommitted work, or rewrite remote history, ask: in
// every spelling the clients accept (synonyms, prefixes of command names,
// Python getopt's prefixes of long options, short clusters).
func TestVCSHistoryAndPush(t *testing.T) {
	_, at := vcsLayout(t, nil)
	checkCases(t, at, []vcsCase{
		{"hg strip -r .", ReasonVCSHistory}, {"hg stri -r .", ReasonVCSHistory}, {"hg debugstrip tip", ReasonVCSHistory},
		{"hg prune -r .", ReasonVCSHistory}, {"hg obsolete .", ReasonVCSHistory}, {"hg rollback", ReasonVCSHistory},
		{"hg roll", ReasonVCSHistory}, {"hg purge --all", ReasonVCSHistory}, {"hg clean", ReasonVCSHistory},
		{"hg debugobsolete x", ReasonVCSHistory}, {"sl strip x", ReasonVCSHistory},
		{"hg update -C", ReasonVCSHistory}, {"hg up --clean tip", ReasonVCSHistory}, {"hg co --cle", ReasonVCSHistory}, {"hg up --cl", ReasonVCSHistory},
		{"hg checkout -Cr tip", ReasonVCSHistory}, {"sl goto -C main", ReasonVCSHistory}, {"hg up $OPTS", ReasonVCSHistory},
		{"hg revert --all --no-backup", ReasonVCSHistory}, {"hg revert --no-b f", ReasonVCSHistory},
		{"hg revert -aC", ReasonVCSHistory}, {"sl revert --all", ReasonVCSHistory},
		{"hg shelve --delete x", ReasonVCSHistory}, {"hg shelve -d x", ReasonVCSHistory}, {"hg shelve --cleanup", ReasonVCSHistory},
		{"hg shelve --del x", ReasonVCSHistory}, {"hg shelve --de x", ReasonVCSHistory},
		{"jj op abandon ..@-", ReasonVCSHistory}, {"jj operation abandon x", ReasonVCSHistory}, {"jj util gc", ReasonVCSHistory},
		{`jj op "$X"`, ReasonOpaque},
		{"pijul unrecord x", ReasonVCSHistory}, {"pijul reset", ReasonVCSHistory}, {"pijul channel delete x", ReasonVCSHistory},
		{"darcs obliterate", ReasonVCSHistory}, {"darcs obl -p x", ReasonVCSHistory}, {"darcs unpull", ReasonVCSHistory},
		{"darcs unrecord", ReasonVCSHistory}, {"darcs revert -a", ReasonVCSHistory}, {"darcs amend", ReasonVCSHistory},
		{"bzr uncommit", ReasonVCSHistory}, {"brz revert", ReasonVCSHistory}, {"bzr clean-tree --unknown", ReasonVCSHistory},
		{"fossil purge", ReasonVCSHistory}, {"fossil pur", ReasonVCSHistory}, {"fossil revert", ReasonVCSHistory},
		{"fossil scrub", ReasonVCSHistory}, {"fossil clean", ReasonVCSHistory},
		// Pushes that overwrite or delete.
		{"hg push --force", ReasonRemoteHistory}, {"hg push -f", ReasonRemoteHistory}, {"hg push --forc", ReasonRemoteHistory},
		{"hg push --fo default", ReasonRemoteHistory}, {"hg push --f", ReasonRemoteHistory}, {"hg push -fr tip", ReasonRemoteHistory},
		{"hg push -r tip -f", ReasonRemoteHistory}, {"hg push $OPTS", ReasonRemoteHistory}, {`hg push "$X"`, ReasonRemoteHistory}, {`sl push "$X" --to main`, ReasonRemoteHistory}, {"hg pus -f", ReasonRemoteHistory},
		{"hg -R sub push --force", ReasonRemoteHistory}, {"hg -qR sub push -f", ReasonRemoteHistory}, {"hg -qRsub push -f", ReasonRemoteHistory}, {"hg -yq push -f", ReasonRemoteHistory}, {"hg --config ui.username=x push -f", ReasonRemoteHistory},
		{"chg push -f", ReasonRemoteHistory}, {"env hg push --force", ReasonRemoteHistory}, {"/usr/bin/hg push -f", ReasonRemoteHistory},
		{"hg --config defaults.push=--force push", ReasonRemoteHistory},
		{"sl push --force --to main", ReasonRemoteHistory}, {"sl push --delete x", ReasonRemoteHistory},
		{"sl push --del x", ReasonRemoteHistory}, {"sl push -f --to main", ReasonRemoteHistory},
		{"bzr push --overwrite", ReasonRemoteHistory}, {"brz push --overw", ReasonRemoteHistory},
		{"jj git push", ReasonRemoteHistory}, {"jj util exec -- rm -rf ~", ReasonDeleteOutside},
		{"jj util exec rm -rf ~", ReasonDeleteOutside},
		// Commands that the client runs.
		{"hg push --ssh 'rm -rf ~'", ReasonDeleteOutside}, {"hg pull -e 'rm -rf ~'", ReasonDeleteOutside},
		{"hg clone --remotecmd='rm -rf ~' u d", ReasonDeleteOutside}, {"hg push -e'rm -rf ~'", ReasonDeleteOutside},
		{"hg --config hooks.pre-status='rm -rf ~' status", ReasonDeleteOutside},
		{"hg --config ui.editor='rm -rf ~' commit", ReasonDeleteOutside},
		{"hg --config hooks.x=python:evil.run status", ReasonOpaque},
		{"hg --config extensions.x=/tmp/evil.py status", ReasonOpaque},
		{"HGEDITOR='rm -rf ~' hg commit", ReasonDeleteOutside}, {"HGRCPATH=/x hg status", ReasonOpaque},
		{"JJ_CONFIG=/x jj log", ReasonOpaque}, {"export SL_CONFIG_PATH=/x", ReasonOpaque},
		{"jj --config ui.pager=less log", ReasonOpaque}, {"jj --config=ui.editor=vi describe", ReasonOpaque},
		{"jj --config 'merge-tools.m.program=x' resolve", ReasonOpaque},
		{`jj --config-toml 'ui.diff-editor = "x"' diffedit`, ReasonOpaque},
		{`jj --config-toml '[fix.tools.x]' fix`, ReasonOpaque},
		{`hg "$X"`, ReasonOpaque}, {`"$VCS" push -f`, ReasonGitPush},
		// Recursive deletes of any client's metadata.
		{"rm -rf .hg", ReasonDeleteGit}, {"rm -rf sub/.jj", ReasonDeleteGit}, {"rm -r x/.sl/config", ReasonDeleteGit},
		{"rm -rf .fslckout", ReasonDeleteGit}, {"rm -rf _darcs", ReasonDeleteGit},
		// What does not ask.
		{"hg push", ""}, {"hg push -r tip --new-branch", ""}, {`hg push default-"$X"`, ""}, {"hg push -B feature", ""}, {"hg push -rf", ""},
		{"hg push --new-branch -r .", ""}, {"hg up tip", ""}, {"hg revert f", ""}, {"hg shelve", ""}, {"hg status", ""},
		{"sl push --to main", ""}, {"jj git push --dry-run", ""}, {"jj git fetch", ""}, {"jj abandon x", ""},
		{"jj op log", ""}, {"bzr push", ""}, {"darcs push", ""}, {"pijul push", ""}, {"fossil push", ""},
		{"hg commit -m 'hg push --force'", ""}, {"rm -rf build/hg", ""}, {"rm -rf .hgignore-cache", ""},
	})
}

// TestVCSAliases: an alias, from every configuration source each client
// reads, does not walk past the rules: Mercurial's and Sapling's [alias]
// (which may shadow a built-in command), [defaults], %include, %unset,
// continuation lines, $N arguments, prefixes of alias names, HGRCPATH;
// jj's [aliases] and ui.default-command from the user's, the
// repository's and the workspace's files, JJ_CONFIG, --config,
// --config-toml, --config-file and [[--scope]] tables.
func TestVCSAliases(t *testing.T) {
	hgPush := "[alias]\npf = push --force\n"
	jjPush := "[aliases]\np = [\"git\", \"push\"]\n"
	id := "0123456789abcdef0123"
	for _, tc := range []struct {
		name  string
		files map[string]string
		env   []string
		cmd   string
		want  Reason
	}{
		{"hg ~/.hgrc", map[string]string{"home/.hgrc": hgPush}, nil, "hg pf", ReasonRemoteHistory},
		{"hg XDG", map[string]string{"home/.config/hg/hgrc": hgPush}, nil, "hg pf", ReasonRemoteHistory},
		{"hg XDG_CONFIG_HOME", map[string]string{"xdg/hg/hgrc": hgPush}, []string{"XDG_CONFIG_HOME=ROOT/xdg"}, "hg pf", ReasonRemoteHistory},
		{"hg repository", map[string]string{"ws/.hg/hgrc": hgPush}, nil, "hg pf", ReasonRemoteHistory},
		{"hg repository above", map[string]string{"ws/.hg/hgrc": hgPush, "ws/src/x": ""}, nil, "cd src && hg pf", ReasonRemoteHistory},
		{"hg not shared", map[string]string{"ws/.hg/hgrc-not-shared": hgPush}, nil, "hg pf", ReasonRemoteHistory},
		{"hg share source", map[string]string{"ws/.hg/sharedpath": "ROOT/src/.hg\n", "src/.hg/hgrc": hgPush}, nil, "hg pf", ReasonRemoteHistory},
		{"hg -R", map[string]string{"other/.hg/hgrc": hgPush}, nil, "hg -R ../other pf", ReasonRemoteHistory},
		{"hg -qR", map[string]string{"other/.hg/hgrc": hgPush}, nil, "hg -qR ../other pf", ReasonRemoteHistory},
		{"hg -vR attached", map[string]string{"other/.hg/hgrc": hgPush}, nil, "hg -vR../other pf", ReasonRemoteHistory},
		{"hg --cwd", map[string]string{"other/.hg/hgrc": hgPush}, nil, "hg --cwd ../other pf", ReasonRemoteHistory},
		{"hg HGRCPATH file", map[string]string{"rc/one": hgPush}, []string{"HGRCPATH=ROOT/rc/one"}, "hg pf", ReasonRemoteHistory},
		{"hg HGRCPATH dir", map[string]string{"rc/a.rc": hgPush}, []string{"HGRCPATH=ROOT/nothing:ROOT/rc"}, "hg pf", ReasonRemoteHistory},
		{"hg --config", nil, nil, "hg --config 'alias.pf=push --force' pf", ReasonRemoteHistory},
		{"hg --config after", nil, nil, "hg pf --config 'alias.pf=push -f'", ReasonRemoteHistory},
		{"hg --config=", nil, nil, "hg --config='alias.pf=push -f' pf", ReasonRemoteHistory},
		{"hg --configfile", map[string]string{"ws/my.rc": hgPush}, nil, "hg --configfile my.rc pf", ReasonRemoteHistory},
		{"hg shadows a built-in", map[string]string{"ws/.hg/hgrc": "[alias]\nstatus = push -f\n"}, nil, "hg status", ReasonRemoteHistory},
		{"hg shadows a synonym", map[string]string{"home/.hgrc": "[alias]\nst = push -f\n"}, nil, "hg st", ReasonRemoteHistory},
		{"hg refers to itself", map[string]string{"home/.hgrc": "[alias]\nlog = log -G\n"}, nil, "hg log", ""},
		{"hg chain", map[string]string{"home/.hgrc": "[alias]\na = b -r .\nb = push -f\n"}, nil, "hg a", ReasonRemoteHistory},
		{"hg loop", map[string]string{"home/.hgrc": "[alias]\na = b\nb = a\n"}, nil, "hg a", ""},
		{"hg prefix of an alias", map[string]string{"home/.hgrc": "[alias]\npforce = push --force\n"}, nil, "hg pfo", ReasonRemoteHistory},
		{"hg $1", map[string]string{"home/.hgrc": "[alias]\npto = push $1 --force\n"}, nil, "hg pto default", ReasonRemoteHistory},
		{"hg $1 command", map[string]string{"home/.hgrc": "[alias]\nx = $1 --force\n"}, nil, "hg x push", ReasonRemoteHistory},
		{"hg $2", map[string]string{"home/.hgrc": "[alias]\nx = $2 $1\n"}, nil, "hg x -f push", ReasonRemoteHistory},
		{"hg $@ option", map[string]string{"home/.hgrc": "[alias]\np = push $@\n"}, nil, "hg p -f", ReasonRemoteHistory},
		{"hg continuation", map[string]string{"home/.hgrc": "[alias]\npf = push\n  --force\n"}, nil, "hg pf", ReasonRemoteHistory},
		{"hg %include", map[string]string{"home/.hgrc": "%include inc/more.rc\n", "home/inc/more.rc": hgPush}, nil, "hg pf", ReasonRemoteHistory},
		{"hg %include ~", map[string]string{"ws/.hg/hgrc": "%include ~/more.rc\n", "home/more.rc": hgPush}, nil, "hg pf", ReasonRemoteHistory},
		{"hg %unset", map[string]string{"home/.hgrc": hgPush, "ws/.hg/hgrc": "[alias]\n%unset pf\n"}, nil, "hg pf", ""},
		{"hg later wins", map[string]string{"home/.hgrc": hgPush, "ws/.hg/hgrc": "[alias]\npf = push\n"}, nil, "hg pf", ""},
		{"hg shell alias", map[string]string{"home/.hgrc": "[alias]\nx = !rm -rf ~\n"}, nil, "hg x", ReasonOpaque},
		{"hg [defaults]", map[string]string{"home/.hgrc": "[defaults]\npush = --force\n"}, nil, "hg push", ReasonRemoteHistory},
		{"hg [defaults] update", map[string]string{"ws/.hg/hgrc": "[defaults]\nupdate = -C\n"}, nil, "hg up tip", ReasonVCSHistory},
		{"hg strip alias", map[string]string{"home/.hgrc": "[alias]\nundo = strip -r .\n"}, nil, "hg undo", ReasonVCSHistory},
		{"hg comment", map[string]string{"home/.hgrc": "[alias]\n# pf = push --force\n; pf = push -f\n"}, nil, "hg pf", ""},
		{"hg alias unused", map[string]string{"home/.hgrc": hgPush}, nil, "hg log", ""},
		{"sl sapling.conf", map[string]string{"home/.config/sapling/sapling.conf": hgPush}, nil, "sl pf", ReasonRemoteHistory},
		{"sl .sl/config", map[string]string{"ws/.sl/config": "[alias]\npd = push --delete\n"}, nil, "sl pd x", ReasonRemoteHistory},
		{"sl .slconfig", map[string]string{"home/.slconfig": hgPush}, nil, "sl pf", ReasonRemoteHistory},
		{"sl SL_CONFIG_PATH", map[string]string{"slc": hgPush}, []string{"SL_CONFIG_PATH=ROOT/slc"}, "sl pf", ReasonRemoteHistory},
		// jj
		{"jj user", map[string]string{"home/.config/jj/config.toml": jjPush}, nil, "jj p", ReasonRemoteHistory},
		{"jj .jjconfig.toml", map[string]string{"home/.jjconfig.toml": jjPush}, nil, "jj p", ReasonRemoteHistory},
		{"jj conf.d", map[string]string{"home/.config/jj/conf.d/a.toml": jjPush}, nil, "jj p", ReasonRemoteHistory},
		{"jj XDG_CONFIG_HOME", map[string]string{"xdg/jj/config.toml": jjPush}, []string{"XDG_CONFIG_HOME=ROOT/xdg"}, "jj p", ReasonRemoteHistory},
		{"jj JJ_CONFIG file", map[string]string{"c.toml": jjPush}, []string{"JJ_CONFIG=ROOT/c.toml"}, "jj p", ReasonRemoteHistory},
		{"jj JJ_CONFIG dir", map[string]string{"cd/x.toml": jjPush}, []string{"JJ_CONFIG=ROOT/none.toml:ROOT/cd"}, "jj p", ReasonRemoteHistory},
		{"jj repository", map[string]string{"ws/sub/.jj/repo/config.toml": jjPush}, nil, "cd sub && jj p", ReasonRemoteHistory},
		{"jj repository above", map[string]string{"ws/sub/.jj/repo/config.toml": jjPush, "ws/sub/deep/x": ""}, nil, "cd sub/deep && jj p", ReasonRemoteHistory},
		{"jj repository -R", map[string]string{"ws/sub/.jj/repo/config.toml": jjPush}, nil, "jj -R sub p", ReasonRemoteHistory},
		{"jj repository config-id", map[string]string{"ws/sub/.jj/repo/config-id": id, "home/.config/jj/repos/" + id + "/config.toml": jjPush}, nil, "jj -R sub p", ReasonRemoteHistory},
		{"jj workspace config", map[string]string{"ws/sub/.jj/workspace-config.toml": jjPush}, nil, "jj -R sub p", ReasonRemoteHistory},
		{"jj workspace config-id", map[string]string{"ws/sub/.jj/workspace-config-id": id, "home/.config/jj/workspaces/" + id + "/config.toml": jjPush}, nil, "jj -R sub p", ReasonRemoteHistory},
		{"jj workspace's repository", map[string]string{"ws/w/.jj/repo": "ROOT/ws/sub/.jj/repo", "ws/sub/.jj/repo/config.toml": jjPush}, nil, "cd w && jj p", ReasonRemoteHistory},
		{"jj --config", nil, nil, `jj --config 'aliases.p=["git", "push"]' p`, ReasonRemoteHistory},
		{"jj --config after", nil, nil, `jj p --config='aliases.p=["git","push"]'`, ReasonRemoteHistory},
		{"jj --config-toml", nil, nil, `jj --config-toml 'aliases.p = ["git", "push"]' p`, ReasonRemoteHistory},
		{"jj --config-file", map[string]string{"ws/my.toml": jjPush}, nil, "jj --config-file my.toml p", ReasonRemoteHistory},
		{"jj scope", map[string]string{"home/.config/jj/config.toml": "[[--scope]]\n--when.repositories = [\"~/x\"]\n[--scope.aliases]\np = [\"git\", \"push\"]\n"}, nil, "jj p", ReasonRemoteHistory},
		{"jj dotted key", map[string]string{"home/.config/jj/config.toml": "aliases.p = [\"git\", \"push\"]\n"}, nil, "jj p", ReasonRemoteHistory},
		{"jj chain", map[string]string{"home/.config/jj/config.toml": "[aliases]\nx = [\"y\", \"--allow-new\"]\ny = [\"git\", \"push\"]\n"}, nil, "jj x", ReasonRemoteHistory},
		{"jj loop", map[string]string{"home/.config/jj/config.toml": "[aliases]\nx = [\"y\"]\ny = [\"x\"]\n"}, nil, "jj x", ReasonTooDeep},
		{"jj util exec alias", map[string]string{"home/.config/jj/config.toml": "[aliases]\nx = [\"util\", \"exec\", \"--\", \"rm\", \"-rf\", \"/home\"]\n"}, nil, "jj x", ReasonDeleteOutside},
		{"jj op abandon alias", map[string]string{"home/.config/jj/config.toml": "[aliases]\nclean = [\"op\", \"abandon\", \"..@\"]\n"}, nil, "jj clean", ReasonVCSHistory},
		{"jj default command", map[string]string{"home/.config/jj/config.toml": "[ui]\ndefault-command = [\"git\", \"push\"]\n"}, nil, "jj", ReasonRemoteHistory},
		{"jj default command string", map[string]string{"ws/sub/.jj/repo/config.toml": "ui.default-command = \"p\"\n[aliases]\np = [\"git\", \"push\"]\n"}, nil, "jj -R sub", ReasonRemoteHistory},
		{"jj cannot shadow a built-in", map[string]string{"home/.config/jj/config.toml": "[aliases]\nlog = [\"git\", \"push\"]\n"}, nil, "jj log", ""},
		{"jj broken toml", map[string]string{"home/.config/jj/config.toml": "[aliases\n"}, nil, "jj p", ReasonOpaque},
		{"jj broken toml, a built-in", map[string]string{"home/.config/jj/config.toml": "[aliases\n"}, nil, "jj log", ""},
		{"jj alias not an array", map[string]string{"home/.config/jj/config.toml": "[aliases]\np = 3\n"}, nil, "jj p", ReasonOpaque},
		{"jj unused alias", map[string]string{"home/.config/jj/config.toml": jjPush}, nil, "jj q", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			root := t.TempDir()
			for k, v := range tc.files {
				files[k] = strings.ReplaceAll(v, "ROOT/", root+"/")
			}
			var env []string
			for _, e := range tc.env {
				env = append(env, strings.ReplaceAll(e, "ROOT/", root+"/"))
			}
			_, at := vcsLayoutAt(t, root, files, env...)
			checkCases(t, at, []vcsCase{{tc.cmd, tc.want}})
		})
	}
}

// TestVCSConfigBounds: Mercurial's and jj's configuration reads stop at
// git's bounds (files visited, %include depth, bytes), and then a command
// an alias could stand for asks; within them it does not.
func TestVCSConfigBounds(t *testing.T) {
	etc := 0 // the system's files count too
	paths, _ := filepath.Glob("/etc/mercurial/hgrc.d/*.rc")
	for _, p := range append(paths, "/etc/mercurial/hgrc", "/etc/sapling/system.conf") {
		if fi, err := os.Stat(p); err == nil {
			etc += int(fi.Size())
		}
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		cmd   string
		want  Reason
	}{
		{"hg includes itself", map[string]string{"home/.hgrc": "%include .hgrc\n"}, "hg log", ReasonOpaque},
		{"hg bytes at the bound", map[string]string{"home/.hgrc": "[x]\ny = " + strings.Repeat("z", maxGitConfigBytes-etc-9) + "\n"}, "hg log", ""},
		{"hg a byte past", map[string]string{"home/.hgrc": "[x]\ny = " + strings.Repeat("z", maxGitConfigBytes-etc-8) + "\n"}, "hg log", ReasonOpaque},
		{"hg bytes over the files", map[string]string{"home/.hgrc": "[x]\ny = " + strings.Repeat("z", maxGitConfigBytes/2) + "\n",
			"ws/.hg/hgrc": "[x]\ny = " + strings.Repeat("z", maxGitConfigBytes/2) + "\n"}, "hg log", ReasonOpaque},
		{"hg includes 10 deep", includeChain(10), "hg log", ""},
		{"hg includes 11 deep", includeChain(11), "hg log", ReasonOpaque},
		// Three user files and conf.d's: 32 visits, then 33.
		{"jj visits at the bound", confD(maxGitConfigFiles - 3), "jj p", ""},
		{"jj a visit past", confD(maxGitConfigFiles - 2), "jj p", ReasonOpaque},
		{"jj conf.d past the names read", confD(maxGitConfigFiles + 1), "jj p", ReasonOpaque},
		// A file included again counts its bytes again.
		{"hg bytes of visits", map[string]string{"home/.hgrc": strings.Repeat("%include b\n", 11), "home/b": "# " + strings.Repeat("z", 100<<10) + "\n"}, "hg log", ReasonOpaque},
		{"hg cached bytes, then a new file", map[string]string{"home/.hgrc": "%include b\n%include b\n%include c\n",
			"home/b": "# " + strings.Repeat("z", 400<<10) + "\n", "home/c": "# " + strings.Repeat("z", 300<<10) + "\n"}, "hg log", ReasonOpaque},
		{"hg visits within the bytes", map[string]string{"home/.hgrc": strings.Repeat("%include b\n", 9), "home/b": "# " + strings.Repeat("z", 100<<10) + "\n"}, "hg log", ""},
		{"jj bytes past", map[string]string{"home/.jjconfig.toml": "# " + strings.Repeat("z", maxGitConfigBytes) + "\n"}, "jj p", ReasonOpaque},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, at := vcsLayout(t, tc.files)
			checkCases(t, at, []vcsCase{{tc.cmd, tc.want}})
		})
	}
}

// includeChain is a ~/.hgrc that includes a chain of n files.
func includeChain(n int) map[string]string {
	fs := map[string]string{}
	prev := "home/.hgrc"
	for i := 1; i <= n; i++ {
		name := "inc" + strconv.Itoa(i)
		fs[prev] = "%include " + name + "\n"
		prev = "home/" + name
	}
	fs[prev] = "[alias]\nok = log\n"
	return fs
}

// confD is ~/.config/jj/conf.d with n files.
func confD(n int) map[string]string {
	fs := map[string]string{}
	for i := range n {
		fs["home/.config/jj/conf.d/"+strconv.Itoa(i)+".toml"] = "[user]\n"
	}
	return fs
}

// FuzzHgConfig: Mercurial's configuration syntax, any input: no panic,
// no more settings than lines, every key "section.name".
func FuzzHgConfig(f *testing.F) {
	for _, s := range []string{"[alias]\npf = push --force\n", "[a]\nb = c\n  d\n%unset b\n", "%include x\n[", "[s]\n=\n x\n;c\n#d\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		r := &vcsReader{c: newChecker(Place{})}
		r.hgParse(src, "/nonexistent", maxGitIncludes)
		if len(r.settings) > strings.Count(src, "\n")+1 {
			t.Fatalf("%d settings from %d lines", len(r.settings), strings.Count(src, "\n")+1)
		}
		for _, s := range r.settings {
			if !strings.Contains(s.key, ".") {
				t.Fatalf("key %q", s.key)
			}
		}
	})
}

// TestConfigFIFOs: a configuration path that names a FIFO (an include, a
// --configfile, jj's config-id and conf.d, Mercurial's sharedpath, git's
// include) is
// never waited on: the check goes on, and an alias it could hold asks.
func TestConfigFIFOs(t *testing.T) {
	root, at := vcsLayout(t, map[string]string{
		"home/.hgrc":     "%include fifo\n",
		"ws/.git/config": "[include]\n\tpath = ../../home/fifo\n",
	})
	home := filepath.Join(root, "home")
	ostest.Fifo(t, filepath.Join(home, "fifo"))
	for _, p := range []string{"ws/sub/.jj/repo/config-id", "ws/.hg/sharedpath", "home/.config/jj/conf.d"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		ostest.Fifo(t, filepath.Join(root, p))
	}
	checkCases(t, at, []vcsCase{
		{"git p", ReasonOpaque},
		{"hg log", ReasonOpaque},
		{"hg --configfile ~/fifo log", ReasonOpaque},
		{"jj --config-file ~/fifo p", ReasonOpaque},
		{"jj -R sub p", ReasonOpaque}, // conf.d, a FIFO, is not a directory
		{"jj -R sub log --ignore-working-copy", ""},
	})
	at.Env = append(at.Env, "HGRCPATH="+filepath.Join(home, "nothing"))
	if err := os.Remove(filepath.Join(home, ".hgrc")); err != nil {
		t.Fatal(err)
	}
	checkCases(t, at, []vcsCase{{"hg pf", ""}}) // .hg/sharedpath, a FIFO, is passed over
}
