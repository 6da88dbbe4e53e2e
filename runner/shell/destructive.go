package shell

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Destructive reports whether the shell command line would, as far as a
// reading of its text can tell, do something hard to undo, and a short fixed
// reason. cwd is the directory it runs in and home the HOME it sees; either
// may be empty (then only ~, $HOME, . and the like stand for them). It is a
// guard rail, not a sandbox: data flow (echo / | xargs rm -rf), other
// languages (python -c) and brace expansion are not followed.
//
// A command line is split into simple commands (across ;, &&, ||, |, &,
// newlines, subshells, $( ) and ` `, sh -c, bash -c, eval, and here-documents
// fed to a shell), words are unquoted, and wrappers are looked through
// (sudo, doas, env, nice, nohup, time, timeout, command, exec, builtin,
// xargs, stdbuf, ionice, busybox, and VAR=value prefixes). cd and pushd
// move the directory relative targets are read against. Then:
//
//   - rm with -r/-R/--recursive, of the root, a top-level directory
//     (/usr, /etc...), a user's home (~, ~user, $HOME, /home/NAME), cwd or
//     home or any parent of them, a .git directory, or everything in one
//     of those (*, .*, ./*); "$VAR/" and "$VAR/*" (the root when VAR is
//     empty); any rm with --no-preserve-root.
//   - find with -delete, or -exec/-execdir/-ok rm, over such a directory,
//     unless a selecting test (-name, -path, -regex, -newer, -mtime, -size,
//     -user, -empty...) narrows it; -type and -mindepth do not.
//   - chmod, chown and chgrp with -R on such a directory.
//   - git push with --force, -f, --force-with-lease, --force-if-includes, a
//     +refspec, --mirror, --delete, -d, --prune or a :ref (deletes a remote
//     branch); git reset --hard; git clean -f (not with -n).
//   - mkfs, mkfs.*, mke2fs, mkswap, mkdosfs, mkntfs, newfs, blkdiscard with
//     an operand; wipefs -a; diskutil erase*/partitionDisk/zeroDisk; dd
//     of=/dev/...; shred of /dev/...; any output redirection to /dev/...
//     other than null, zero, full, tty, stdout, stderr, random, urandom,
//     fd/*, pts/*, shm/*.
//   - kill of pid -1 (every process); shutdown, reboot, halt, poweroff.
//   - a fork bomb: a function whose body pipes itself into itself.
//   - nesting deeper than maxShellDepth.
//
// Words that are data do not count: echo rm -rf /, grep -r mkfs, a quoted
// "rm -rf /" passed to anything but sh -c or eval, and comments.
func Destructive(command, cwd, home string) (bool, string) {
	if forkBomb(command) {
		return true, "fork bomb"
	}
	c := checker{cwd: placeholder(cwd, "/\x00cwd"), home: placeholder(home, "/\x00home")}
	c.vcwd = c.cwd
	return c.line(command, 0)
}

func placeholder(p, stand string) string {
	if p == "" || !filepath.IsAbs(p) {
		return stand
	}
	return filepath.Clean(p)
}

// checker walks commands, tracking the directory they run in.
type checker struct {
	cwd, home string
	vcwd      string // where the next command runs; "" when unknown
}

func (c *checker) line(s string, depth int) (bool, string) {
	cmds, tooDeep := parseShell(s, depth)
	if tooDeep {
		return true, "command nested too deeply to check"
	}
	for _, cmd := range cmds {
		if bad, why := c.command(cmd, depth); bad {
			return true, why
		}
	}
	return false, ""
}

// writeOps are the redirections that write their target.
var writeOps = map[string]bool{">": true, ">>": true, ">|": true, "&>": true, "&>>": true, "<>": true, ">&": true}

func (c *checker) command(cmd *command, depth int) (bool, string) {
	for _, r := range cmd.redirs {
		if p, ok := c.expand(r.target.text); ok && writeOps[r.op] && device(p) {
			return true, "writes to a raw disk device"
		}
	}
	args := unwrap(cmd.args)
	if len(args) == 0 {
		return false, ""
	}
	name := cmdName(args[0])
	if strings.HasPrefix(name, "mkfs.") {
		name = "mkfs"
	}
	rest := args[1:]
	switch name {
	case "cd", "pushd":
		c.cd(rest)
	case "popd":
		c.vcwd = ""
	case "rm":
		return c.rm(rest)
	case "find":
		return c.find(rest)
	case "chmod", "chown", "chgrp":
		return c.chmodR(rest)
	case "git":
		return gitDestructive(rest)
	case "dd", "shred", "mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "newfs", "blkdiscard", "wipefs", "diskutil":
		return c.disk(name, rest)
	case "kill":
		return killAll(rest)
	case "shutdown", "reboot", "halt", "poweroff":
		return true, "shuts down or reboots the machine"
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "eval":
		return c.nested(name, cmd, rest, depth)
	}
	return false, ""
}

