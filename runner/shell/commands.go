package shell

import (
	"cmp"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// run checks one simple command: its arguments after expansion.
func (c *checker) run(args []field, in input) {
	if c.why != "" || len(args) == 0 {
		return
	}
	if !c.step() {
		c.flag(ReasonTooDeep)
		return
	}
	name := args[0]
	if !name.known() {
		if name.split { // $CMD: the whole command may be anything
			c.flag(ReasonOpaque)
			return
		}
		// "$X" args: read as each command the rules know.
		for _, n := range []string{"rm", "find", "chmod", "sh", "eval", "python", "perl", "node", "ruby", "git", "hg", "jj", "xargs", "env"} {
			c.named(n, args[1:], in)
		}
		return
	}
	if fn, ok := c.funcs[name.text]; ok {
		defer c.setStdin(in)()
		c.call(fn, args[1:])
		return
	}
	if v, ok := c.aliases[name.text]; ok && !c.expanding[name.text] {
		defer c.setStdin(in)()
		c.expanding[name.text] = true
		c.scriptWithArgs(v, args[1:])
		delete(c.expanding, name.text)
		return
	}
	c.named(filepath.Base(name.text), args[1:], in)
}

// runProgram checks a command a wrapper runs (command, exec, env, sudo,
// xargs...): a program, never the shell's function or alias of that name
// (command git inside a function named git runs git).
func (c *checker) runProgram(args []field, in input) {
	if len(args) == 0 || !args[0].known() {
		c.run(args, in)
		return
	}
	if c.why != "" {
		return
	}
	if !c.step() {
		c.flag(ReasonTooDeep)
		return
	}
	c.named(filepath.Base(args[0].text), args[1:], in)
}

// named checks the command name (a base name) with its arguments.
func (c *checker) named(name string, rest []field, in input) {
	c.nameArgs(name, rest)
	if strings.HasPrefix(name, "mkfs.") {
		name = "mkfs"
	}
	if interpreter(name) != "" {
		c.interp(interpreter(name), rest, in)
		return
	}
	if opts, ok := wrappers[name]; ok {
		c.wrapper(name, opts, rest, in)
		return
	}
	// git-SUB, as git installs its commands in its exec path
	// (/usr/lib/git-core/git-push) and as git runs an external one
	// (git-lfs), is git SUB.
	if sub, ok := strings.CutPrefix(name, "git-"); ok {
		c.git(append([]field{lit(sub)}, rest...))
		return
	}
	switch name {
	case "cd", "pushd":
		c.cd(rest)
	case "popd":
		c.vcwd = ""
	case "alias":
		for _, a := range rest {
			if k, v, ok := strings.Cut(a.text, "="); ok && a.known() {
				c.aliases[k] = v
			} else if ok {
				c.aliases[k] = unk
			}
		}
	case "rm":
		c.rm(rest)
	case "rimraf": // always recursive
		c.rm(append([]field{lit("-r")}, rest...))
	case "ln":
		c.linked = true
		c.wroteAll(rest)
	case "tee", "cp", "install", "truncate":
		c.wroteAll(rest)
	case "pwsh", "powershell", "powershell.exe", "pwsh.exe":
		c.pwsh(rest, in)
	case "man": // man -P PAGER, --pager=PAGER runs it with the shell
		skipOpts(rest, "PMLmSsCEKp", func(opt string, arg field) {
			if opt == "P" || longOpt(opt, "--pager", 4) {
				c.nested(arg.text, nil, false)
			}
		})
	case "make", "gmake": // a makefile from stdin or --eval: its recipes are shell commands
		if makeReadsScript(rest) {
			c.flag(ReasonOpaque)
			return
		}
	case "parallel", "sem": // sem is parallel --semaphore
		c.parallel(rest)
	case "sg": // sg GROUP [-c] COMMAND
		if ops := operands(rest); len(ops) > 1 {
			cmd := restAfter(rest, ops[0])
			if len(cmd) > 1 && cmd[0].text == "-c" {
				cmd = cmd[1:]
			}
			c.nested(joinText(cmd), nil, false)
		}
	case "ip":
		c.ip(rest)
	case "perf": // perf stat|record|trace [options] COMMAND...
		if ops := operands(rest); len(ops) > 1 && (ops[0].text == "stat" || ops[0].text == "record" || ops[0].text == "trace") {
			c.runProgram(skipOpts(restAfter(rest, ops[0]), "eoptpCGIrcFjmM", nil), input{})
		}
	case "hyperfine":
		c.hyperfine(rest)
	case "entr": // entr [-s] COMMAND ARGS...: its options take no value
		c.watched(skipOpts(rest, "", nil))
	case "watchexec": // watchexec [options] [--] COMMAND...
		for i := 0; i < len(rest) && c.why == ""; i++ {
			t := rest[i].text
			switch {
			case t == "--":
				c.watched(rest[i+1:])
				return
			case !isOption(rest[i]):
				c.watched(rest[i:])
				return
			case strings.HasPrefix(t, "--") && !strings.Contains(t, "=") && i+1 < len(rest):
				// A long option that may take the next word (--exts rs,
				// --watch DIR) or not (--restart): the command may start
				// at that word or after it.
				c.watched(rest[i+1:])
				i++
			case !strings.HasPrefix(t, "--") && strings.IndexAny(t[1:], "ewfisoEd") == len(t)-2:
				i++ // a short option's value: -e rs
			}
		}
	case "rsync":
		c.rsync(rest)
	case "cmake":
		c.cmake(rest)
	case "mv":
		c.mv(rest)
		c.wroteAll(rest)
	case "tar", "bsdtar", "gtar":
		c.tar(rest)
	case "source", ".":
		if ops := operands(rest); len(ops) > 0 {
			c.scriptFile(ops[0], in, func(src string) { c.nested(src, nil, true) })
		}
	case "awk", "gawk", "mawk", "nawk", "busybox-awk":
		c.awk(rest)
	case "find":
		c.find(rest)
	case "chmod", "chown", "chgrp":
		c.perm(rest)
	case "git":
		c.git(rest)
	case "hub", "gh", "glab":
		c.forge(name, rest)
	case "hg", "chg", "sl":
		c.hg(name, rest)
	case "jj":
		c.jj(rest)
	case "pijul", "darcs", "bzr", "brz", "fossil":
		c.vcsOther(name, rest)
	case "dd", "shred", "mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "newfs", "blkdiscard", "wipefs", "diskutil":
		c.disk(name, rest)
	case "kill":
		c.kill(rest)
	case "shutdown", "reboot", "halt", "poweroff":
		c.flag(ReasonShutdown)
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish":
		c.shell(rest, in)
	case "eval":
		c.nested(joinText(rest), nil, true)
	case "trap": // trap 'handler' SIGNALS: the handler runs later
		if ops := operands(rest); len(ops) >= 2 {
			c.nested(ops[0].text, nil, true)
		}
	case "watch": // watch joins its arguments and runs them with sh -c
		c.nested(joinText(skipOpts(rest, "n", nil)), nil, true)
	case "ssh": // ssh HOST COMMAND...: the host may be this machine
		if ops := skipOpts(rest, "BbcDEeFIiJLlmOopQRSWw", nil); len(ops) > 1 {
			c.subshell(func() {
				c.vcwd = c.vars["HOME"] // it runs in the login's home; "" when unknown
				c.nested(joinText(ops[1:]), nil, false)
			})
		}
	case "tmux", "screen", "at", "batch", "crontab":
		if name == "tmux" { // tmux -c COMMAND runs it with the shell, here (tmux as a login shell)
			skipOpts(rest, "cfLST", func(opt string, arg field) {
				if opt == "c" {
					c.nested(arg.text, nil, false)
				}
			})
		}
		if handsOff(name, rest) {
			c.flag(ReasonOpaque)
		}
	case "su", "runuser", "script":
		c.su(name, rest)
	}
}

// hyperfineShortArg are hyperfine's short options that take a value (the
// rest of the cluster, past an optional "=", or the next word); -L takes
// two words (NAME VALUES), -P three (NAME MIN MAX).
const hyperfineShortArg = "wmMrspcPDLSun"

// maxParamRuns bounds the commands a hyperfine parameter list makes;
// past it the check asks.
const maxParamRuns = 64

// hyperfine checks the shell commands hyperfine runs: each operand, the
// values of -p/-s/-c (--prepare, --setup, --cleanup, --conclude) and of
// -S/--shell (a program run with -c COMMAND), short options in any
// cluster; a command's {NAME} of a -L/--parameter-list takes each of its
// values in turn, one of -P/--parameter-scan a number.
func (c *checker) hyperfine(rest []field) {
	var cmds []string
	params := map[string][]string{}
	for i := 0; i < len(rest); i++ {
		next := func() string {
			if i+1 < len(rest) {
				i++
				return rest[i].text
			}
			return ""
		}
		t := rest[i].text
		switch {
		case t == "--":
			for _, a := range rest[i+1:] {
				cmds = append(cmds, a.text)
			}
			i = len(rest)
		case strings.HasPrefix(t, "--") && isOption(rest[i]):
			_, v, eq := strings.Cut(t, "=")
			value := func() string {
				if eq {
					return v
				}
				return next()
			}
			switch {
			case longOpt(t, "--prepare", 4), longOpt(t, "--setup", 4), longOpt(t, "--cleanup", 4), longOpt(t, "--conclude", 5), longOpt(t, "--shell", 4):
				cmds = append(cmds, value())
			case longOpt(t, "--parameter-list", 12):
				name := value()
				params[name] = append(params[name], strings.Split(next(), ",")...)
			case longOpt(t, "--parameter-scan", 12):
				name := value()
				params[name] = append(params[name], "0")
				next()
				next()
			}
		case isOption(rest[i]):
			k := strings.IndexAny(t[1:], hyperfineShortArg) + 1
			if k == 0 {
				continue
			}
			v := strings.TrimPrefix(t[k+1:], "=")
			if v == "" {
				v = next()
			}
			switch t[k] {
			case 'p', 's', 'c', 'S':
				cmds = append(cmds, v)
			case 'L':
				params[v] = append(params[v], strings.Split(next(), ",")...)
			case 'P':
				params[v] = append(params[v], "0")
				next()
				next()
			}
		default:
			cmds = append(cmds, t)
		}
	}
	for name := range params {
		if strings.Contains(name, unk) {
			c.flag(ReasonOpaque) // a name not known: any {NAME} may take the values
			return
		}
	}
	for _, cmd := range cmds {
		runs := []string{cmd}
		for name, vals := range params {
			if !strings.Contains(cmd, "{"+name+"}") {
				continue
			}
			var out []string
			for _, r := range runs {
				for _, v := range vals {
					out = append(out, strings.ReplaceAll(r, "{"+name+"}", v))
				}
			}
			if runs = out; len(runs) > maxParamRuns {
				c.flag(ReasonOpaque)
				return
			}
		}
		for _, r := range runs {
			c.nested(r, nil, false)
		}
	}
}

// watched checks the command entr or watchexec runs: one word is a
// shell command, more a program and its arguments.
func (c *checker) watched(cmd []field) {
	if len(cmd) == 1 {
		c.nested(cmd[0].text, nil, false)
	} else {
		c.runProgram(cmd, input{})
	}
}

// pwsh checks PowerShell: a command it is given (-Command,
// -EncodedCommand, -CommandWithArgs: any prefix and case, after -, -- or
// /) or reads from stdin (a pipe or here-document, without a script file)
// is a PowerShell script, not read here: it asks. A script file is
// not read, as for the shells. The value of -WorkingDirectory,
// -OutputFormat, -InputFormat, -WindowStyle and -SettingsFile (options
// starting w, o, i, s) is not a script file.
func (c *checker) pwsh(rest []field, in input) {
	file := false
	for i := 0; i < len(rest); i++ {
		t := strings.ToLower(rest[i].text)
		opt := strings.TrimLeft(t, "-/")
		switch {
		case !rest[i].known(), opt != t && (strings.HasPrefix(opt, "c") || strings.HasPrefix(opt, "e")):
			c.flag(ReasonOpaque)
			return
		case opt != t && strings.HasPrefix(opt, "f"): // -File
			file = true
		case opt != t && strings.ContainsAny(opt[:min(1, len(opt))], "wois") && !strings.ContainsAny(opt, ":="):
			i++ // its value
		case opt == t:
			file = true
		}
	}
	if (in.given || in.pipe) && !file {
		c.flag(ReasonOpaque)
	}
}

// ip checks ip netns exec NAME COMMAND..., ip -all netns exec
// COMMAND... and ip vrf exec NAME COMMAND..., in the abbreviations ip
// accepts for its options, objects and commands (ip -a net e CMD); a
// batch of commands (-b, -batch FILE) asks.
func (c *checker) ip(rest []field) {
	all := false
	i := 0
	for ; i < len(rest) && (isOption(rest[i]) || !rest[i].known()); i++ {
		t := strings.TrimLeft(rest[i].text, "-") // ip takes --opt too
		switch {
		case !rest[i].known(), longOpt("-"+t, "-batch", 2):
			c.flag(ReasonOpaque)
			return
		case longOpt("-"+t, "-all", 2):
			all = true
		case longOpt("-"+t, "-netns", 2), longOpt("-"+t, "-family", 2), longOpt("-"+t, "-rcvbuf", 3), longOpt("-"+t, "-loops", 2):
			i++ // its value
		}
	}
	ops := rest[min(i, len(rest)):]
	if len(ops) < 2 || !(longOpt(ops[0].text, "netns", 3) || longOpt(ops[0].text, "vrf", 1)) || !longOpt(ops[1].text, "exec", 1) {
		return
	}
	cmd := ops[2:]
	if !all && len(cmd) > 0 {
		cmd = cmd[1:] // NAME
	}
	c.runProgram(cmd, input{})
}

// makeShortArg are GNU make's short options whose value is the rest of
// the cluster or the next word (-j, -l and -O take only an attached one).
const makeShortArg = "CfIoWEjlO"

// makeReadsScript reports whether make's options give it a makefile from
// stdin or text to evaluate as one: --eval, -E, -f - and --file=- (long
// options in any abbreviation, short ones in any cluster: -sf -, -sE).
func makeReadsScript(rest []field) bool {
	for i, a := range rest {
		t := a.text
		switch {
		case t == "--":
			return false
		case !isOption(a):
		case strings.HasPrefix(t, "--"):
			file := longOpt(t, "--file", 4) || longOpt(t, "--makefile", 4)
			_, v, eq := strings.Cut(t, "=")
			if longOpt(t, "--eval", 4) || file && (eq && v == "-" || !eq && i+1 < len(rest) && rest[i+1].text == "-") {
				return true
			}
		default:
			k := strings.IndexAny(t[1:], makeShortArg)
			if k < 0 {
				continue
			}
			opt, v := t[k+1], t[k+2:]
			if opt == 'E' || opt == 'f' && (v == "-" || v == "" && i+1 < len(rest) && rest[i+1].text == "-") {
				return true
			}
		}
	}
	return false
}

// parallelPlain are GNU parallel's long options that change neither the
// command nor which arguments each run gets; parallelPlainArg those of
// them that take the next word (or "=VALUE").
var (
	parallelPlain = []string{"--keep-order", "--gnu", "--verbose", "--bar", "--progress", "--eta",
		"--ungroup", "--line-buffer", "--tag", "--dry-run", "--will-cite", "--no-notice", "--group"}
	parallelPlainArg = []string{"--jobs", "--max-procs", "--joblog", "--halt", "--timeout", "--retries",
		"--delay", "--nice", "--load", "--memfree", "--tmpdir"}
)

// parallel checks GNU parallel: the words after its options and before
// ::: (or ::::) are a command line it runs with the shell once per
// combination of one argument from each ::: group, the arguments put in
// for its replacement strings ({} all of them, {N} the Nth; the others,
// {.} {/} {//} {#}..., unknown values) or, without any, appended. The
// arguments are unknown when read from stdin or a file (::::), or when the
// combinations pass maxParamRuns. Another option (-n, -X, --colsep, -I,
// --rpl, -a...) may change what a run gets, or run Perl ({= =}): it
// asks, as does {= in the command.
func (c *checker) parallel(rest []field) {
	i := 0
	for ; i < len(rest) && isOption(rest[i]); i++ {
		t := rest[i].text
		name, _, eq := strings.Cut(t, "=")
		switch {
		case slices.Contains(parallelPlain, t):
		case slices.Contains(parallelPlainArg, name):
			if !eq {
				i++
			}
		case !strings.HasPrefix(t, "--") && strings.Trim(t[1:], "kuvqtg") == "":
		case !strings.HasPrefix(t, "--") && strings.IndexAny(strings.TrimLeft(t[1:], "kuvqtg"), "jP") == 0:
			if len(strings.TrimLeft(t[1:], "kuvqtg")) == 1 {
				i++ // -j N
			}
		default:
			c.flag(ReasonOpaque)
			return
		}
	}
	if i < len(rest) && rest[i].text == "--" {
		i++
	}
	var cmd []field
	var groups [][]field
	known := true
	for _, a := range rest[i:] {
		switch {
		case strings.HasPrefix(a.text, ":::") && a.known():
			groups = append(groups, nil)
			known = known && !strings.HasPrefix(a.text, "::::")
		case groups == nil:
			cmd = append(cmd, a)
		default:
			known = known && a.known()
			groups[len(groups)-1] = append(groups[len(groups)-1], a)
		}
	}
	src := joinText(cmd)
	if len(cmd) == 0 || strings.Contains(src, "{=") {
		c.flag(ReasonOpaque) // the commands are read from stdin, or Perl code
		return
	}
	all := `"$@"` // {}: the run's arguments, one word each
	if len(groups) <= 1 {
		all = `"$1"`
	}
	if !parallelRepl.MatchString(src) {
		src += " " + all
	}
	src = parallelRepl.ReplaceAllStringFunc(src, func(r string) string {
		switch n := r[1 : len(r)-1]; {
		case n == "":
			return all
		case strings.Trim(n, "0123456789") == "":
			return `"${` + n + `}"`
		}
		return `"$(:)"` // a value the check does not compute
	})
	for _, job := range parallelJobs(groups, known) {
		c.nested(src, job, false)
	}
}

// parallelJobs are the arguments of each run of GNU parallel: one from
// each group, every combination; one unknown word per group (at least
// one) when an argument is not known, or past maxParamRuns runs.
func parallelJobs(groups [][]field, known bool) [][]field {
	jobs := [][]field{nil}
	for _, g := range groups {
		var next [][]field
		for _, j := range jobs {
			for _, a := range g {
				next = append(next, append(slices.Clone(j), a))
			}
		}
		if jobs = next; len(jobs) == 0 || len(jobs) > maxParamRuns {
			known = false
			break
		}
	}
	if known && len(groups) > 0 {
		return jobs
	}
	unknownJob := []field{{text: unk, split: true}}
	for range max(len(groups), 1) - 1 {
		unknownJob = append(unknownJob, field{text: unk, split: true})
	}
	return [][]field{unknownJob}
}

// parallelRepl matches GNU parallel's replacement strings.
var parallelRepl = regexp.MustCompile(`\{[^{}\s]*\}`)

// wroteAll notes every operand of a command that writes files (tee, cp,
// mv, ln, install, truncate) as a path it may write: sources included,
// which only asks more.
func (c *checker) wroteAll(rest []field) {
	for _, a := range operands(rest) {
		c.wrote(a)
	}
}

// suOpts are, per command, the short options other than -c that take an
// argument, and the long options that do (matched in any abbreviation).
var suOpts = map[string]struct {
	short string
	long  []string
}{
	"su":      {"gGsw", []string{"--group", "--supp-group", "--shell", "--whitelist-environment"}},
	"runuser": {"gGswu", []string{"--group", "--supp-group", "--shell", "--whitelist-environment", "--user"}},
	"script":  {"EIOBTmo", []string{"--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format", "--output-limit"}},
}

// su checks su, runuser and script: the command of -c (alone, ending a
// cluster such as -lc or -qc, or with its text attached) or of --command
// (and su's --session-command) in any abbreviation, wherever it stands:
// getopt permutes, and su hands the words after the user to the shell,
// which reads -c too. runuser -u USER runs the words from its first
// operand as a command. An unknown word where an option
// may stand may be -c: it asks.
func (c *checker) su(name string, rest []field) {
	opts := suOpts[name]
	runs := false // runuser -u
	var ops []field
	for i := 0; i < len(rest); i++ {
		a, t := rest[i], rest[i].text
		next := func() field { return nextArg(rest, &i) }
		switch {
		case !a.known() && strings.HasPrefix(t, unk):
			c.flag(ReasonOpaque)
			return
		case strings.HasPrefix(t, "--"): // "--" itself: what follows is read the same
			k, v, eq := strings.Cut(t, "=")
			switch {
			case longOpt(k, "--command", 3) || name != "script" && longOpt(k, "--session-command", 4):
				if !eq {
					v = next().text
				}
				c.nested(v, nil, false)
			case slices.ContainsFunc(opts.long, func(o string) bool { return longOpt(k, o, 4) }):
				runs = runs || name == "runuser" && longOpt(k, "--user", 3)
				if !eq {
					next()
				}
			}
		case isOption(a):
			for k := 1; k < len(t); k++ {
				o := t[k]
				if o != 'c' && strings.IndexByte(opts.short, o) < 0 {
					continue
				}
				arg := lit(t[k+1:])
				if k+1 == len(t) {
					arg = next()
				}
				if o == 'c' {
					c.nested(arg.text, nil, false)
				}
				runs = runs || name == "runuser" && o == 'u'
				break
			}
		case runs: // runuser stops at the first operand: the command
			ops = append(ops, rest[i:]...)
			i = len(rest)
		}
	}
	if runs {
		c.runProgram(ops, input{})
	}
}

// nested checks a script a command runs; unknown text asks. keep runs it
// in this shell (eval: directory changes and parameters carry over).
func (c *checker) nested(src string, params []field, keep bool) {
	if strings.Contains(src, unk) {
		c.flag(ReasonOpaque)
		return
	}
	c.nest(func() {
		if keep {
			c.script(src, nil, true)
			return
		}
		c.subshell(func() { c.script(src, params, false) })
	})
}

func joinText(fs []field) string {
	texts := make([]string, len(fs))
	for i, f := range fs {
		texts[i] = f.text
	}
	return strings.Join(texts, " ")
}

// wrappers run their operands as a command. The value lists the short
// options that take an argument.
var wrappers = map[string]string{
	"sudo": "ugCDprtTUh", "doas": "uC", "env": "uCS", "nice": "n", "nohup": "", "time": "fo",
	"timeout": "sk", "command": "", "exec": "a", "builtin": "", "xargs": "IEnPsLad",
	"stdbuf": "ioe", "ionice": "cnpPu", "busybox": "", "toybox": "", "setsid": "", "chrt": "p",
	"taskset": "", "nsenter": "tSG", "unshare": "SGRw", "flock": "wEc", "strace": "eoOpPsSuIbXU",
	"ltrace": "eoOpsSuLnaAx", "fakeroot": "il", "systemd-run": "pEuMH", "caffeinate": "tw",
	"unbuffer": "", "chronic": "", "catchsegv": "", "numactl": "mNCPlip", "firejail": "",
	"npx": "pc", "bunx": "p", "pnpx": "p", "pkexec": "",
	// programs that run their operands as a command, unchanged
	"valgrind": "", "setpriv": "", "eatmydata": "", "xvfb-run": "efnpsw", "dbus-run-session": "",
	"proxychains": "f", "proxychains4": "f", "torsocks": "uapP", "tsocks": "", "cpulimit": "lpe",
	"trickle": "udwtlLn", "chpst": "ugUGenlmdofpcrt", "chroot": "", "faketime": "",
}

// optionalArg are the wrappers' short options whose argument is optional
// (getopt's "o::"): it is only ever attached, the rest of the cluster, and
// the next word is never theirs.
var optionalArg = map[string]string{
	"nsenter": "muinpCTUrwW", "xargs": "eil",
}

// longWithArg are wrapper long options that take a separate argument.
var longWithArg = map[string]bool{
	"--user": true, "--group": true, "--chdir": true, "--prompt": true, "--role": true,
	"--type": true, "--other-user": true, "--close-from": true, "--host": true, "--unset": true,
	"--signal": true, "--kill-after": true, "--adjustment": true, "--class": true,
	"--classdata": true, "--max-args": true, "--max-procs": true, "--max-lines": true,
	"--delimiter": true, "--arg-file": true, "--input": true, "--output": true, "--error": true,
	"--property": true, "--interval": true, "--working-directory": true, "--package": true, "--call": true, "--setenv": true, "--uid": true, "--gid": true, "--wait": true,
	// systemd-run
	"--unit": true, "--description": true, "--slice": true, "--machine": true, "--nice": true,
	"--service-type": true, "--timer-property": true, "--path-property": true,
	"--socket-property": true, "--on-active": true, "--on-boot": true, "--on-startup": true,
	"--on-unit-active": true, "--on-unit-inactive": true, "--on-calendar": true,
	// sudo, flock, nsenter and unshare, numactl, ionice, fakeroot
	"--chroot": true, "--command-timeout": true, "--login-class": true, "--timeout": true,
	"--conflict-exit-code": true, "--target": true, "--setuid": true, "--setgid": true, "--wd": true,
	"--root": true, "--propagation": true, "--setgroups": true, "--map-user": true, "--map-group": true,
	"--map-users": true, "--map-groups": true, "--monotonic": true, "--boottime": true,
	"--interleave": true, "--preferred": true, "--membind": true, "--cpunodebind": true,
	"--physcpubind": true, "--pid": true, "--pgid": true, "--lib": true, "--faked": true,
	// setpriv, chroot, xvfb-run, cpulimit, dbus-run-session
	"--reuid": true, "--regid": true, "--ruid": true, "--euid": true, "--rgid": true, "--egid": true,
	"--groups": true, "--inh-caps": true, "--ambient-caps": true, "--bounding-set": true,
	"--securebits": true, "--pdeathsig": true, "--selinux-label": true, "--apparmor-profile": true,
	"--userspec": true, "--server-args": true, "--auth-file": true, "--error-file": true,
	"--limit": true, "--config-file": true, "--dbus-daemon": true,
}

// longNoArg are long options that take no separate argument for one
// wrapper (none, or one only after "=") although longWithArg lists them
// (for sudo and flock they take one): read as taking one, they would
// swallow the command name.
var longNoArg = map[string][]string{
	"systemd-run": {"--user", "--wait"},
	"setsid":      {"--wait"},
	"unshare":     {"--user"},
	"nsenter":     {"--user", "--wd", "--root"},
	"xargs":       {"--max-lines", "--replace"},
}

// longArgNames are the long options that take a separate argument for
// some wrapper: longWithArg's, and those a wrapper's rule reads.
var longArgNames = sync.OnceValue(func() []string {
	names := []string{"--split-string", "--replace", "--command"}
	for k := range longWithArg {
		names = append(names, k)
	}
	return names
})

// longTakesArg reports whether the long option k (getopt_long accepts any
// unambiguous prefix) takes the next word as its argument for a wrapper
// whose no-argument long options include noArg. exact is false when k
// only abbreviates an option that takes one: which option it stands for
// depends on the program (sudo --a is --askpass, no argument), so the
// caller reads the line both ways.
func longTakesArg(k string, noArg []string) (takes, exact bool) {
	if slices.Contains(noArg, k) {
		return false, true
	}
	if longWithArg[k] || slices.Contains(longArgNames()[:3], k) {
		return true, true
	}
	if slices.ContainsFunc(longArgNames(), func(o string) bool { return longOpt(k, o, 3) }) {
		return true, false
	}
	return false, true
}

func (c *checker) wrapper(name, withArg string, rest []field, in input) {
	var split []field // env -S STRING
	var replace string
	chdir, lookup := false, false
	dir := c.vcwd
	// An abbreviated long option that may or may not take the next word:
	// the line is also read without it (its argument, if any, then reads
	// as the command).
	for i, a := range rest {
		if a.text == "--" {
			break
		}
		k, _, eq := strings.Cut(a.text, "=")
		if takes, exact := longTakesArg(k, longNoArg[name]); strings.HasPrefix(k, "--") && !eq && takes && !exact {
			c.nest(func() { c.wrapper(name, withArg, slices.Delete(slices.Clone(rest), i, i+1), in) })
			break
		}
	}
	rest = skipOptions(rest, withArg, optionalArg[name], longNoArg[name], func(opt string, arg field) {
		switch {
		case name == "env" && (opt == "S" || longOpt(opt, "--split-string", 3)):
			split = append(split, arg)
		case name == "xargs" && opt == "I":
			replace = arg.text
		case name == "xargs" && (opt == "i" || longOpt(opt, "--replace", 3)):
			// -i[R], --replace[=R]: R, or {} without one
			replace = cmp.Or(arg.text, "{}")
		case (name == "flock" || name == "npx") && (opt == "c" || longOpt(opt, "--command", 3) || longOpt(opt, "--call", 4)):
			c.nested(arg.text, nil, false)
		case name == "command" && (opt == "v" || opt == "V"):
			lookup = true
		case name == "nsenter" && (opt == "w" || longOpt(opt, "--wd", 4)):
			// -w[DIR]: without an attached directory, the target's own
			chdir, dir = true, ""
			if arg.text != "" {
				dir = c.dirOf(c.vcwd, arg)
			}
		case (name == "env" && opt == "C") || (name == "sudo" && opt == "D") || longOpt(opt, "--chdir", 4) || longOpt(opt, "--working-directory", 3) || (name == "unshare" && (opt == "w" || longOpt(opt, "--wd", 4))):
			chdir, dir = true, c.dirOf(dir, arg)
		}
	})
	if lookup {
		return // command -v only looks up
	}
	switch name {
	case "timeout", "chrt", "taskset", "chroot", "faketime": // NEWROOT, TIMESTAMP
		if len(rest) > 0 {
			rest = rest[1:] // the duration, priority or mask
		}
	case "flock":
		if len(rest) > 0 {
			rest = rest[1:] // the lock file
		}
		if len(rest) > 0 && (rest[0].text == "-c" || rest[0].text == "--command") { // flock FILE -c COMMAND
			if len(rest) > 1 {
				c.nested(rest[1].text, nil, false)
			}
			return
		}
	case "xargs": // the arguments read from stdin are unknown
		for i, a := range rest {
			if replace != "" && strings.Contains(a.text, replace) {
				rest[i] = unknown
			}
		}
		rest = append(rest, field{text: unk, split: true})
		in = input{}
	case "env":
		if len(rest) > 0 && rest[0].text == "-" { // env - COMMAND: -i
			rest = rest[1:]
		}
		for len(rest) > 0 && strings.Contains(rest[0].text, "=") && !strings.HasPrefix(rest[0].text, "=") {
			k, v, _ := strings.Cut(rest[0].text, "=")
			c.assign(k, v) // the command's environment, for arithmetic (arith.go)
			c.envVar(k, v, !strings.Contains(v, unk))
			rest = rest[1:] // NAME=value
		}
	}
	if chdir { // env -C DIR, sudo -D DIR: the command runs there
		saved := c.vcwd
		c.vcwd = dir
		defer func() { c.vcwd = saved }()
	}
	for _, s := range split {
		c.nest(func() {
			if s.known() {
				c.scriptWithArgs(s.text, rest)
			} else {
				c.flag(ReasonOpaque)
			}
		})
	}
	if len(split) == 0 {
		c.runProgram(rest, in)
	}
}

// skipOpts drops the leading options of a wrapper (up to the first operand
// or "--"), calling seen (when not nil) with each option and its argument.
// withArg lists the short options that take an argument.
func skipOpts(args []field, withArg string, seen func(opt string, arg field)) []field {
	return skipOptions(args, withArg, "", nil, seen)
}

// skipOptions is skipOpts where the short options optArg take only an
// attached argument and the long options noArg take no separate one.
func skipOptions(args []field, withArg, optArg string, noArg []string, seen func(opt string, arg field)) []field {
	note := func(opt string, arg field) {
		if seen != nil {
			seen(opt, arg)
		}
	}
	for len(args) > 0 {
		t := args[0].text
		if t == "--" {
			return args[1:]
		}
		if !args[0].known() || len(t) < 2 || t[0] != '-' {
			return args
		}
		args = args[1:]
		if strings.HasPrefix(t, "--") {
			k, v, eq := strings.Cut(t, "=")
			switch takes, _ := longTakesArg(k, noArg); {
			case eq:
				note(k, lit(v))
			case takes:
				if len(args) > 0 {
					note(k, args[0])
					args = args[1:]
				}
			default:
				note(k, field{})
			}
			continue
		}
		// A cluster: an option taking an argument takes the rest of the
		// cluster, or the next word when it ends the cluster.
		for k := 1; k < len(t); k++ {
			opt := t[k : k+1]
			if strings.Contains(optArg, opt) {
				note(opt, lit(t[k+1:]))
				break
			}
			if !strings.Contains(withArg, opt) {
				note(opt, field{})
				continue
			}
			switch {
			case k+1 < len(t):
				note(opt, lit(t[k+1:]))
			case len(args) > 0:
				note(opt, args[0])
				args = args[1:]
			}
			break
		}
	}
	return args
}

// nextArg is an option's argument given as the next word: args[*i+1],
// moving *i onto it, or nothing at the end.
func nextArg(args []field, i *int) field {
	if *i+1 < len(args) {
		*i++
		return args[*i]
	}
	return field{}
}

// operands returns the non-option words (all words after "--").
func operands(args []field) []field {
	var out []field
	opts := true
	for _, a := range args {
		switch {
		case opts && a.text == "--":
			opts = false
		case opts && isOption(a):
		default:
			out = append(out, a)
		}
	}
	return out
}

// isOption reports whether a known field is an option (not "-" or "--").
func isOption(f field) bool {
	return f.known() && len(f.text) > 1 && f.text[0] == '-' && f.text != "--"
}

// shortFlag reports whether f is a cluster of short options holding o.
func shortFlag(f field, o byte) bool {
	return isOption(f) && f.text[1] != '-' && strings.IndexByte(f.text[1:], o) >= 0
}

// longOpt reports whether t is the long option full or an abbreviation of
// it at least min bytes long (getopt_long accepts unambiguous prefixes).
func longOpt(t, full string, min int) bool {
	t, _, _ = strings.Cut(t, "=")
	return len(t) >= min && strings.HasPrefix(full, t)
}

// shell checks sh/bash/...: -c SCRIPT, or a script read from stdin (a
// here-document; a pipe asks). A script file is not read.
func (c *checker) shell(rest []field, in input) {
	hasC := false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		t := a.text
		switch {
		case !a.known() && (hasC || strings.HasPrefix(t, unk)):
			c.flag(ReasonOpaque)
			return
		case t == "--":
			rest = rest[i+1:]
			i = len(rest) // stop
			if hasC && len(rest) > 0 {
				c.nested(rest[0].text, argv(rest[1:]), false)
				return
			}
			if !hasC && len(rest) > 0 {
				c.scriptFile(rest[0], in, func(src string) { c.nested(src, argv(rest), false) })
				return
			}
		case t == "-o" || t == "+o" || t == "--rcfile" || t == "--init-file":
			i++
		case len(t) > 1 && (t[0] == '-' || t[0] == '+') && t[1] != '-':
			hasC = hasC || strings.IndexByte(t[1:], 'c') >= 0
		case strings.HasPrefix(t, "--"):
		default:
			if hasC {
				c.nested(t, argv(rest[i+1:]), false)
				return
			}
			c.scriptFile(a, in, func(src string) { c.nested(src, argv(rest[i:]), false) })
			return
		}
	}
	c.stdinScript(in)
}

