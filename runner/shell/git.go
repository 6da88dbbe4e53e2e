package shell

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// gitGlobalWithArg are git options before the subcommand that take an
// argument, as a separate word or after "=" (git does not abbreviate them).
var gitGlobalWithArg = map[string]bool{
	"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--config-env": true, "--super-prefix": true, "--exec-path": false, "--attr-source": true,
}

// maxGitAliases bounds alias expansions within one git command (git
// itself stops an alias loop).
const maxGitAliases = 8

// git checks a git command as git runs it: its global options (-C, -c,
// --git-dir...), then the subcommand, an alias of it expanded (from -c,
// the repository's config, the global and system files: gitConfig) unless
// it names a built-in command, which git never lets an alias hide.
func (c *checker) git(args []field) {
	c.git1(args, 0)
}

func (c *checker) git1(args []field, aliases int) {
	dir, work, gitDir := c.vcwd, "", ""
	repoKnown := true
	var cli []gitSetting
	i := 0
	for ; i < len(args) && isOption(args[i]); i++ {
		t := args[i].text
		k, v, eq := strings.Cut(t, "=")
		var val field
		switch {
		case gitGlobalWithArg[t] && i+1 < len(args):
			i++
			k, val = t, args[i]
		case eq && strings.HasPrefix(t, "--") && gitGlobalWithArg[k]:
			val = field{text: v, glob: args[i].glob}
		case t == "--bare":
			gitDir = dir
			continue
		case strings.HasPrefix(t, "--exec-path="):
			c.flag(ReasonOpaque) // git's programs (git-remote-https...) from there
			return
		default:
			continue
		}
		switch k {
		case "--config-env":
			c.flag(ReasonOpaque) // a setting's value from a variable
			return
		case "-C":
			dir = c.dirOf(dir, val)
		case "--work-tree":
			work = c.dirOf(dir, val)
			repoKnown = repoKnown && work != ""
		case "--git-dir":
			gitDir = c.dirOf(dir, val)
			repoKnown = repoKnown && gitDir != ""
		case "-c":
			if !c.gitOption(val, &cli) {
				return
			}
		}
	}
	if i >= len(args) {
		return
	}
	if work == "" && repoKnown {
		work = dir
	}
	if !repoKnown {
		dir = ""
	}
	sub, rest := args[i], args[i+1:]
	if !sub.known() {
		c.flag(ReasonOpaque) // git "$X": any subcommand
		return
	}
	conf := func() gitConf { return c.gitConfig(dir, gitDir, cli) }
	name := sub.text
	defer func() { // after the command's own reasons
		if !gitReadOnly[name] && c.hooksWritten(dir, gitDir, conf) {
			c.flag(ReasonOpaque) // a hook the line wrote may run
		}
	}()
	if !gitBuiltins[name] {
		g := conf()
		v, ok := g.alias(name)
		switch {
		case g.unsure:
			c.flag(ReasonOpaque) // an alias that could not be read, or changed
		case ok && strings.HasPrefix(v, "!"):
			c.flag(ReasonOpaque) // a shell command of the configuration's
		case ok && aliases >= maxGitAliases:
			c.flag(ReasonTooDeep)
		case ok:
			words, parsed := splitGitWords(v)
			if !parsed {
				c.flag(ReasonOpaque)
				return
			}
			expanded := append(append(append([]field(nil), args[:i]...), words...), rest...)
			c.git1(expanded, aliases+1)
		case g.autocorrects() && !c.gitProgram(name):
			// No such command: git runs the built-in command or alias
			// closest to the name (git -c help.autocorrect=1 psh -f).
			c.flag(ReasonOpaque)
		default:
			c.gitCommand(name, rest, cmp.Or(gitDir, dir), work, conf) // an external git-NAME program
		}
		return
	}
	c.gitCommand(name, rest, cmp.Or(gitDir, dir), work, conf)
}

// gitExecPaths are the directories where git installs its own programs
// (git --exec-path), besides PATH, where git looks for git-NAME.
var gitExecPaths = []string{"/usr/lib/git-core", "/usr/libexec/git-core", "/usr/local/libexec/git-core",
	"/opt/homebrew/libexec/git-core", "/usr/local/lib/git-core"}

