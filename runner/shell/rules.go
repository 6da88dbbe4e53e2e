package shell

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// cd moves the directory later relative paths resolve against.
func (c *checker) cd(args []field) {
	ops := operands(args)
	switch {
	case len(ops) == 0:
		c.vcwd = ""
		if h, ok := c.vars["HOME"]; ok {
			c.vcwd = h
		}
	case ops[0].text == "-" || ops[0].glob:
		c.vcwd = ""
	case !hasCDPATH(c.vars) && !strings.HasPrefix(ops[0].text, "/") && !strings.HasPrefix(ops[0].text, "."):
		c.vcwd = "" // CDPATH assigned: a relative name may be found anywhere
	default:
		p := c.abs(ops[0])
		c.vcwd = clean(p) // cd -L (the default) reads .. lexically
		for _, a := range args {
			if shortFlag(a, 'P') && p != "" {
				c.vcwd = resolve(p, true)
			}
		}
	}
}

func hasCDPATH(vars map[string]string) bool {
	_, ok := vars["CDPATH"]
	return ok
}

// rsync with a --del* option deletes in its destination (the last operand).
func (c *checker) rsync(args []field) {
	del, moveOut := false, false
	for _, a := range args {
		del = del || strings.HasPrefix(a.text, "--del") || (!a.known() && a.split)
		moveOut = moveOut || strings.HasPrefix(a.text, "--remove-s") || (!a.known() && a.split)
	}
	// --remove-source-files empties the sources (every operand but the last).
	if ops := operands(args); moveOut && len(ops) > 1 {
		c.rm(append([]field{lit("-r")}, ops[:len(ops)-1]...))
	}
	if ops := operands(args); del && len(ops) > 0 {
		if r := deleteReason(c.where(ops[len(ops)-1], true)); r != "" {
			c.flag(r)
		}
	}
}

// cmake -E rm and remove_directory are rm under another name.
func (c *checker) cmake(args []field) {
	if len(args) < 2 || args[0].text != "-E" {
		return
	}
	switch args[1].text {
	case "rm":
		c.rm(args[2:])
	case "remove_directory":
		c.rm(append([]field{lit("-r")}, args[2:]...))
	}
}

// mv takes its sources away from where they were: moving a directory out
// of a place outside the workspace is deleting it there.
func (c *checker) mv(args []field) {
	ops, target := operands(args), false
	for _, a := range args {
		target = target || shortFlag(a, 't') || longOpt(a.text, "--target-directory", 3) || (!a.known() && a.split)
	}
	if !target && len(ops) > 0 {
		ops = ops[:len(ops)-1]
	}
	c.rm(append([]field{lit("-r")}, ops...))
}

// tar --remove-files (or --rem..., GNU tar's abbreviations: no other long
// option starts with --rem) deletes what it archived: every operand counts
// as a recursive delete (the archive name among them is only ever
// stricter).
func (c *checker) tar(args []field) {
	remove := false
	for _, a := range args {
		remove = remove || longOpt(a.text, "--remove-files", 5) || (!a.known() && a.split)
	}
	if remove {
		c.rm(append([]field{lit("-r")}, operands(args)...))
	}
}

// rm: a recursive delete of anything outside the workspace and the temp
// directory, of the workspace itself or of a .git directory asks, and so
// does --no-preserve-root. An unknown option word may be -r. Run by find
// for every entry of a start (perEntry), any rm is recursive.
func (c *checker) rm(args []field) {
	recursive := false
	var maybe, targets []field
	opts := true
	for _, a := range args {
		t := a.text
		switch {
		case !a.known() && a.split:
			c.flag(ReasonDeleteOutside) // may be "-r /anything"
			return
		case !a.known() && opts && strings.HasPrefix(t, unk):
			maybe = append(maybe, a) // an option or an operand
		case opts && t == "--":
			opts = false
		case opts && strings.HasPrefix(t, "--"):
			if longOpt(t, "--no-preserve-root", 3) {
				c.flag(ReasonDeleteOutside)
				return
			}
			recursive = recursive || longOpt(t, "--recursive", 3)
		case opts && len(t) > 1 && t[0] == '-':
			recursive = recursive || strings.ContainsAny(t[1:], "rR")
		default:
			targets = append(targets, a)
		}
	}
	if recursive || c.perEntry {
		targets = append(targets, maybe...)
	} else if len(maybe) == 0 {
		return
	}
	for _, t := range targets {
		if r := deleteReason(c.where(t, false)); r != "" {
			c.flag(r)
			return
		}
	}
}

