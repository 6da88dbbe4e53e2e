package shell

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Version control clients other than git (git.go): Mercurial (hg, chg),
// Sapling (sl), jj, Pijul, Darcs, Bazaar and Breezy (bzr, brz) and Fossil.
//
// Under the OS sandbox their metadata (runner/protected) is read-only, so
// every command of theirs that may write it asks (ReasonVCSWrite) and,
// once approved, runs with it writable; a documented set of reading
// commands does not. Whatever the sandbox, a command that destroys local
// history or uncommitted work asks (ReasonVCSHistory), and one that
// rewrites or deletes remote history (ReasonRemoteHistory). Commands are
// read as each client resolves them: Mercurial's and Sapling's aliases
// (which may shadow a built-in command, from every hgrc and --config),
// [defaults] and unambiguous prefixes of command names; jj's aliases and
// ui.default-command (from its user, repository and workspace
// configuration, --config, --config-toml and --config-file); Darcs' and
// Fossil's prefixes. Where a name may stand for several commands, each
// is checked.

// vcsClient is what the rules know of one client's commands.
type vcsClient struct {
	names    map[string]string // every name and synonym of a command -> its canonical name
	reads    map[string]bool   // commands that never write the metadata (some only in the forms vcsReads allows)
	destroys map[string]bool   // commands that destroy history or uncommitted work
	prefixes bool              // the client runs a command from an unambiguous prefix of its name
}

// newClient builds a vcsClient from "canonical|synonym..." lists.
func newClient(all, reads, destroys string, prefixes bool) vcsClient {
	v := vcsClient{names: map[string]string{}, reads: map[string]bool{}, destroys: map[string]bool{}, prefixes: prefixes}
	for _, group := range strings.Fields(all + " " + reads + " " + destroys) {
		names := strings.Split(group, "|")
		for _, n := range names {
			v.names[n] = names[0]
		}
	}
	for _, group := range strings.Fields(reads) {
		v.reads[strings.Split(group, "|")[0]] = true
	}
	for _, group := range strings.Fields(destroys) {
		v.destroys[strings.Split(group, "|")[0]] = true
	}
	return v
}

// resolve returns the canonical commands word may run: itself (or its
// synonym's command) when it names one, else every command it is a
// prefix of (when the client accepts prefixes), plus the extra names
// (aliases) it names or prefixes. ok is false when it names none.
func (v vcsClient) resolve(word string, extra []string) (cmds, aliases []string) {
	if slices.Contains(extra, word) {
		return nil, []string{word}
	}
	if canon, ok := v.names[word]; ok {
		return []string{canon}, nil
	}
	if !v.prefixes || word == "" {
		return nil, nil
	}
	for n, canon := range v.names {
		if strings.HasPrefix(n, word) && !slices.Contains(cmds, canon) {
			cmds = append(cmds, canon)
		}
	}
	for _, a := range extra {
		if strings.HasPrefix(a, word) {
			aliases = append(aliases, a)
		}
	}
	slices.Sort(cmds)
	slices.Sort(aliases)
	return cmds, aliases
}

// hgClient: Mercurial's commands (core, and the extensions people enable:
// rebase, histedit, strip, evolve, shelve, absorb...), with Sapling's.
var hgClient = newClient(
	`add addremove backout bisect clone revert commit|ci copy|cp forget graft import|patch init merge pull push
	recover remove|rm rename|move|mv serve tag unbundle update|up|checkout|co|goto|go amend rebase
	histedit absorb fix uncommit unamend evolve next prev fold split metaedit touch topics|topic record
	unshelve hide unhide restack cloud pr ghstack uncopy bookmark-move archive debugrebuilddirstate
	debugsetparents verify`,
	`annotate|blame|ann cat diff export files grep heads help identify|id incoming|in locate log|history
	manifest outgoing|out parents paths root status|st summary|sum tags tip version branches
	bundle show smartlog|sl|ssl whereami obslog|olog journal config|showconfig|debugconfig
	bookmarks|bookmark|book branch resolve shelve phase`,
	`strip debugstrip prune|obsolete rollback purge|clean debugobsolete`, true)