// scriptFile checks a script a shell or interpreter reads from a file
// operand: /dev/stdin reads stdin (a here-document is checked with check,
// a pipe asks); a process substitution or another /dev/fd or /proc path
// is a script the check cannot see. A script in a real file is not read.
func (c *checker) scriptFile(f field, in input, check func(src string)) {
	switch p := clean(c.abs(f)); {
	case !f.known():
		c.flag(ReasonOpaque)
	case p == "/dev/stdin" || p == "/dev/fd/0" || p == "/proc/self/fd/0":
		switch {
		case in.given:
			check(in.text)
		case in.pipe:
			c.flag(ReasonOpaque)
		}
	case strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/"):
		c.flag(ReasonOpaque)
	}
}

// awk runs a program given as its first operand, unless one comes from
// elsewhere: -f/--file, -E/--exec or -i/--include name a file (not read
// here), -e/--source (gawk) give program text, which is checked; -W NAME
// is --NAME. A program that calls system() or pipes to or from a command
// asks.
func (c *checker) awk(args []field) {
	var programs []field
	fromFile := false
	for i := 0; i < len(args); i++ {
		a, t := args[i], args[i].text
		arg := func(attached string, eq bool) field {
			if eq || attached != "" {
				return lit(attached)
			}
			return nextArg(args, &i)
		}
		switch {
		case !a.known() && strings.HasPrefix(t, unk):
			c.flag(ReasonOpaque)
			return
		case t == "--":
			if i+1 < len(args) && !fromFile && len(programs) == 0 {
				programs = append(programs, args[i+1])
			}
			i = len(args)
		case strings.HasPrefix(t, "--") || strings.HasPrefix(t, "-W"):
			long := t
			if !strings.HasPrefix(t, "--") { // -W NAME[=VALUE], -WNAME
				w := arg(t[2:], false)
				long = "--" + w.text
			}
			k, v, eq := strings.Cut(long, "=")
			switch {
			case longOpt(k, "--source", 4):
				programs = append(programs, arg(v, eq))
			case longOpt(k, "--file", 4), longOpt(k, "--exec", 4), longOpt(k, "--include", 4):
				fromFile = true
				arg(v, eq)
			case longOpt(k, "--assign", 4), longOpt(k, "--field-separator", 4), longOpt(k, "--load", 4):
				arg(v, eq)
			}
		case len(t) > 1 && t[0] == '-':
			switch o := t[1]; {
			case o == 'e':
				programs = append(programs, arg(t[2:], false))
			case strings.IndexByte("fEi", o) >= 0:
				fromFile = true
				arg(t[2:], false)
			case strings.IndexByte("Fvl", o) >= 0:
				arg(t[2:], false)
			}
		default: // options end here: the program, or the first input file
			if !fromFile && len(programs) == 0 {
				programs = append(programs, a)
			}
			i = len(args)
		}
	}
	for _, p := range programs {
		switch {
		case !p.known():
			c.flag(ReasonOpaque)
		case awkRuns().MatchString(p.text):
			c.flag(ReasonInterpreter)
		}
	}
}