// gitProgram reports whether a git-NAME program exists in git's exec path
// or PATH (the tool's environment), which git runs before it would
// correct the name.
func (c *checker) gitProgram(name string) bool {
	if strings.ContainsAny(name, "/"+unk) {
		return false
	}
	for _, d := range append(slices.Clone(gitExecPaths), filepath.SplitList(c.env("PATH"))...) {
		if !filepath.IsAbs(d) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(d, "git-"+name)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

// gitCommand checks git subcommand name (a built-in command, or a git-NAME
// program: send-email, filter-branch, http-push...) with its arguments;
// repo is the repository it acts on (its --git-dir, else the directory it
// runs in; "" when not known), work its work tree. The commands the
// configuration runs (gitConfRuns) and those its options name
// (gitRunOpts) are checked first.
func (c *checker) gitCommand(name string, rest []field, repo, work string, conf func() gitConf) {
	c.gitConfRuns(conf())
	c.gitRunOpts(name, rest)
	c.gitSetsConfig(name, rest)
	c.gitWrite(name, rest)
	defer func() {
		// Another repository's history (a local remote such as
		// ../origin.git, another project, or one whose path is not
		// known), after the reasons below.
		if gitRewritesRefs(name, rest) && (repo == "" || c.where(field{text: repo}, true) == outside) {
			c.flag(ReasonRemoteHistory)
		}
	}()
	switch name {
	case "push", "send-pack", "http-push":
		c.gitPush(rest, conf)
	case "receive-pack":
		// Run by hand, it updates a repository's refs as the commands on
		// its stdin say, fast-forward or not.
		c.flag(ReasonGitPush)
	case "for-each-repo":
		// git -C REPO ARGS... for each repository a setting lists.
		if args := gitForEachRepoArgs(rest); len(args) > 0 {
			c.git1(append([]field{lit("-C"), unknown}, args...), maxGitAliases)
		}
	case "reset":
		for _, a := range rest {
			if longOpt(a.text, "--hard", 3) || (!a.known() && a.split) {
				c.flag(ReasonGitReset)
			}
			// --merge resets files whose staged changes match the
			// worktree (--keep keeps every local change: it stops first).
			if longOpt(a.text, "--merge", 4) {
				c.flag(ReasonGitDiscard)
			}
		}
	case "checkout":
		c.gitCheckout(rest)
	case "switch":
		for _, a := range rest {
			if longOpt(a.text, "--force", 3) || longOpt(a.text, "--discard-changes", 4) || shortFlag(a, 'f') || (!a.known() && a.split) {
				c.flag(ReasonGitDiscard)
			}
		}
	case "restore":
		staged, worktree := false, false
		for _, a := range rest {
			staged = staged || longOpt(a.text, "--staged", 5) || shortHas(a, 'S', "s")
			worktree = worktree || longOpt(a.text, "--worktree", 3) || shortFlag(a, 'W') || (!a.known() && a.split)
		}
		if !staged || worktree {
			c.flag(ReasonGitDiscard) // the worktree's changes are overwritten
		}
	case "clean":
		dry := false
		for _, a := range rest {
			dry = dry || longOpt(a.text, "--dry-run", 3) || shortHas(a, 'n', "e")
		}
		if dry {
			break
		}
		if w := c.where(field{text: work}, true); work == "" || w == outside {
			c.flag(ReasonDeleteOutside)
		}
		c.flag(ReasonGitDiscard) // untracked files are deleted
	case "stash":
		if ops := operands(rest); len(ops) > 0 && (ops[0].text == "drop" || ops[0].text == "clear" || !ops[0].known()) {
			c.flag(ReasonGitDiscard)
		}
	case "worktree":
		if ops := operands(rest); len(ops) > 0 && ops[0].text == "remove" {
			for _, a := range rest {
				if longOpt(a.text, "--force", 3) || shortFlag(a, 'f') {
					c.flag(ReasonGitDiscard)
				}
			}
		}
	case "apply", "checkout-index", "read-tree", "mv", "merge", "rebase", "am", "cherry-pick", "revert", "submodule":
		if gitDiscards(name, rest) {
			c.flag(ReasonGitDiscard)
		}
	case "rm":
		recursive, force, cached := false, false, false
		for _, a := range rest {
			recursive = recursive || shortFlag(a, 'r') || (!a.known() && a.split)
			force = force || longOpt(a.text, "--force", 3) || shortFlag(a, 'f') || (!a.known() && a.split)
			cached = cached || longOpt(a.text, "--cached", 3)
		}
		if recursive {
			if w := c.where(field{text: work}, true); work == "" || w == outside {
				c.flag(ReasonDeleteOutside)
			}
		}
		if force && !cached {
			c.flag(ReasonGitDiscard) // files with uncommitted changes
		}
	}
}

// gitDiscards reports whether git name (apply, checkout-index,
// read-tree, mv, merge, rebase, am, cherry-pick, revert, submodule) with
// the arguments rest overwrites uncommitted changes: apply -R of a patch to
// the worktree (the reverse of "git diff" is the committed content),
// checkout-index -f, read-tree --reset with -u, mv -f over an existing
// file, --abort and --skip of a merge, rebase, am, cherry-pick or revert
// in progress (they reset the worktree, and a conflict's resolution with
// it), submodule update -f and deinit -f. Long options in any
// abbreviation, short ones in any cluster; a word that may be several
// unknown arguments counts as the option.
func gitDiscards(name string, rest []field) bool {
	// find reports an option before "--": long in any abbreviation of at
	// least min bytes, short in any cluster (up to an option of withArg,
	// whose value the rest is); maybe also counts a word that may be
	// several unknown arguments.
	find := func(maybe bool, short byte, withArg, long string, min int) bool {
		for _, a := range rest {
			switch {
			case a.text == "--":
				return false
			case maybe && !a.known() && a.split,
				long != "" && strings.HasPrefix(a.text, "--") && longOpt(a.text, long, min),
				short != 0 && shortHas(a, short, withArg):
				return true
			}
		}
		return false
	}
	has := func(short byte, long string, min int) bool { return find(true, short, "", long, min) }
	surely := func(long string, min int) bool { return find(false, 0, "", long, min) }
	switch name {
	case "apply":
		// --cached writes the index only; --check, --stat, --numstat and
		// --summary write nothing unless --apply is given too.
		if !find(true, 'R', "pC", "--reverse", 5) || surely("--cached", 4) {
			return false
		}
		dry := surely("--check", 4) || surely("--stat", 4) || surely("--numstat", 4) || surely("--summary", 4)
		return !dry || has(0, "--apply", 4)
	case "checkout-index", "mv":
		return has('f', "--force", 3)
	case "read-tree":
		return has('u', "", 0) && has(0, "--reset", 5)
	case "merge":
		return has(0, "--abort", 4)
	case "rebase", "am", "cherry-pick", "revert":
		return has(0, "--abort", 4) || has(0, "--skip", 3)
	case "submodule":
		ops := operands(rest)
		if len(ops) == 0 || (ops[0].known() && ops[0].text != "update" && ops[0].text != "deinit") {
			return false
		}
		return has('f', "--force", 3)
	}
	return false
}

// gitOption checks one -c NAME=VALUE; false when the check stops there.
// The setting joins the configuration the command runs with.
func (c *checker) gitOption(v field, cli *[]gitSetting) bool {
	if !v.known() {
		c.flag(ReasonOpaque)
		return false
	}
	k, cmd, eq := strings.Cut(v.text, "=")
	k = strings.ToLower(k)
	if !eq {
		cmd = "true" // -c NAME alone is true
	}
	*cli = append(*cli, gitSetting{key: k, value: cmd})
	switch {
	case strings.HasPrefix(k, "alias.") && strings.HasPrefix(cmd, "!"):
		c.nested(cmd[1:], nil, false)
	case k == "core.hookspath" || k == "include.path" || strings.HasPrefix(k, "includeif."):
		c.flag(ReasonOpaque) // hooks or configuration from files not read here
	default:
		c.gitSettingRuns(k, cmd)
	}
	return c.why == ""
}

// gitPush: git push (and send-pack, http-push) asks when it may overwrite
// or delete remote history: a forcing option in any spelling git accepts
// (every unambiguous abbreviation of a long option, and the ambiguous
// ones too; http-push's -D), refspecs read from stdin (send-pack
// --stdin), a +refspec or :refspec, an operand that may start with
// either, or a configuration that forces a plain push
// (gitConf.forcesPush), or one that could not be read.
func (c *checker) gitPush(rest []field, conf func() gitConf) {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		t := a.text
		switch {
		case !a.known() && a.split:
			c.flag(ReasonGitPush) // may be --force
		case longOpt(t, "--force", 3), longOpt(t, "--force-with-lease", 3), longOpt(t, "--force-if-includes", 3),
			longOpt(t, "--mirror", 3), longOpt(t, "--delete", 3), longOpt(t, "--prune", 3), longOpt(t, "--stdin", 4),
			shortFlag(a, 'f'), shortFlag(a, 'd'), shortFlag(a, 'D'):
			c.flag(ReasonGitPush)
		case longOpt(t, "--recurse-submodules", 5):
			// on-demand and only push each submodule with its own
			// configuration, which is not read here.
			if _, v, _ := strings.Cut(t, "="); v != "check" && v != "no" {
				c.flag(ReasonGitPush)
			}
		case longOpt(t, "--receive-pack", 5), longOpt(t, "--exec", 3):
			if _, _, eq := strings.Cut(t, "="); !eq {
				i++ // its command, checked by gitRunOpts
			}
		}
	}
	for _, a := range operands(rest) {
		if strings.HasPrefix(a.text, "+") || strings.HasPrefix(a.text, ":") || strings.HasPrefix(a.text, unk) {
			c.flag(ReasonGitPush)
		}
	}
	if c.why != "" {
		return
	}
	if g := conf(); g.unsure || g.forcesPush() {
		c.flag(ReasonGitPush)
	}
}

// gitConfRuns checks the commands that configuration files (not -c,
// which gitOption checks) give git to run: a pager, an editor, a tool's
// command, a filter... (gitRunKey, gitRunValue). The repository's own
// .git/config is one of them.
func (c *checker) gitConfRuns(g gitConf) {
	for _, s := range g.settings[:g.files] {
		if c.why != "" {
			return
		}
		// Once a check: a command a setting names may itself be git
		// (core.pager = git ..., credential.helper = !git ...), which
		// reads the same setting again.
		if seen := s.key + "=" + s.value; !c.gitRunsSeen[seen] {
			c.gitRunsSeen[seen] = true
			c.gitSettingRuns(s.key, s.value)
		}
	}
}

// gitSettingRuns checks one setting that makes git run a command: the
// command is checked (a leading "!" says "with the shell"); one that
// allows the ext:: transport, whose URLs are commands, asks.
func (c *checker) gitSettingRuns(k, v string) {
	switch {
	case gitRunKey(k):
		c.nested(strings.TrimPrefix(v, "!"), nil, false)
	case strings.HasPrefix(k, "submodule.") && strings.HasSuffix(k, ".update") && strings.HasPrefix(v, "!"):
		c.nested(v[1:], nil, false) // git submodule update runs it
	case (k == "protocol.ext.allow" || k == "protocol.allow") && strings.ToLower(v) != "never":
		c.flag(ReasonOpaque) // ext::COMMAND remotes
	}
}

// gitRewritesRefs reports whether git command name may move a ref
// backwards, delete one, or drop the objects or reflogs that keep
// history: update-ref, symbolic-ref and replace (but their reading forms),
// reset, rebase, filter-branch, commit --amend, checkout -B, switch -C,
// branch and tag deleting, forcing or moving, a fetch or pull with a
// +refspec (or one that may start with +), --force or --prune, reflog
// expire or delete, prune, gc --prune, fast-import --force.
func gitRewritesRefs(name string, rest []field) bool {
	ops := operands(rest)
	any := func(long []string, short string) bool {
		for _, a := range rest {
			if a.text == "--" {
				return false
			}
			if !a.known() && a.split {
				return true
			}
			if !isOption(a) {
				continue
			}
			if strings.HasPrefix(a.text, "--") {
				for _, l := range long {
					if longOpt(a.text, l, 4) {
						return true
					}
				}
			} else if strings.ContainsAny(a.text[1:], short) {
				return true
			}
		}
		return false
	}
	switch name {
	case "update-ref", "reset", "rebase", "filter-branch", "prune":
		return true
	case "symbolic-ref":
		return len(ops) >= 2 || any([]string{"--delete"}, "d")
	case "replace":
		return len(ops) > 0 && !any([]string{"--list"}, "l")
	case "branch":
		return any([]string{"--delete", "--force", "--move", "--copy"}, "dDfmMC")
	case "tag":
		return any([]string{"--delete", "--force"}, "df")
	case "fetch", "pull":
		for _, a := range ops {
			if strings.HasPrefix(a.text, "+") || strings.HasPrefix(a.text, unk) {
				return true
			}
		}
		return any([]string{"--force", "--prune", "--prune-tags"}, "fpP")
	case "reflog":
		return len(ops) > 0 && (ops[0].text == "expire" || ops[0].text == "delete" || !ops[0].known())
	case "gc":
		return any([]string{"--prune"}, "")
	case "commit":
		return any([]string{"--amend"}, "")
	case "checkout":
		return any(nil, "B")
	case "switch":
		return any([]string{"--force-create"}, "C")
	case "fast-import":
		return any([]string{"--force"}, "")
	}
	return false
}

// gitConfigWriters are the git commands that may change the configuration
// a later git command of the same script reads: config (but its reading
// forms), remote add --mirror..., clone -c and init (a new repository),
// submodule, worktree and maintenance register.
var gitConfigWriters = map[string]bool{
	"config": true, "remote": true, "clone": true, "init": true, "submodule": true,
	"worktree": true, "maintenance": true,
}

// gitSetsConfig checks a git command that may change git's configuration:
// a setting it writes that makes git run a command is checked now, and
// git's configuration is unsure for the rest of the script (checked as
// the files are before it runs, a later git p or git push could be read
// without the alias or the forcing refspec it just set).
func (c *checker) gitSetsConfig(name string, rest []field) {
	if !gitConfigWriters[name] || gitReads(name, rest) {
		return
	}
	c.gitSet = true
	var ops []field
	for i := 0; i < len(rest); i++ {
		a, t := rest[i], rest[i].text
		switch {
		case name == "clone" && (t == "-c" || longOpt(t, "--config", 4) && !strings.Contains(t, "=")) && i+1 < len(rest):
			i++
			c.gitSetting(rest[i])
		case name == "clone" && longOpt(t, "--config", 4):
			_, v, _ := strings.Cut(t, "=")
			c.gitSetting(field{text: v, glob: a.glob})
		case name == "clone" && strings.HasPrefix(t, "-c"):
			c.gitSetting(field{text: t[2:], glob: a.glob})
		case name == "config" && gitConfigArgOpt(t):
			i++ // an option's argument
		case !isOption(a):
			ops = append(ops, a)
		}
	}
	if name != "config" {
		return
	}
	if len(ops) > 0 && slices.Contains([]string{"set", "unset", "get", "list", "rename-section", "remove-section", "edit"}, ops[0].text) {
		ops = ops[1:]
	}
	if len(ops) >= 2 {
		c.gitSetting(field{text: ops[0].text + "=" + ops[1].text, glob: ops[1].glob})
	}
}

// gitConfigArgOpts are git config's long options that take the next word
// as their value.
var gitConfigArgOpts = []string{"--file", "--blob", "--type", "--default", "--comment", "--value"}

// gitConfigArgOpt reports whether t is a git config option whose value is
// the next word: one of gitConfigArgOpts in any abbreviation (git accepts
// unambiguous prefixes: --fil, --ty), or a short cluster ending in -f
// (-zf FILE).
func gitConfigArgOpt(t string) bool {
	if strings.HasPrefix(t, "--") {
		return !strings.Contains(t, "=") && slices.ContainsFunc(gitConfigArgOpts, func(o string) bool { return longOpt(t, o, 3) })
	}
	return len(t) > 1 && t[0] == '-' && strings.IndexByte(t[1:], 'f') == len(t)-2
}

// gitSetting checks a setting NAME=VALUE a command writes (git config,
// clone -c): an alias of a shell command or a setting that makes git run
// a command (gitSettingRuns) is checked as the command it runs.
func (c *checker) gitSetting(v field) {
	if !v.known() {
		c.flag(ReasonOpaque)
		return
	}
	k, val, _ := strings.Cut(v.text, "=")
	k = strings.ToLower(k)
	if strings.HasPrefix(k, "alias.") && strings.HasPrefix(val, "!") {
		c.nested(val[1:], nil, false)
		return
	}
	c.gitSettingRuns(k, val)
}

// cmdOpt is a long option whose value git runs as a command, with the
// length of its shortest abbreviation that no other option of the
// command shares.
type cmdOpt struct {
	long string
	min  int
}

// gitCmdOpts are, by subcommand, the options whose value git runs as a
// command (with the shell, or on the remote side, which for a local
// remote is this machine): the long ones (the value after "=" or in the
// next word), the short letters (the rest of the cluster or the next
// word) and those whose value is only ever attached (grep -O[PAGER]);
// withArg are the short letters that take the rest of a cluster as their
// value (the letters after one are not options); appends says git adds
// words after the command (the repository's path,
// the matching files, the files to compare, a patch's name), which a
// command such as "git checkout" turns into a discard of those files.
var gitCmdOpts = map[string]struct {
	long            []cmdOpt
	short, attached string
	withArg         string
	appends         bool
}{
	"push":          {long: []cmdOpt{{"--receive-pack", 5}, {"--exec", 3}}, appends: true},
	"send-pack":     {long: []cmdOpt{{"--receive-pack", 3}, {"--exec", 3}}, appends: true},
	"fetch":         {long: []cmdOpt{{"--upload-pack", 4}}, appends: true},
	"pull":          {long: []cmdOpt{{"--upload-pack", 4}}, appends: true},
	"fetch-pack":    {long: []cmdOpt{{"--upload-pack", 3}, {"--exec", 3}}, appends: true},
	"clone":         {long: []cmdOpt{{"--upload-pack", 3}}, short: "u", withArg: "obcju", appends: true},
	"ls-remote":     {long: []cmdOpt{{"--upload-pack", 3}, {"--exec", 3}}, appends: true},
	"archive":       {long: []cmdOpt{{"--exec", 3}}, appends: true},
	"rebase":        {long: []cmdOpt{{"--exec", 4}}, short: "x", withArg: "sSXCx"},
	"difftool":      {long: []cmdOpt{{"--extcmd", 3}}, short: "x", withArg: "tx", appends: true},
	"grep":          {long: []cmdOpt{{"--open-files-in-pager", 4}}, attached: "O", withArg: "efABCmO", appends: true},
	"instaweb":      {long: []cmdOpt{{"--httpd", 3}, {"--browser", 3}}},
	"send-email":    {long: []cmdOpt{{"--to-cmd", 4}, {"--cc-cmd", 4}, {"--header-cmd", 4}, {"--sendmail-cmd", 4}, {"--smtp-server", 7}}, appends: true},
	"filter-branch": {long: []cmdOpt{{"--env-filter", 12}, {"--tree-filter", 13}, {"--index-filter", 14}, {"--parent-filter", 15}, {"--msg-filter", 12}, {"--commit-filter", 15}, {"--tag-name-filter", 17}, {"--setup", 7}}},
}

// gitRunOpts checks the commands git subcommand name runs: those its
// options name (gitCmdOpts), submodule foreach's and bisect run's
// command, and every word of a short cluster after its command letter.
func (c *checker) gitRunOpts(name string, rest []field) {
	opts := gitCmdOpts[name]
	run := func(cmd string) {
		if cmd == "" {
			return // grep -O alone: the pager
		}
		if opts.appends { // CMD "$@", the words git's own
			c.nested(cmd+` "$@"`, []field{unknown, unknown}, false)
		} else {
			c.nested(cmd, nil, false)
		}
	}
	for i := 0; i < len(rest) && c.why == ""; i++ {
		a := rest[i]
		t := a.text
		if t == "--" {
			break
		}
		if !isOption(a) {
			continue
		}
		if strings.HasPrefix(t, "--") {
			for _, o := range opts.long {
				if !longOpt(t, o.long, o.min) {
					continue
				}
				if _, v, eq := strings.Cut(t, "="); eq {
					run(v)
				} else if i+1 < len(rest) {
					i++
					run(rest[i].text)
				}
			}
			continue
		}
		if k := strings.IndexAny(t[1:], opts.withArg); k >= 0 {
			t = t[:k+2] // the rest is that option's value (clone -cNAME=VALUE)
		}
		if k := strings.IndexAny(t[1:], opts.attached); k >= 0 {
			run(a.text[k+2:])
		} else if k := strings.IndexAny(t[1:], opts.short); k >= 0 {
			if v := a.text[k+2:]; v != "" {
				run(v)
			} else if i+1 < len(rest) {
				i++
				run(rest[i].text)
			}
		}
	}
	ops := operands(rest)
	if len(ops) == 0 {
		return
	}
	switch {
	case name == "submodule" && ops[0].text == "foreach":
		// git runs the first word with the shell, the others as its
		// arguments ("$@").
		switch cmd := gitAfter(rest, ops[0]); {
		case len(cmd) > 0 && !cmd[0].known():
			c.flag(ReasonOpaque)
		case len(cmd) > 0:
			c.nest(func() { c.subshell(func() { c.scriptWithArgs(cmd[0].text, cmd[1:]) }) })
		}
	case name == "bisect" && ops[0].text == "run":
		c.runProgram(gitAfter(rest, ops[0]), input{})
	case name == "submodule" || name == "bisect":
		if !ops[0].known() {
			c.flag(ReasonOpaque) // may be foreach or run
		}
	}
}

// gitAfter is what follows word w in rest, its own options skipped (those
// of submodule foreach: --quiet, --recursive) and one "--".
func gitAfter(rest []field, w field) []field {
	after := restAfter(rest, w)
	for len(after) > 0 && isOption(after[0]) {
		after = after[1:]
	}
	if len(after) > 0 && after[0].text == "--" {
		after = after[1:]
	}
	return after
}

// gitForEachRepoArgs are the git arguments git for-each-repo runs in each
// repository: what follows its own options (--config=KEY, --config KEY,
// --keep-going) and one "--".
func gitForEachRepoArgs(rest []field) []field {
	for i := 0; i < len(rest); i++ {
		switch t := rest[i].text; {
		case t == "--":
			return rest[i+1:]
		case longOpt(t, "--config", 3) && !strings.Contains(t, "="):
			i++
		case isOption(rest[i]) && strings.HasPrefix(t, "--"):
		default:
			return rest[i:]
		}
	}
	return nil
}

// gitCheckout: git checkout discards uncommitted changes with -f, --ours,
// --theirs, -m, or when it checks out paths: after "--", a second operand
// (checkout COMMIT PATH...), ".", a glob, an operand that names an existing
// path (a branch of the same name is not told apart: it asks), or one not
// known. The argument of -b, -B and --orphan is a new branch's name.
func (c *checker) gitCheckout(rest []field) {
	var ops []field
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		t := a.text
		switch {
		case !a.known() && a.split:
			c.flag(ReasonGitDiscard)
			return
		case t == "--":
			if len(rest) > i+1 {
				c.flag(ReasonGitDiscard)
			}
			return
		case longOpt(t, "--force", 3), longOpt(t, "--ours", 4), longOpt(t, "--theirs", 3),
			longOpt(t, "--merge", 3), longOpt(t, "--pathspec-from-file", 4), longOpt(t, "--patch", 4):
			c.flag(ReasonGitDiscard)
			return
		case t == "-b" || t == "-B" || t == "--orphan":
			i++ // the new branch
		case isOption(a) && !strings.HasPrefix(t, "--"):
			if strings.ContainsAny(t[1:], "fmp") {
				c.flag(ReasonGitDiscard)
				return
			}
			if strings.ContainsAny(t[len(t)-1:], "bB") {
				i++
			}
		case isOption(a):
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) > 1 {
		c.flag(ReasonGitDiscard)
		return
	}
	for _, op := range ops {
		if !op.known() || strings.ContainsAny(op.text, "*?[") || op.text == "." || c.exists(op) { // git globs pathspecs itself
			c.flag(ReasonGitDiscard)
		}
	}
}

// exists reports whether a known field names an existing path (relative
// to the tracked directory; an unknown directory counts as existing).
func (c *checker) exists(f field) bool {
	p := c.abs(f)
	if p == "" {
		return true
	}
	return lstatOK(p)
}

// gitWrite notes that git command name writes the repository's .git,
// when the sandbox holds it read-only (Place.GitReadOnly): the command
// then asks (ReasonGitWrite, unless a stronger reason is found) and, once
// approved, runs with .git writable. Commands that only read it do not.
func (c *checker) gitWrite(name string, rest []field) {
	if !c.gitReadOnly || gitReads(name, rest) {
		return
	}
	c.gitWrites = true
}

// gitReadOnly are the git commands that never write .git.
var gitReadOnly = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "blame": true, "annotate": true,
	"grep": true, "ls-files": true, "ls-tree": true, "ls-remote": true, "rev-parse": true,
	"rev-list": true, "describe": true, "cat-file": true, "shortlog": true, "whatchanged": true,
	"version": true, "help": true, "var": true, "check-ignore": true, "check-attr": true,
	"check-ref-format": true, "for-each-ref": true, "name-rev": true, "merge-base": true,
	"show-ref": true, "show-branch": true, "count-objects": true, "diff-files": true,
	"diff-index": true, "diff-tree": true, "format-patch": true, "archive": true,
	"range-diff": true, "cherry": true, "verify-commit": true, "verify-tag": true,
}