// jjBuiltins are jj's commands: an alias of the same name is ignored.
var jjBuiltins = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`abandon absorb arrange backout bench bookmark b branch cat chmod
		commit ci config debug describe desc diff diffedit duplicate edit evolog obslog file files fix
		gerrit git help interdiff log merge metaedit move new next operation op parallelize prev rebase
		redo resolve restore revert root run show sign simplify-parents sparse split squash status st
		tag undo unsign untrack util version workspace`) {
		jjBuiltins[n] = true
	}
}

// jjReadsIWC are jj's commands (with their subcommand) that only read the
// repository when the working copy is not snapshotted
// (--ignore-working-copy, --at-operation); otherwise every jj command
// writes .jj.
var jjReadsIWC = map[string]bool{
	"log": true, "show": true, "diff": true, "status": true, "st": true, "evolog": true, "obslog": true,
	"interdiff": true, "root": true, "file show": true, "file list": true, "file annotate": true,
	"file search": true, "files": true, "cat": true, "operation log": true, "operation show": true,
	"operation diff": true, "op log": true, "op show": true, "op diff": true, "bookmark list": true,
	"b list": true, "tag list": true, "workspace list": true, "workspace root": true, "git remote list": true,
}

// vcsOthers: the commands of Pijul, Darcs, Bazaar (and Breezy) and
// Fossil that only read, and those that destroy history or uncommitted
// work. Any other writes. Darcs and Fossil accept prefixes.
var vcsOthers = map[string]vcsClient{
	"pijul": newClient(`record add remove mv push pull clone init apply fork channel tag archive move`,
		`log diff change credit ls help`, `unrecord reset`, false),
	"darcs": newClient(`record add remove move mv push pull clone initialize apply tag send rollback replace setpref optimize convert rebase repair`,
		`log|changes diff whatsnew|status show annotate help test`, `obliterate|unpull unrecord revert amend|amend-record`, true),
	"bzr": newClient(`commit|ci add remove|rm mv push pull branch checkout|co merge init update|up tag shelve unshelve switch send bind unbind`,
		`log diff|di|dif status|st|stat annotate|blame|praise cat info ls help version tags revno missing`,
		`uncommit revert clean-tree remove-tree`, false),
	"fossil": newClient(`commit|ci add rm|delete mv|rename push pull sync clone open close update checkout|co merge init|new tag branch stash undo redo settings unset`,
		`help version`, `purge revert scrub clean shun`, true),
}

// hg checks Mercurial (hg, chg) and Sapling (sl) commands.
func (c *checker) hg(prog string, args []field) {
	c.hg1(prog, args, 0, map[string]bool{})
}