var awkRuns = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bsystem\b|getline|\|`)
})

// argv is the positional parameters of sh -c SCRIPT NAME ARGS...
func argv(rest []field) []field {
	if len(rest) == 0 {
		return []field{}
	}
	return rest[1:]
}

// stdinScript checks a program a shell reads from stdin.
func (c *checker) stdinScript(in input) {
	switch {
	case in.given:
		c.nested(in.text, []field{}, false)
	case in.pipe:
		c.flag(ReasonOpaque)
	}
}

// interpreter returns the language of an interpreter's command name, or "".
func interpreter(name string) string {
	switch {
	case strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy"):
		return "python"
	case strings.HasPrefix(name, "perl"):
		return "perl"
	case name == "node" || name == "nodejs" || name == "bun" || name == "deno":
		return "node"
	case name == "ruby" || name == "irb":
		return "ruby"
	case strings.HasPrefix(name, "php"):
		return "php"
	case name == "lua" || name == "luajit" || strings.HasPrefix(name, "lua5"):
		return "lua"
	case name == "Rscript":
		return "r"
	case name == "julia":
		return "julia"
	case name == "tclsh" || strings.HasPrefix(name, "tclsh8") || name == "wish" || name == "expect":
		return "tcl"
	}
	return ""
}

// langRuns matches, per language, the ways its programs run commands or
// delete files that deletes does not name.
var langRuns = map[string]*regexp.Regexp{
	"lua":   regexp.MustCompile(`os\.execute|io\.popen|os\.remove|\brequire\b|loadstring|\bload\s*\(`),
	"r":     regexp.MustCompile(`system2?\s*\(|shell\s*\(|pipe\s*\(|file\.remove|unlink`),
	"julia": regexp.MustCompile(`\brun\s*\(|pipeline|\brm\s*\(|ccall`),
	"node":  regexp.MustCompile(`Deno\.(Command|run|remove)|Bun\.\$|\$\x60`),
}

// programOpts are, per language, the options that take an inline program
// and the other options that take an argument.
var programOpts = map[string][2]string{
	"python": {"c", "WXmQ"},
	"perl":   {"eE", "IMmx"},
	"node":   {"ep", "r"},
	"ruby":   {"e", "rICEFx"},
	"php":    {"rBRE", "cdzf"},
	"lua":    {"e", "l"},
	"r":      {"e", ""},
	"julia":  {"eE", "LJCpt"},
	"tcl":    {"c", "fDb"}, // expect -c; tclsh reads a program from stdin
}

// deletes matches what an inline program may delete files with: delete
// primitives, and ways to run other commands or hide a name.
var deletes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`rmtree|remove_tree|rm_r|rm_f|\brm\b|rmdir|unlink|removedirs|remove\b|rmSync|` +
		`rimraf|FileUtils|File\.delete|Dir\.delete|\bdelete\b|shred|` +
		`\bsystem\b|subprocess|(?i:popen)|\bexec|spawn|child_process|\bqx|` +
		`__import__|importlib|getattr|__dict__|\beval\b|b64decode|fromCharCode|\\x[0-9a-fA-F]|chr\(`)
})

// interp checks an interpreter call: an inline program (or one read from
// a here-document) that names a delete primitive asks; a program in a
// file is not read.
func (c *checker) interp(lang string, rest []field, in input) {
	opts := programOpts[lang]
	var programs []field
	inline, fromStdin := false, true
loop:
	for i := 0; i < len(rest); i++ {
		a, t := rest[i], rest[i].text
		switch {
		case !a.known():
			if strings.HasPrefix(t, unk) && !inline {
				c.flag(ReasonOpaque) // may be -c CODE
				return
			}
			fromStdin = false
			break loop
		case t == "-":
			break loop
		case t == "--": // the script follows ("-" is stdin), unless a program was given
			if !inline && i+1 < len(rest) && rest[i+1].text != "-" {
				fromStdin = false
				c.scriptFile(rest[i+1], in, func(src string) { c.program(input{}, []field{lit(src)}, lang) })
			}
			break loop
		case strings.HasPrefix(t, "--eval") || strings.HasPrefix(t, "--print"):
			inline = true
			if _, v, ok := strings.Cut(t, "="); ok {
				programs = append(programs, lit(v))
			} else if i+1 < len(rest) {
				i++
				programs = append(programs, rest[i])
			}
		case lang == "node" && t == "eval" && i == 0 && len(rest) > 1: // deno eval CODE
			inline = true
			i++
			programs = append(programs, rest[i])
		case strings.HasPrefix(t, "--"):
		case len(t) > 1 && t[0] == '-':
			for k := 1; k < len(t); k++ {
				if strings.IndexByte(opts[0], t[k]) >= 0 {
					inline = true
					if k+1 < len(t) {
						programs = append(programs, lit(t[k+1:]))
					}
					// perl -pie 'CODE' is -p -i with extension "e":
					// fail closed, the next word is a program too.
					if i+1 < len(rest) && (k+1 == len(t) || lang == "perl") {
						i++
						programs = append(programs, rest[i])
					}
					break
				}
				if strings.IndexByte(opts[1], t[k]) >= 0 {
					if k+1 == len(t) {
						i++
					}
					break
				}
			}
		default: // a script file, or an argument of the inline program
			fromStdin = false
			if !inline {
				c.scriptFile(a, in, func(src string) { c.program(input{}, []field{lit(src)}, lang) })
			}
			break loop
		}
	}
	switch {
	case inline:
		c.program(input{}, programs, lang)
	case fromStdin:
		c.program(in, nil, lang)
	}
}

// program checks inline programs, or the one stdin brings when there are
// none: unknown text asks, text naming a delete primitive asks.
func (c *checker) program(in input, programs []field, lang string) {
	if len(programs) == 0 {
		switch {
		case in.given:
			programs = []field{lit(in.text)}
		case in.pipe:
			c.flag(ReasonOpaque)
			return
		}
	}
	for _, p := range programs {
		switch {
		case !p.known():
			c.flag(ReasonOpaque)
		case deletes().MatchString(p.text), lang != "node" && strings.Contains(p.text, "`"),
			langRuns[lang] != nil && langRuns[lang].MatchString(p.text):
			c.flag(ReasonInterpreter) // perl and ruby run `commands`
		}
	}
}

// tmuxRuns are the tmux commands that run a shell command, type into a
// pane or read commands from a file.
var tmuxRuns = map[string]bool{
	"new-session": true, "new": true, "new-window": true, "neww": true, "split-window": true,
	"splitw": true, "respawn-pane": true, "respawnp": true, "respawn-window": true,
	"respawnw": true, "run-shell": true, "run": true, "if-shell": true, "if": true,
	"display-popup": true, "popup": true, "send-keys": true, "send": true, "pipe-pane": true,
	"pipep": true, "source-file": true, "source": true,
}

// handsOff reports whether the tmux, screen, at, batch or crontab command
// hands a command to a server or daemon to run later. That server may
// have been started by the person, outside any OS sandbox, and its text
// (a pane's keys, a job on stdin, a crontab file) is not checked here.
// Looking (tmux ls, screen -ls, atq's at -l, crontab -l) does not.
func handsOff(name string, args []field) bool {
	switch name {
	case "tmux": // any word: commands may be chained with ";"
		for _, a := range args {
			if !a.known() || tmuxRuns[strings.TrimSuffix(a.text, ";")] {
				return true
			}
		}
		return false
	case "screen":
		for _, a := range args {
			if a.text != "-ls" && a.text != "-list" {
				return true
			}
		}
		return false
	case "crontab":
		return !slices.ContainsFunc(args, func(a field) bool { return a.text == "-l" })
	}
	// at, batch: at -l (atq) only lists.
	return !(len(args) == 1 && args[0].text == "-l")
}