// disk checks the commands that write to, format or wipe a disk.
func (c *checker) disk(name string, rest []word) (bool, string) {
	switch name {
	case "dd":
		for _, a := range rest {
			if v, ok := strings.CutPrefix(a.text, "of="); ok {
				if p, ok := c.expand(v); ok && device(p) {
					return true, "dd writes to a raw disk device"
				}
			}
		}
	case "shred":
		for _, a := range operands(rest) {
			if p, ok := c.expand(a.text); ok && device(p) {
				return true, "shred of a disk device"
			}
		}
	case "mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "newfs", "blkdiscard":
		if len(operands(rest)) > 0 {
			return true, "formats a disk"
		}
	case "wipefs":
		for _, a := range rest {
			if a.text == "--all" || shortFlag(a.text, 'a') {
				return true, "wipes disk signatures"
			}
		}
	case "diskutil":
		if len(rest) > 0 {
			verb := strings.ToLower(rest[0].text)
			if strings.HasPrefix(verb, "erase") || verb == "partitiondisk" || verb == "zerodisk" || verb == "secureerase" || verb == "reformat" {
				return true, "formats a disk"
			}
		}
	}
	return false, ""
}

// nested checks the script a shell (sh -c, or a here-document fed to it)
// or eval runs, one level deeper.
func (c *checker) nested(name string, cmd *command, rest []word, depth int) (bool, string) {
	if name == "eval" {
		texts := make([]string, len(rest))
		for i, a := range rest {
			texts[i] = a.text
		}
		return c.line(strings.Join(texts, " "), depth+1)
	}
	script, ok := shellScript(rest)
	if !ok && cmd.body != "" {
		script, ok = cmd.body, true
	}
	if ok {
		return c.line(script, depth+1)
	}
	return false, ""
}

// cmdName is the base name of a command word; "" when it is an expansion.
func cmdName(w word) string {
	if strings.Contains(w.text, "\x00") {
		return ""
	}
	return filepath.Base(w.text)
}

// isOption reports whether a word is an option (not "-" or "--").
func isOption(t string) bool { return len(t) > 1 && t[0] == '-' && t != "--" }

// shortFlag reports whether t is a cluster of short options holding f.
func shortFlag(t string, f byte) bool {
	return isOption(t) && t[1] != '-' && strings.IndexByte(t[1:], f) >= 0
}

// operands returns the non-option words (all words after "--").
func operands(args []word) []word {
	var out []word
	opts := true
	for _, a := range args {
		switch {
		case opts && a.text == "--":
			opts = false
		case opts && isOption(a.text):
		default:
			out = append(out, a)
		}
	}
	return out
}

// Wrappers: commands that run their operands as a command. The value lists
// the short options that take a separate argument.
var wrappers = map[string]string{
	"sudo": "ugCDprtTU", "doas": "uC", "env": "uCS", "nice": "n", "nohup": "",
	"time": "fo", "timeout": "sk", "command": "", "exec": "a", "builtin": "",
	"xargs": "IEnPsLad", "stdbuf": "ioe", "ionice": "cnpPu", "busybox": "",
}

// longWithArg are wrapper long options that take a separate argument.
var longWithArg = map[string]bool{
	"--user": true, "--group": true, "--chdir": true, "--prompt": true, "--role": true,
	"--type": true, "--other-user": true, "--close-from": true, "--host": true, "--unset": true,
	"--split-string": true, "--signal": true, "--kill-after": true, "--adjustment": true,
	"--class": true, "--classdata": true, "--max-args": true, "--max-procs": true,
	"--max-lines": true, "--delimiter": true, "--arg-file": true, "--input": true, "--output": true, "--error": true,
}

// keywords start compound commands; the command after them still runs.
var keywords = map[string]bool{
	"if": true, "then": true, "elif": true, "else": true, "do": true, "while": true,
	"until": true, "!": true, "{": true, "}": true, "fi": true, "done": true, "esac": true,
}