func (c *checker) hg1(prog string, args []field, depth int, expanded map[string]bool) {
	dir := c.vcwd
	var cli []vcsSetting
	var files []string
	cmd := -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.known() {
			if cmd < 0 {
				c.flag(ReasonOpaque) // an option or the command, unknown
				return
			}
			continue
		}
		k, v, eq := strings.Cut(t, "=")
		val := func() field {
			if eq {
				return field{text: v, glob: a.glob}
			}
			return nextArg(args, &i)
		}
		switch {
		case t == "--":
			if cmd < 0 && i+1 < len(args) {
				cmd = i + 1
			}
			i = len(args)
		case k == "--config" || strings.HasPrefix(k, "--con") && longOpt(k, "--config", 5) && !longOpt(k, "--configfile", 9):
			if !c.hgOption(val(), &cli) {
				return
			}
		case longOpt(k, "--configfile", 9):
			f := val()
			if p := c.abs(f); p != "" {
				files = append(files, p)
			} else {
				c.flag(ReasonOpaque)
				return
			}
		case k == "-R" || longOpt(k, "--repository", 5) || k == "--cwd":
			dir = c.dirOf(dir, val())
		case isOption(a) && !strings.HasPrefix(t, "--") && strings.IndexByte(t, 'R') > 0:
			// a cluster of Mercurial's short global options (-qyvR):
			// -R takes the rest, or the next word
			if v := t[strings.IndexByte(t, 'R')+1:]; v != "" {
				dir = c.dirOf(dir, lit(v))
			} else {
				dir = c.dirOf(dir, nextArg(args, &i))
			}
		case cmd < 0 && (longOpt(k, "--encoding", 5) || longOpt(k, "--encodingmode", 11) || longOpt(k, "--color", 4) || longOpt(k, "--pager", 4)):
			val()
		case cmd < 0 && !isOption(a):
			cmd = i
		}
	}
	if cmd < 0 || cmd >= len(args) {
		return // hg alone, or with options only: help or the version
	}
	conf := c.hgConfig(dir, cli, files)
	word := args[cmd].text
	rest := args[cmd+1:]
	var aliases []string
	for _, a := range conf.names("alias") {
		if !expanded[a] {
			aliases = append(aliases, a)
		}
	}
	if conf.unsure {
		c.flag(ReasonOpaque) // an alias may stand for any command, a built-in one too
		return
	}
	cmds, als := hgClient.resolve(word, aliases)
	if len(cmds) == 0 && len(als) == 0 {
		c.vcsWrite() // an unknown command: the client fails, or an extension runs
		return
	}
	for _, a := range als {
		s, _ := conf.get("alias." + a)
		switch {
		case strings.HasPrefix(strings.TrimSpace(s.value), "!"):
			c.flag(ReasonOpaque) // a shell command of the configuration's
			return
		case depth >= maxGitAliases:
			c.flag(ReasonTooDeep)
			return
		}
		words, ok := splitGitWords(s.value)
		if !ok {
			c.flag(ReasonOpaque)
			return
		}
		words, rest := hgAliasArgs(words, rest)
		inner := withKey(expanded, a)
		c.hg1(prog, append(append(append([]field(nil), args[:cmd]...), words...), rest...), depth+1, inner)
	}
	for _, canon := range cmds {
		full := rest
		if s, ok := conf.get("defaults." + canon); ok {
			words, parsed := splitGitWords(s.value)
			if !parsed {
				c.flag(ReasonOpaque)
				return
			}
			full = append(words, rest...)
		}
		c.hgCommand(prog, canon, full)
	}
}

// withKey returns a copy of m with k set.
func withKey(m map[string]bool, k string) map[string]bool {
	out := map[string]bool{k: true}
	for n := range m {
		out[n] = true
	}
	return out
}

// hgAliasArgs substitutes an alias's $1...$N and $@ with the command's
// arguments; those past the highest $N used are appended, as Mercurial
// does.
func hgAliasArgs(words, args []field) ([]field, []field) {
	used := 0
	var out []field
	for _, w := range words {
		if w.text == "$@" {
			out = append(out, args...)
			used = len(args)
			continue
		}
		t := w.text
		for n := len(args); n >= 1; n-- {
			if d := "$" + strconv.Itoa(n); strings.Contains(t, d) {
				t = strings.ReplaceAll(t, d, args[n-1].text)
				used = max(used, n)
			}
		}
		if strings.Contains(t, "$") {
			t = strings.ReplaceAll(t, "$", unk) // a $N past the arguments, or $HG...: unknown
		}
		out = append(out, field{text: t})
	}
	return out, args[used:]
}