func deleteReason(w place) Reason {
	switch w {
	case outside:
		return ReasonDeleteOutside
	case workspace:
		return ReasonDeleteWorkspace
	case gitDir:
		return ReasonDeleteGit
	}
	return ""
}

// findSelective are find tests that narrow what -delete removes, unless
// their pattern matches every name (findNarrows). Owner tests (-user,
// -uid...) are not among them: a workspace's files are the person's own.
var findSelective = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true,
	"-iwholename": true, "-regex": true, "-iregex": true, "-lname": true, "-ilname": true,
	"-newer": true, "-anewer": true, "-cnewer": true, "-newermt": true, "-mtime": true,
	"-mmin": true, "-atime": true, "-amin": true, "-ctime": true, "-cmin": true,
	"-size": true, "-empty": true, "-nouser": true, "-nogroup": true, "-perm": true, "-inum": true,
	"-samefile": true, "-links": true,
}

// findArgs is how many words follow each of find's primaries that take
// arguments (GNU findutils; -newerXY apart): they are not expression
// words, whatever they say.
var findArgs = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1,
	"-regex": 1, "-iregex": 1, "-lname": 1, "-ilname": 1, "-newer": 1, "-anewer": 1,
	"-cnewer": 1, "-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1, "-ctime": 1, "-cmin": 1,
	"-used": 1, "-size": 1, "-perm": 1, "-inum": 1, "-samefile": 1, "-links": 1, "-user": 1,
	"-group": 1, "-uid": 1, "-gid": 1, "-type": 1, "-xtype": 1, "-fstype": 1, "-maxdepth": 1,
	"-mindepth": 1, "-regextype": 1, "-context": 1, "-printf": 1, "-fprint": 1, "-fprint0": 1,
	"-fls": 1, "-fprintf": 2, "-files0-from": 1,
}

// findArgCount is the number of arguments the primary t takes.
func findArgCount(t string) int {
	if n, ok := findArgs[t]; ok {
		return n
	}
	if len(t) == len("-newerXY") && strings.HasPrefix(t, "-newer") {
		return 1
	}
	return 0
}

// Regular expression syntaxes of find's -regextype, as findNarrows reads
// them.
const (
	regexEmacs   = iota // emacs and findutils-default, the default
	regexExt            // the POSIX extended family, read as Go's syntax
	regexUnknown        // the basic family, or unknown: no pattern narrows
)

// regexType is the syntax a -regextype name selects.
func regexType(f field) int {
	switch f.text {
	case "emacs", "findutils-default":
		return regexEmacs
	case "posix-extended", "posix-egrep", "egrep", "awk", "posix-awk", "gnu-awk":
		return regexExt
	}
	return regexUnknown
}

// findTest is a selective test of a find command line and its argument.
type findTest struct {
	name string
	arg  field
}