// gitReads reports whether git name with its arguments only reads .git:
// a read-only command, or the listing forms of branch, tag, remote, stash,
// worktree, reflog, notes, submodule and config.
func gitReads(name string, rest []field) bool {
	if gitReadOnly[name] {
		return true
	}
	ops := operands(rest)
	has := func(opts ...string) bool {
		for _, a := range rest {
			for _, o := range opts {
				if a.text == o || strings.HasPrefix(a.text, o+"=") {
					return true
				}
			}
		}
		return false
	}
	first := ""
	if len(ops) > 0 {
		first = ops[0].text
	}
	switch name {
	case "branch", "tag":
		// Listing: no operand (or -l, whose operands are patterns) and
		// only the listing options.
		for _, a := range rest {
			switch t := a.text; {
			case !isOption(a):
			case strings.HasPrefix(t, "--"):
				if !slicesHasPrefix(t, gitListOpts...) {
					return false
				}
			case strings.ContainsAny(t[1:], "dDmMcCfuseF"):
				return false
			}
		}
		return len(ops) == 0 || has("-l", "--list")
	case "remote":
		return first == "" || first == "show" || first == "get-url"
	case "stash":
		return first == "list" || first == "show"
	case "worktree":
		return first == "list"
	case "reflog":
		return first == "" || first == "show" || first == "exists"
	case "notes":
		return first == "list" || first == "show"
	case "submodule":
		return first == "status" || first == "summary"
	case "config":
		return has("--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--get-color", "--get-colorbool") ||
			first == "get" || first == "list"
	}
	return false
}