// hgOption checks one --config SECTION.NAME=VALUE; false when the check
// stops there. Aliases and [defaults] join the configuration; hooks,
// editors, merge and diff tools, ssh and pagers run their value as a
// command, which is checked; an extension loaded from a file and
// %include are not read: they ask.
func (c *checker) hgOption(v field, cli *[]vcsSetting) bool {
	if !v.known() {
		c.flag(ReasonOpaque)
		return false
	}
	k, val, _ := strings.Cut(v.text, "=")
	*cli = append(*cli, vcsSetting{key: k, value: val})
	section, name, _ := strings.Cut(k, ".")
	switch {
	case section == "hooks" && strings.HasPrefix(strings.TrimSpace(val), "python:"):
		c.flag(ReasonOpaque)
	case section == "hooks" || section == "merge-tools" || section == "extdiff" || section == "pager" ||
		section == "ui" && (name == "editor" || name == "merge" || name == "ssh" || name == "remotecmd"):
		c.nested(val, nil, false)
	case section == "extensions" && strings.ContainsAny(val, `/\~`):
		c.flag(ReasonOpaque) // Python code from a file
	case strings.HasPrefix(k, "%include"):
		c.flag(ReasonOpaque)
	}
	return c.why == ""
}

// hgCommand checks one resolved Mercurial or Sapling command with its
// arguments.
func (c *checker) hgCommand(prog, canon string, rest []field) {
	has := func(long string, min int, short byte, withArg string) bool {
		for _, a := range rest {
			// a word whose value is unknown from its start may be the option
			if longOpt(a.text, long, min) && strings.HasPrefix(a.text, "--") || short != 0 && shortHas(a, short, withArg) ||
				!a.known() && (a.split || strings.HasPrefix(a.text, unk)) {
				return true
			}
		}
		return false
	}
	switch {
	case hgClient.destroys[canon]:
		c.flag(ReasonVCSHistory)
	case canon == "update" && has("--clean", 4, 'C', "rdt"):
		c.flag(ReasonVCSHistory) // uncommitted changes discarded
	case canon == "revert" && (has("--no-backup", 5, 'C', "rdIXnt") || prog == "sl" && has("--all", 4, 'a', "rdIXnt")):
		c.flag(ReasonVCSHistory)
	case canon == "shelve" && (has("--delete", 4, 'd', "mnXI") || has("--cleanup", 4, 0, "")):
		c.flag(ReasonVCSHistory)
	case canon == "push":
		// Mercurial's options are Python getopt's: any unambiguous prefix
		// of a long one (--f is --force: no other option of push starts
		// with f). Sapling's --delete deletes a remote bookmark, and
		// --non-forward-move moves one backwards.
		if has("--force", 3, 'f', "rBbe") || prog == "sl" && (has("--delete", 4, 'd', "rBbe") || has("--non-forward-move", 5, 0, "")) {
			c.flag(ReasonRemoteHistory)
		}
	}
	if canon == "push" || canon == "pull" || canon == "clone" || canon == "incoming" || canon == "outgoing" {
		// --ssh, -e and --remotecmd run a command, here for a local path.
		for i := 0; i < len(rest); i++ {
			a := rest[i]
			k, v, eq := strings.Cut(a.text, "=")
			switch {
			case longOpt(k, "--ssh", 4) || longOpt(k, "--remotecmd", 4):
				if !eq {
					v = nextArg(rest, &i).text
				}
				c.nested(v, nil, false)
			case isOption(a) && !strings.HasPrefix(k, "--"):
				// a cluster: the first option that takes a value ends it
				if j := strings.IndexAny(a.text[1:], "rBbe"); j >= 0 && a.text[1+j] == 'e' {
					if v := a.text[2+j:]; v != "" {
						c.nested(v, nil, false)
					} else {
						c.nested(nextArg(rest, &i).text, nil, false)
					}
				}
			}
		}
	}
	if !hgReads(canon, rest) {
		c.vcsWrite()
		c.vcsSet = c.vcsSet || canon == "config" // the configuration a later command reads
	}
}