// find: -delete, or -exec/-execdir/-ok/-okdir of a command, is checked for
// each starting point: outside the workspace and the temp directory it
// asks; over the whole workspace it asks unless a test (-name, -mtime...)
// narrows it. The -exec command is checked with {} a path below the start
// when a test narrows it, and as the start itself otherwise (it runs for
// every entry: together they are the start), with every rm recursive.
// -H and -L follow a starting point that is a link; an unknown word may be
// any operator or action; -fprint and its kin write a file, a device
// among them.
func (c *checker) find(args []field) {
	i := 0
	follow, followStarts := false, false
	for ; i < len(args); i++ {
		t := args[i].text
		if t == "-D" {
			i++
			continue
		}
		if t != "-H" && t != "-L" && t != "-P" && !strings.HasPrefix(t, "-O") {
			break
		}
		if !strings.HasPrefix(t, "-O") { // the last of -H, -L, -P decides
			follow, followStarts = t == "-L", t != "-P"
		}
	}
	// A word whose value is unknown where the starting points are may be
	// one (anywhere), an operator (!) or an action (-delete).
	var starts []field
	deleting, negated := false, false
	for ; i < len(args); i++ {
		t := args[i].text
		if !args[i].known() {
			deleting, negated = true, true
		} else if strings.HasPrefix(t, "-") || t == "(" || t == "!" {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []field{lit(".")}
	}
	regex := regexEmacs
	var tests []findTest
	var execs [][]field
	for ; i < len(args); i++ {
		a := args[i]
		arg := unknown
		if i+1 < len(args) {
			arg = args[i+1]
		}
		switch t := a.text; {
		case !a.known():
			deleting, negated = true, true // may be -delete, -o or !
		case t == "-delete":
			deleting = true
		case t == "-follow":
			follow = true
		case t == "-regextype":
			regex = regexType(arg)
		case t == "-files0-from": // the starting points are in a file
			starts = append(starts, unknown)
		case t == "-fprint" || t == "-fprint0" || t == "-fls" || t == "-fprintf":
			if device(c.abs(arg)) {
				c.flag(ReasonDisk)
				return
			}
		case t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir":
			j := i + 1
			for j < len(args) && args[j].text != ";" && args[j].text != "+" {
				j++
			}
			execs = append(execs, args[i+1:min(j, len(args))])
			i = j
			continue
		case t == "-o" || t == "-or" || t == "," || t == "!" || t == "-not":
			negated = true // -name x -o -delete deletes what does not match
		case findSelective[t] && !deleting && len(execs) == 0: // a test after an action narrows nothing before it
			tests = append(tests, findTest{t, arg})
		}
		i += findArgCount(a.text)
	}
	for _, s := range starts {
		w := c.where(s, followStarts)
		if follow && w != gitDir && (deleting || len(execs) > 0) {
			w = outside // -L: links below may lead anywhere
		}
		if w == workspace && !negated && slices.ContainsFunc(tests, func(ft findTest) bool { return findNarrows(ft, s.text, regex) }) {
			w = inside
		}
		if deleting {
			if r := deleteReason(w); r != "" {
				c.flag(r)
				return
			}
		}
		found := lit(strings.TrimSuffix(s.text, "/") + "/{}")
		switch w {
		case outside:
			found = unknown
		case workspace, gitDir:
			found = s
		}
		for _, cmd := range execs {
			if len(cmd) == 0 {
				continue
			}
			if w != inside { // each entry in turn: everything
				for _, a := range cmd { // the deleting command, or a wrapper of it
					switch filepath.Base(a.text) {
					case "rm", "shred", "unlink", "rimraf":
						c.flag(deleteReason(w))
						return
					}
				}
			}
			sub := make([]field, len(cmd))
			for k, a := range cmd {
				sub[k] = a
				if strings.Contains(a.text, "{}") {
					sub[k] = field{text: strings.ReplaceAll(a.text, "{}", found.text), glob: a.glob}
				}
			}
			c.nest(func() {
				saved := c.perEntry
				c.perEntry = saved || w != inside
				c.runProgram(sub, input{})
				c.perEntry = saved
			})
		}
	}
}

// findSamples are entry names of every kind: a test whose pattern matches
// them all narrows nothing.
var findSamples = []string{"a", "Z", "0", "-", ".x", "a.b", "a b"}

// findNarrows reports whether the test ft may leave entries below start
// out: its pattern is known and does not match every name (or path, for
// the path and regex tests, which match the whole path from start).
// regex is the -regextype in force.
func findNarrows(ft findTest, start string, regex int) bool {
	switch ft.name {
	case "-empty", "-nouser", "-nogroup":
		return true // no argument
	}
	if !ft.arg.known() {
		return false // may be *
	}
	pat := ft.arg.text
	if !strings.Contains(ft.name, "regex") {
		pat = strings.ReplaceAll(pat, "[!", "[^") // Go's negated class
	}
	fold := strings.HasPrefix(ft.name, "-i")
	if fold {
		pat = strings.ToLower(pat)
	}
	match := func(name string) bool {
		if fold {
			name = strings.ToLower(name)
		}
		switch ft.name {
		case "-name", "-iname":
			ok, err := filepath.Match(pat, name)
			return ok || err != nil // a bad pattern: not known to narrow
		case "-path", "-ipath", "-wholename", "-iwholename":
			// find's * and ? match a slash here; Go's do not.
			p := strings.TrimSuffix(start, "/") + "/" + name
			ok, err := filepath.Match(strings.ReplaceAll(pat, "/", "\x00"), strings.ReplaceAll(p, "/", "\x00"))
			return ok || err != nil
		case "-regex", "-iregex":
			expr := pat
			switch regex {
			case regexEmacs:
				expr = emacsToGo(expr)
			case regexUnknown:
				return true
			}
			re, err := regexp.Compile("^(?:" + expr + ")$")
			return err != nil || re.MatchString(strings.TrimSuffix(start, "/")+"/"+name)
		}
		return false // -size, -mtime...: they narrow
	}
	for _, n := range findSamples {
		if !match(n) {
			return true
		}
	}
	return false
}

// emacsToGo rewrites an Emacs regular expression (find's default) in Go's
// syntax: there \( \) \| \{ \} are operators and ( ) | { } literal.
func emacsToGo(e string) string {
	var b strings.Builder
	for k := 0; k < len(e); k++ {
		ch := e[k]
		switch {
		case ch == '\\' && k+1 < len(e) && strings.IndexByte("()|{}", e[k+1]) >= 0:
			b.WriteByte(e[k+1])
			k++
		case strings.IndexByte("()|{}", ch) >= 0:
			b.WriteByte('\\')
			b.WriteByte(ch)
		case ch == '\\' && k+1 < len(e):
			b.WriteByte(ch)
			b.WriteByte(e[k+1])
			k++
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// perm: chmod, chown, chgrp with -R of anything outside the workspace and
// the temp directory, or of the workspace itself, asks.
func (c *checker) perm(args []field) {
	recursive, reference, follow := false, false, false
	for _, a := range args {
		switch {
		case !a.known() && a.split:
			c.flag(ReasonPermOutside) // may be "-R ... /anything"
			return
		case strings.HasPrefix(a.text, "--"):
			recursive = recursive || longOpt(a.text, "--recursive", 5)
			reference = reference || longOpt(a.text, "--reference", 5)
		case shortFlag(a, 'R'):
			recursive = true
		}
		follow = follow || shortFlag(a, 'L')
	}
	ops := operands(args)
	if !recursive || len(ops) == 0 {
		return
	}
	if !reference {
		ops = ops[1:] // the mode or owner
	}
	for _, t := range ops {
		w := c.where(t, true)
		if follow && w == inside {
			w = outside // -L: links below may lead anywhere
		}
		switch w {
		case outside:
			c.flag(ReasonPermOutside)
			return
		case workspace:
			c.flag(ReasonPermWorkspace)
			return
		}
	}
}

// shortHas reports whether f is a cluster of short options holding o
// before any option of withArg (whose argument is the rest of the cluster).
func shortHas(f field, o byte, withArg string) bool {
	if !isOption(f) || f.text[1] == '-' {
		return false
	}
	for k := 1; k < len(f.text); k++ {
		switch ch := f.text[k]; {
		case ch == o:
			return true
		case strings.IndexByte(withArg, ch) >= 0:
			return false
		}
	}
	return false
}

// dirOf is the directory v names, relative to dir; "" when unknown.
func (c *checker) dirOf(dir string, v field) string {
	if !v.known() || v.glob || (dir == "" && !strings.HasPrefix(v.text, "/")) {
		return ""
	}
	if strings.HasPrefix(v.text, "/") {
		return clean(v.text)
	}
	return clean(dir + "/" + v.text)
}

// disk checks the commands that write to, format or wipe a disk.
func (c *checker) disk(name string, rest []field) {
	switch name {
	case "dd":
		for _, a := range rest {
			if v, ok := strings.CutPrefix(a.text, "of="); ok && device(c.abs(field{text: v})) {
				c.flag(ReasonDisk)
			}
		}
	case "shred":
		for _, a := range operands(rest) {
			if device(c.abs(a)) {
				c.flag(ReasonDisk)
			}
		}
	case "mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "newfs", "blkdiscard":
		if len(operands(rest)) > 0 {
			c.flag(ReasonDisk)
		}
	case "wipefs":
		for _, a := range rest {
			if longOpt(a.text, "--all", 3) || shortFlag(a, 'a') {
				c.flag(ReasonDisk)
			}
		}
	case "diskutil":
		if len(rest) > 0 {
			verb := strings.ToLower(rest[0].text)
			if strings.HasPrefix(verb, "erase") || verb == "partitiondisk" || verb == "zerodisk" || verb == "secureerase" || verb == "reformat" {
				c.flag(ReasonDisk)
			}
		}
	}
}

// kill of pid -1 signals every process, however the number is written
// (-01, " -1": bash and procps read it as a decimal number).
func (c *checker) kill(args []field) {
	i := 0
	if i < len(args) && isOption(args[i]) {
		if args[i].text == "-s" || args[i].text == "-n" {
			i++
		}
		i++ // the signal: in kill -1 PID, -1 is SIGHUP
	}
	for ; i < len(args); i++ {
		if n, err := strconv.Atoi(strings.TrimSpace(args[i].text)); err == nil && n == -1 {
			c.flag(ReasonKillAll)
		}
	}
}

// safeDevices are /dev entries that writing to destroys nothing.
var safeDevices = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/full": true, "/dev/tty": true, "/dev/stdout": true,
	"/dev/stderr": true, "/dev/stdin": true, "/dev/random": true, "/dev/urandom": true, "/dev/ptmx": true,
}

// device reports whether p is a /dev entry other than the harmless ones
// (a disk, a partition, a mapper or md device...).
func device(p string) bool {
	p = clean(p)
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

// gitRunKey reports whether the git configuration key (lower case) names a
// command git runs with the shell: a pager, an editor, ssh, a diff, merge
// or filter driver, a credential helper, the fsmonitor hook.
func gitRunKey(k string) bool {
	switch k {
	case "core.pager", "core.editor", "sequence.editor", "core.fsmonitor",
		"core.askpass", "diff.external", "credential.helper", "gpg.program", "core.gitproxy",
		"uploadpack.packobjectshook", "web.browser", "interactive.difffilter", "imap.tunnel",
		"sendemail.smtpserver", "instaweb.httpd", "instaweb.browser":
		return true
	}
	// command and cmd: core.sshCommand, core.alternateRefsCommand,
	// gpg.ssh.defaultKeyCommand, diff.<driver>.command, trailer.<key>.cmd,
	// man.<tool>.cmd, browser.<tool>.cmd, difftool.<tool>.cmd,
	// mergetool.<tool>.cmd, sendemail.toCmd, ccCmd, headerCmd, sendmailCmd.
	for _, suffix := range []string{".textconv", "command", "cmd", ".driver", ".clean", ".smudge", ".process", ".program", ".receivepack", ".uploadpack", ".helper"} {
		if strings.HasSuffix(k, suffix) {
			return true
		}
	}
	for _, tool := range []string{"man.", "browser.", "difftool.", "mergetool."} {
		if strings.HasPrefix(k, tool) && strings.HasSuffix(k, ".path") {
			return true // the tool's program
		}
	}
	return strings.HasPrefix(k, "pager.")
}