// gitListOpts are the long options of git branch and git tag that list.
var gitListOpts = []string{"--list", "--all", "--remotes", "--verbose", "--contains", "--no-contains",
	"--merged", "--no-merged", "--sort", "--format", "--points-at", "--show-current", "--column",
	"--no-column", "--color", "--no-color", "--abbrev", "--ignore-case", "--omit-empty", "-n"}

// slicesHasPrefix reports whether t is one of opts, alone or with "=VALUE".
func slicesHasPrefix(t string, opts ...string) bool {
	for _, o := range opts {
		if t == o || strings.HasPrefix(t, o+"=") {
			return true
		}
	}
	return false
}

// gitBuiltins are git's built-in commands (git 2.4x): an alias of the
// same name is ignored, so these are never looked up as aliases.
var gitBuiltins = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`add am annotate apply archive bisect blame branch bugreport bundle
		cat-file check-attr check-ignore check-mailmap check-ref-format checkout checkout-index
		cherry cherry-pick clean clone column commit commit-graph commit-tree config count-objects
		credential describe diagnose diff diff-files diff-index diff-tree difftool fast-export
		fast-import fetch fetch-pack filter-branch for-each-ref for-each-repo format-patch fsck gc
		get-tar-commit-id grep hash-object help hook index-pack init interpret-trailers log
		ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file
		merge-index merge-ours merge-recursive merge-tree mktag mktree multi-pack-index mv
		name-rev notes pack-objects pack-redundant pack-refs patch-id prune prune-packed pull
		push range-diff read-tree rebase receive-pack reflog refs remote repack replace replay
		rerere reset restore rev-list rev-parse revert rm send-pack shortlog show show-branch
		show-index show-ref sparse-checkout stash status stripspace submodule switch symbolic-ref
		tag unpack-file unpack-objects update-index update-ref update-server-info upload-archive
		upload-pack var verify-commit verify-pack verify-tag version whatchanged worktree
		write-tree`) {
		m[n] = true
	}
	return m
}()

// splitGitWords splits an alias value into words as git does: white
// space separates, single and double quotes group, a backslash escapes
// the next character (not inside single quotes). An unclosed quote fails.
// Unknown parts (unk) stay in their word.
func splitGitWords(s string) ([]field, bool) {
	var out []field
	var b strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote == 0 && (ch == ' ' || ch == '\t' || ch == '\n'):
			if in {
				out = append(out, lit(b.String()))
				b.Reset()
				in = false
			}
		case ch == '\\' && quote != '\'' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			in = true
		case (ch == '\'' || ch == '"') && quote == 0:
			quote, in = ch, true
		case quote != 0 && ch == quote:
			quote = 0
		default:
			b.WriteByte(ch)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		out = append(out, lit(b.String()))
	}
	return out, true
}