// hgReads reports whether a Mercurial or Sapling command only reads the
// repository: a reading command, and bookmarks and branch without
// arguments, config reading one name or all (not --edit, nor Sapling's
// NAME VALUE or --delete), resolve --list, shelve --list,
// --patch or --stat, phase without a phase to set.
func hgReads(canon string, rest []field) bool {
	if !hgClient.reads[canon] {
		return false
	}
	any := func(pred func(field) bool) bool { return slices.ContainsFunc(rest, pred) }
	switch canon {
	case "bookmarks", "branch":
		return len(rest) == 0
	case "config":
		// Sapling's config [--local|--user] NAME VALUE sets a value and
		// --delete removes one; --edit opens an editor on a file.
		return len(operands(rest)) <= 1 && !any(func(a field) bool {
			return longOpt(a.text, "--edit", 3) || longOpt(a.text, "--delete", 4) || shortHas(a, 'e', "T") || shortHas(a, 'd', "T") || !a.known()
		})
	case "resolve":
		return any(func(a field) bool { return longOpt(a.text, "--list", 3) || shortHas(a, 'l', "tIX") })
	case "shelve":
		return any(func(a field) bool {
			return longOpt(a.text, "--list", 3) || longOpt(a.text, "--patch", 3) || longOpt(a.text, "--stat", 4) || shortHas(a, 'l', "mnIX") || shortHas(a, 'p', "mnIX")
		})
	case "phase":
		return !any(func(a field) bool {
			return longOpt(a.text, "--public", 3) || longOpt(a.text, "--draft", 3) || longOpt(a.text, "--secret", 3) ||
				longOpt(a.text, "--force", 3) || shortHas(a, 'p', "r") || shortHas(a, 'd', "r") || shortHas(a, 's', "r") || shortHas(a, 'f', "r") || !a.known()
		})
	}
	return true
}

// vcsWrite notes that a version control command other than git may write
// its metadata, when the sandbox holds it read-only (Place.GitReadOnly):
// the command then asks (ReasonVCSWrite, unless a stronger reason is
// found) and, once approved, runs with it writable.
func (c *checker) vcsWrite() {
	if c.gitReadOnly {
		c.vcsWrites = true
	}
}

// jjGlobalWithArg are jj's options that take a value, wherever they stand
// (jj accepts them after the subcommand too), with the command options
// whose value could be taken for a subcommand.
var jjGlobalWithArg = []string{"-R", "--repository", "--at-op", "--at-operation", "--config", "--config-toml",
	"--config-file", "--color", "-r", "-b", "--bookmark", "--branch", "--remote", "--change", "-c", "--revisions",
	"--named", "-m", "--message", "-d", "--destination", "-o", "--onto", "-A", "--insert-after", "-B",
	"--insert-before", "-s", "--source", "-f", "--from", "-t", "--to", "--into", "--tool", "-T", "--template"}

// jj checks a jj command.
func (c *checker) jj(args []field) { c.jj1(args, 0) }