var assignment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// unwrap drops keywords, VAR=value prefixes and wrappers with their options
// and returns the command that runs. command -v and -V only look up.
func unwrap(args []word) []word {
	for len(args) > 0 {
		a := args[0]
		switch {
		case keywords[a.text] && !a.quoted:
			args = args[1:]
			continue
		case assignment().MatchString(a.text) && !a.quoted:
			args = args[1:]
			continue
		}
		name := cmdName(a)
		withArg, ok := wrappers[name]
		if !ok {
			return args
		}
		args = args[1:]
		for len(args) > 0 {
			t := args[0].text
			if t == "--" {
				args = args[1:]
				break
			}
			if !isOption(t) {
				break
			}
			if name == "command" && (shortFlag(t, 'v') || shortFlag(t, 'V')) {
				return nil
			}
			args = args[1:]
			if strings.HasPrefix(t, "--") {
				if longWithArg[t] && len(args) > 0 {
					args = args[1:]
				}
				continue
			}
			// A short cluster: an option taking an argument takes the rest
			// of the cluster, or the next word when it ends the cluster.
			for k := 1; k < len(t); k++ {
				if strings.IndexByte(withArg, t[k]) >= 0 {
					if k == len(t)-1 && len(args) > 0 {
						args = args[1:]
					}
					break
				}
			}
		}
		if name == "timeout" && len(args) > 0 {
			args = args[1:] // the duration
		}
	}
	return args
}

// shellScript returns the script of sh -c SCRIPT.
func shellScript(args []word) (string, bool) {
	hasC := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "":
			if hasC {
				return "", true
			}
			return "", false
		case t == "--":
			if hasC && i+1 < len(args) {
				return args[i+1].text, true
			}
			return "", false
		case t == "-o" || t == "+o":
			i++
		case (t[0] == '-' || t[0] == '+') && len(t) > 1 && t[1] != '-':
			if strings.IndexByte(t[1:], 'c') >= 0 {
				hasC = true
			}
		case strings.HasPrefix(t, "--"):
		default:
			if hasC {
				return t, true
			}
			return "", false
		}
	}
	return "", false
}

// cd moves the directory later relative targets resolve against.
func (c *checker) cd(args []word) {
	ops := operands(args)
	if len(ops) == 0 {
		c.vcwd = c.home
		return
	}
	if ops[0].text == "-" {
		c.vcwd = ""
		return
	}
	p, ok := c.expand(ops[0].text)
	if !ok || ops[0].glob {
		c.vcwd = ""
		return
	}
	c.vcwd = p
}

// expand substitutes markers and makes a path absolute against the current
// directory. ok is false when an unknown expansion or an unknown directory
// makes the path unknowable.
func (c *checker) expand(text string) (string, bool) {
	if text == "" || strings.Contains(text, markVar) || strings.Contains(text, markSet) || strings.Contains(text, markUser) {
		return "", false
	}
	if strings.Contains(text, markPwd) {
		if c.vcwd == "" {
			return "", false
		}
		text = strings.ReplaceAll(text, markPwd, c.vcwd)
	}
	text = strings.ReplaceAll(text, markHome, c.home)
	if filepath.IsAbs(text) {
		return filepath.Clean(text), true
	}
	if c.vcwd == "" {
		return "", false
	}
	return filepath.Join(c.vcwd, text), true
}