func (c *checker) jj1(args []field, depth int) {
	dir := c.vcwd
	var cli []vcsSetting
	var files []string
	var ops []int // indexes of the words of the command
	iwc, help := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		k, v, eq := strings.Cut(t, "=")
		switch {
		case t == "--":
			for j := i + 1; j < len(args); j++ {
				ops = append(ops, j)
			}
			i = len(args)
		case !isOption(a):
			ops = append(ops, i)
		case t == "--ignore-working-copy":
			iwc = true
		case t == "-h" || t == "--help" || t == "-V" || t == "--version":
			help = true
		case slices.Contains(jjGlobalWithArg, k) && (eq || i+1 < len(args)):
			var val field
			if eq {
				val = field{text: v, glob: a.glob}
			} else {
				i++
				val = args[i]
			}
			switch k {
			case "-R", "--repository":
				dir = c.dirOf(dir, val)
			case "--at-op", "--at-operation":
				iwc = true
			case "--config", "--config-toml":
				if !c.jjOption(k, val, &cli) {
					return
				}
			case "--config-file":
				p := c.abs(val)
				if p == "" {
					c.flag(ReasonOpaque)
					return
				}
				files = append(files, p)
			}
		case strings.HasPrefix(t, "-R") && len(t) > 2:
			dir = c.dirOf(dir, lit(t[2:]))
		}
	}
	word := func(n int) field {
		if n < len(ops) {
			return args[ops[n]]
		}
		return field{}
	}
	if len(ops) == 0 {
		if help {
			return
		}
		// jj alone runs ui.default-command (log by default).
		conf := c.jjConfig(dir, cli, files)
		s, ok := conf.get("ui.default-command")
		switch {
		case conf.unsure:
			c.flag(ReasonOpaque)
		case ok && depth >= maxGitAliases:
			c.flag(ReasonTooDeep)
		case ok:
			c.jj1(append(append([]field(nil), s.words...), args...), depth+1)
		default:
			c.vcsWrite()
		}
		return
	}
	first := word(0)
	if !first.known() {
		c.flag(ReasonOpaque)
		return
	}
	if !jjBuiltins[first.text] {
		conf := c.jjConfig(dir, cli, files)
		s, ok := conf.get("aliases." + first.text)
		switch {
		case ok && depth >= maxGitAliases:
			c.flag(ReasonTooDeep)
		case ok:
			expanded := append(append(append([]field(nil), args[:ops[0]]...), s.words...), args[ops[0]+1:]...)
			c.jj1(expanded, depth+1)
		case conf.unsure:
			c.flag(ReasonOpaque) // an alias that could not be read
		default:
			c.vcsWrite() // jj fails: no such command
		}
		return
	}
	sub, second := first.text, word(1)
	switch {
	case sub == "git" && (!second.known() || second.text == "push") && !hasWord(args, "--dry-run"):
		// jj git push moves remote bookmarks wherever the local ones were
		// rewritten, and deletes the ones deleted locally (it never asks
		// for a force).
		c.flag(ReasonRemoteHistory)
		c.vcsWrite() // once approved, it records the push in .jj
		return
	case (sub == "util" || sub == "operation" || sub == "op") && !second.known():
		c.flag(ReasonOpaque)
		return
	case sub == "util" && second.text == "exec":
		// jj util exec [--] COMMAND ARGS runs a program.
		cmd := args[ops[1]+1:]
		if len(cmd) > 0 && cmd[0].text == "--" {
			cmd = cmd[1:]
		}
		c.runProgram(cmd, input{})
		return
	case sub == "util" && second.text == "gc", (sub == "operation" || sub == "op") && second.text == "abandon":
		c.flag(ReasonVCSHistory) // unreachable commits, or the operation log jj undoes with
		c.vcsWrite()
		return
	}
	if sub == "config" && (second.text == "set" || second.text == "unset" || second.text == "edit" || !second.known()) {
		c.vcsSet = true // the configuration a later command reads
	}
	if help || sub == "help" || sub == "version" || sub == "config" && (second.text == "get" || second.text == "list" || second.text == "path") ||
		sub == "util" && (second.text == "completion" || second.text == "config-schema" || second.text == "markdown-help") {
		return
	}
	if iwc && (jjReadsIWC[sub] || jjReadsIWC[sub+" "+second.text] || jjReadsIWC[sub+" "+second.text+" "+word(2).text]) {
		return
	}
	c.vcsWrite()
}

// jjProgramKeys are jj settings whose value is a program jj runs.
var jjProgramKeys = []string{"ui.pager", "ui.editor", "ui.diff-editor", "ui.merge-editor", "ui.diff-formatter",
	"ui.diff.tool", "merge-tools.", "fix.tools.", "signing.", "git.executable-path", "hooks."}