// within reports whether p is root or below it. Both are clean and absolute.
func within(root, p string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

// dangerous names what a recursive operation on the clean absolute path p
// would destroy, or "" when it is an ordinary path.
func (c *checker) dangerous(p string, git bool) string {
	switch {
	case p == "/":
		return "the root directory"
	case p == c.cwd:
		return "the workspace"
	case within(p, c.cwd):
		return "a parent of the workspace"
	case p == c.home:
		return "the home directory"
	case within(p, c.home):
		return "a parent of the home directory"
	case strings.Count(p, "/") == 1:
		return "a system directory"
	case strings.Count(p, "/") == 2 && (strings.HasPrefix(p, "/home/") || strings.HasPrefix(p, "/Users/")):
		return "a home directory"
	case git && filepath.Base(p) == ".git":
		return "a .git directory"
	}
	return ""
}

// allGlob reports whether a path component matches (nearly) every entry:
// *, .*, *.*, ?*, .[!.]* and the like.
func allGlob(last string) bool {
	var rest strings.Builder
	for k := 0; k < len(last); k++ {
		switch last[k] {
		case '*', '?', '.':
		case '[':
			end := strings.IndexByte(last[k:], ']')
			if end < 0 {
				return false
			}
			k += end
		default:
			rest.WriteByte(last[k])
		}
	}
	return rest.Len() == 0 && strings.ContainsAny(last, "*?")
}

// target names what a recursive operation on w would destroy, or "".
func (c *checker) target(w word, git bool) string {
	text := w.text
	// "$DIR/" and "$DIR/*" are the root when DIR is empty or unset.
	if v, ok := strings.CutPrefix(text, markVar); ok && (v == "/" || v == "/*" && w.glob || v == "/." || v == "/.*" && w.glob) {
		return "the root directory if a variable is empty"
	}
	if v, ok := strings.CutPrefix(text, markUser); ok && (v == "" || v == "/" || v == "/*" && w.glob) {
		return "a home directory"
	}
	p, ok := c.expand(text)
	if !ok {
		if git && filepath.Base(strings.TrimRight(text, "/")) == ".git" {
			return "a .git directory"
		}
		return ""
	}
	if w.glob {
		dir, last := filepath.Split(p)
		if !allGlob(last) {
			return ""
		}
		if why := c.dangerous(filepath.Clean(dir), git); why != "" {
			return "everything in " + why
		}
		return ""
	}
	return c.dangerous(p, git)
}

func (c *checker) rm(args []word) (bool, string) {
	recursive := false
	var targets []word
	opts := true
	for _, a := range args {
		t := a.text
		switch {
		case opts && t == "--":
			opts = false
		case opts && t == "--no-preserve-root":
			return true, "rm --no-preserve-root"
		case opts && t == "--recursive":
			recursive = true
		case opts && strings.HasPrefix(t, "--"):
		case opts && isOption(t):
			if strings.ContainsAny(t[1:], "rR") {
				recursive = true
			}
		default:
			targets = append(targets, a)
		}
	}
	if !recursive {
		return false, ""
	}
	for _, w := range targets {
		if why := c.target(w, true); why != "" {
			return true, "recursive delete of " + why
		}
	}
	return false, ""
}

// findSelective are find tests that narrow what -delete removes.
var findSelective = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true,
	"-iwholename": true, "-regex": true, "-iregex": true, "-lname": true, "-ilname": true,
	"-newer": true, "-anewer": true, "-cnewer": true, "-newermt": true, "-mtime": true,
	"-mmin": true, "-atime": true, "-amin": true, "-ctime": true, "-cmin": true,
	"-size": true, "-empty": true, "-user": true, "-group": true, "-uid": true, "-gid": true,
	"-nouser": true, "-nogroup": true, "-perm": true, "-inum": true, "-samefile": true, "-links": true,
}

func (c *checker) find(args []word) (bool, string) {
	i := 0
	// Leading options: -H -L -P -O3 -D debugopts.
	for i < len(args) && (args[i].text == "-H" || args[i].text == "-L" || args[i].text == "-P" ||
		strings.HasPrefix(args[i].text, "-O") || args[i].text == "-D") {
		if args[i].text == "-D" {
			i++
		}
		i++
	}
	var starts []word
	for ; i < len(args); i++ {
		t := args[i].text
		if strings.HasPrefix(t, "-") || t == "(" || t == "!" {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []word{{text: "."}}
	}
	deleting, selective := false, false
	for ; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-delete":
			deleting = true
		case t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir":
			if i+1 < len(args) {
				switch cmdName(args[i+1]) {
				case "rm", "shred", "unlink":
					deleting = true
				}
			}
			for i+1 < len(args) && args[i+1].text != ";" && args[i+1].text != "+" {
				i++
			}
		case findSelective[t]:
			if !((t == "-name" || t == "-iname") && i+1 < len(args) && args[i+1].text == "*") {
				selective = true
			}
		}
	}
	if !deleting || selective {
		return false, ""
	}
	for _, s := range starts {
		if p, ok := c.expand(s.text); ok && !s.glob {
			if why := c.dangerous(p, true); why != "" {
				return true, "find deletes " + why
			}
		}
	}
	return false, ""
}