// jjOption checks one --config NAME=VALUE or --config-toml TOML; false
// when the check stops there. Aliases and ui.default-command join the
// configuration; a setting that names a program jj runs asks (its value
// is TOML, not read here as a command line).
func (c *checker) jjOption(opt string, v field, cli *[]vcsSetting) bool {
	if !v.known() {
		c.flag(ReasonOpaque)
		return false
	}
	doc := map[string]any{}
	if opt == "--config" {
		k, val, _ := strings.Cut(v.text, "=")
		k = strings.TrimSpace(k)
		if slices.ContainsFunc(jjProgramKeys, func(p string) bool { return k == p || strings.HasPrefix(k, p) || strings.HasPrefix(p, k+".") }) {
			c.flag(ReasonOpaque)
			return false
		}
		if !strings.HasPrefix(k, "aliases") && k != "ui.default-command" && k != "ui" && k != "--scope" {
			return true
		}
		var one map[string]any
		if err := toml.Unmarshal([]byte("v = "+val), &one); err != nil {
			one = map[string]any{"v": val} // jj reads a value that is not TOML as a string
		}
		// Rebuild the table the dotted key names.
		parts := strings.Split(k, ".")
		t := doc
		for _, p := range parts[:len(parts)-1] {
			n := map[string]any{}
			t[strings.Trim(p, `"`)] = n
			t = n
		}
		t[strings.Trim(parts[len(parts)-1], `"`)] = one["v"]
	} else if err := toml.Unmarshal([]byte(v.text), &doc); err != nil {
		c.flag(ReasonOpaque)
		return false
	} else if jjNamesProgram(doc, "") {
		c.flag(ReasonOpaque)
		return false
	}
	r := &vcsReader{c: c}
	r.jjTable(doc, 0)
	if r.unsure {
		c.flag(ReasonOpaque)
		return false
	}
	*cli = append(*cli, r.settings...)
	return true
}

// jjNamesProgram reports whether a TOML table (at prefix) sets one of
// jjProgramKeys.
func jjNamesProgram(t map[string]any, prefix string) bool {
	for k, v := range t {
		key := prefix + k
		if slices.ContainsFunc(jjProgramKeys, func(p string) bool { return key == p || strings.HasPrefix(key, p) }) {
			return true
		}
		if sub, ok := v.(map[string]any); ok && jjNamesProgram(sub, key+".") {
			return true
		}
		if list, ok := v.([]any); ok && k == "--scope" {
			for _, s := range list {
				if sub, ok := s.(map[string]any); ok && jjNamesProgram(sub, prefix) {
					return true
				}
			}
		}
	}
	return false
}

// vcsOther checks Pijul, Darcs, Bazaar/Breezy and Fossil: a command that
// destroys history or uncommitted work asks; bzr push --overwrite
// rewrites the remote branch; any command outside the reading ones
// writes the metadata.
func (c *checker) vcsOther(prog string, rest []field) {
	client := vcsOthers[prog]
	if prog == "brz" {
		client = vcsOthers["bzr"]
	}
	ops := operands(rest)
	if len(ops) == 0 {
		return // help or the version
	}
	if !ops[0].known() {
		c.flag(ReasonOpaque)
		return
	}
	cmds, _ := client.resolve(ops[0].text, nil)
	if len(cmds) == 0 {
		c.vcsWrite()
		return
	}
	for _, canon := range cmds {
		switch {
		case client.destroys[canon]:
			c.flag(ReasonVCSHistory)
		case (prog == "bzr" || prog == "brz") && canon == "push" && slices.ContainsFunc(rest, func(a field) bool {
			return longOpt(a.text, "--overwrite", 6) || !a.known() && a.split
		}):
			c.flag(ReasonRemoteHistory)
		case prog == "pijul" && canon == "channel" && len(ops) > 1 && (ops[1].text == "delete" || !ops[1].known()):
			c.flag(ReasonVCSHistory)
		}
		if !client.reads[canon] {
			c.vcsWrite()
		}
	}
}