func (c *checker) chmodR(args []word) (bool, string) {
	recursive, reference := false, false
	for _, a := range args {
		if a.text == "--recursive" || shortFlag(a.text, 'R') {
			recursive = true
		}
		if strings.HasPrefix(a.text, "--reference") {
			reference = true
		}
	}
	ops := operands(args)
	if !recursive || len(ops) == 0 {
		return false, ""
	}
	if !reference {
		ops = ops[1:] // the mode or owner
	}
	for _, w := range ops {
		if why := c.target(w, false); why != "" {
			return true, "recursive permission change of " + why
		}
	}
	return false, ""
}

// gitGlobalWithArg are git options before the subcommand that take an argument.
var gitGlobalWithArg = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true, "--config-env": true, "--super-prefix": true}

func gitDestructive(args []word) (bool, string) {
	i := 0
	for i < len(args) && isOption(args[i].text) {
		if gitGlobalWithArg[args[i].text] {
			i++
		}
		i++
	}
	if i >= len(args) {
		return false, ""
	}
	sub, rest := args[i].text, args[i+1:]
	switch sub {
	case "push":
		for _, a := range rest {
			t := a.text
			switch {
			case t == "--force" || strings.HasPrefix(t, "--force-with-lease") || t == "--force-if-includes" || shortFlag(t, 'f'):
				return true, "git force push"
			case t == "--mirror":
				return true, "git push --mirror overwrites the remote"
			case t == "--delete" || t == "--prune" || shortFlag(t, 'd'):
				return true, "git push deletes remote branches"
			}
		}
		for _, a := range operands(rest) {
			switch {
			case strings.HasPrefix(a.text, "+"):
				return true, "git force push"
			case strings.HasPrefix(a.text, ":"):
				return true, "git push deletes remote branches"
			}
		}
	case "reset":
		for _, a := range rest {
			if a.text == "--hard" {
				return true, "git reset --hard discards uncommitted changes"
			}
		}
	case "clean":
		force, dry := false, false
		for _, a := range rest {
			force = force || a.text == "--force" || shortFlag(a.text, 'f')
			dry = dry || a.text == "--dry-run" || shortFlag(a.text, 'n')
		}
		if force && !dry {
			return true, "git clean deletes untracked files"
		}
	}
	return false, ""
}

func killAll(args []word) (bool, string) {
	i := 0
	if i < len(args) && isOption(args[i].text) {
		if args[i].text == "-s" || args[i].text == "-n" {
			i++
		}
		i++ // the signal: in kill -1 PID, -1 is SIGHUP
	}
	for ; i < len(args); i++ {
		if args[i].text == "-1" {
			return true, "kills every process"
		}
	}
	return false, ""
}

// safeDevices are /dev entries that writing to destroys nothing.
var safeDevices = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/full": true, "/dev/tty": true, "/dev/stdout": true,
	"/dev/stderr": true, "/dev/stdin": true, "/dev/random": true, "/dev/urandom": true, "/dev/ptmx": true,
}

// device reports whether p is a /dev entry other than the harmless ones
// (a disk, a partition, a mapper or md device...).
func device(p string) bool {
	if !strings.HasPrefix(p, "/dev/") || safeDevices[p] {
		return false
	}
	for _, prefix := range []string{"/dev/fd/", "/dev/pts/", "/dev/shm/", "/dev/tcp/", "/dev/udp/"} {
		if strings.HasPrefix(p, prefix) {
			return false
		}
	}
	return true
}

var (
	// funcDef finds "NAME()" or "function NAME" openings.
	funcDef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|[\s;&|(){}])(?:function\s+)?([^\s;&|(){}<>'"` + "`" + `$]+)\s*(?:\(\s*\))?\s*\{`)
	})
)

// maxBombBody bounds how much of a function body forkBomb reads.
const maxBombBody = 256

// forkBomb reports whether s defines a function whose body pipes it into
// itself, as in :(){ :|:& };: or bomb() { bomb | bomb & }; bomb.
func forkBomb(s string) bool {
	for _, m := range funcDef().FindAllStringSubmatchIndex(s, -1) {
		name := s[m[2]:m[3]]
		if name == "function" {
			continue
		}
		// A fork bomb's body is short; bounding it keeps this linear.
		body := s[m[1]:min(len(s), m[1]+maxBombBody)]
		if end := strings.IndexByte(body, '}'); end >= 0 {
			body = body[:end]
		}
		if strings.Contains(strings.Join(strings.Fields(body), ""), name+"|"+name) {
			return true
		}
	}
	return false
}
