package shell

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Place is where a command line runs.
type Place struct {
	// Cwd is the workspace: the directory the command starts in. Empty or
	// relative: unknown (every relative path is then outside).
	Cwd string
	// Env is the environment the command sees (KEY=VALUE). HOME, TMPDIR
	// and XDG_CONFIG_HOME are read from it; any other variable is unknown.
	Env []string
	// GitReadOnly says the OS sandbox holds version control metadata
	// (.git, .hg, .jj...; runner/protected) read-only: version control
	// commands that write it ask (ReasonGitWrite, ReasonVCSWrite), so that
	// once approved they may.
	GitReadOnly bool
}

// Limits on the work one check does; past them the command asks.
const (
	maxDepth = 24      // nested scripts, substitutions and function calls
	maxSteps = 1 << 14 // words expanded and commands checked
	maxGlobs = 64      // directory reads for pathname expansion
)

// Destructive reports whether the command line, read as bash reads it, may
// do something hard to undo, and why (see Reason and doc.go for the rules).
// A command line that does not parse counts as destructive. It reads the
// file system only to resolve symbolic links and expand globs of the paths
// a recursive delete or permission change names.
func Destructive(command string, at Place) (bool, Reason) {
	v := Check(command, at)
	return v.Why != "", v.Why
}

// Verdict is what Check found in a command line.
type Verdict struct {
	// Why is the reason it asks, "" when it does not.
	Why Reason
	// WritesMetadata: under Place.GitReadOnly, a version control command
	// in it writes its metadata (.git, .hg, .jj...). The command asks
	// (Why is at least ReasonGitWrite or ReasonVCSWrite); once approved it
	// runs with the metadata writable.
	WritesMetadata bool
}

// Check is Destructive, with what the sandbox must let the command write.
func Check(command string, at Place) Verdict {
	c := newChecker(at)
	c.script(command, []field{}, false) // sh -c LINE: no arguments
	c.uncalled()
	switch {
	case c.why != "":
	case c.arithAsks: // any other reason says more: it is named first
		c.why = ReasonArithmetic
	case c.gitWrites:
		c.why = ReasonGitWrite // the weakest reasons: any other is named first
	case c.vcsWrites:
		c.why = ReasonVCSWrite
	}
	return Verdict{Why: c.why, WritesMetadata: c.gitWrites || c.vcsWrites}
}

// vcsEnv are the variables that locate a version control client's
// configuration (vcsconfig.go), and PATH, where git finds its git-NAME
// programs.
var vcsEnv = []string{"HGRCPATH", "SL_CONFIG_PATH", "JJ_CONFIG", "GH_CONFIG_DIR", "GLAB_CONFIG_DIR", "PATH"}

// checker walks a command line, tracking what a shell would know.
type checker struct {
	ws, tmp, home []string // the workspace, temp and home directories, as given and resolved
	vars          map[string]string
	vcwd          string  // the directory the next command runs in; "" when unknown
	params        []field // positional parameters; nil when unknown
	piped         bool    // stdin is a pipe
	dynamic       bool    // the script may assign names it computes: parameters are unknown
	funcs         map[string]*function
	aliases       map[string]string
	expanding     map[string]bool // aliases being expanded
	depth, steps  int
	globs         int
	linked        bool                // an ln ran: a path may now lead anywhere
	perEntry      bool                // find runs the command for every entry below a start: each rm is recursive
	gitReadOnly   bool                // Place.GitReadOnly
	gitWrites     bool                // a git command writes .git (ReasonGitWrite)
	vcsWrites     bool                // another version control command writes its metadata (ReasonVCSWrite)
	gitSet        bool                // a git command of the script may have changed git's configuration (gitSetsConfig)
	vcsSet        bool                // hg, sl or jj config may have changed their configuration
	written       map[string]bool     // paths the script may write (redirections, tee, cp...): configuration read from them is unsure
	gitRunsSeen   map[string]bool     // the configuration files' commands checked (gitConfRuns), KEY=VALUE
	gitFiles      map[string]gitFile  // git configuration files read, by path
	vcsFiles      map[string][]byte   // other clients' configuration files read, by path (nil: missing)
	gitBytes      int                 // bytes of configuration read from disk (maxGitConfigBytes)
	placeEnv      map[string]string   // the variables of Place.Env that locate configuration (vcsEnv)
	assigned      map[string][]string // the values the scripts give each variable, for arithmetic (arith.go)
	arithAll      bool                // a script may assign a name it computes: no variable is safe in arithmetic
	arithAsks     bool                // arithmetic on a value the check cannot see (ReasonArithmetic)
	appended      map[string]bool     // variables the scripts append to (X+=...)
	integers      map[string]bool     // variables a declare -i makes integers
	why           Reason
}

type function struct {
	body   *syntax.Stmt
	called bool
	active bool
}

func newChecker(at Place) *checker {
	// PWD and CDPATH stand for themselves until the script assigns them.
	c := &checker{vars: map[string]string{"PWD": "", "CDPATH": ""}, funcs: map[string]*function{},
		aliases: map[string]string{}, expanding: map[string]bool{}, appended: map[string]bool{}, integers: map[string]bool{},
		gitReadOnly: at.GitReadOnly, gitFiles: map[string]gitFile{}, written: map[string]bool{}, gitRunsSeen: map[string]bool{}, vcsFiles: map[string][]byte{}, placeEnv: map[string]string{}}
	for _, kv := range at.Env {
		k, v, _ := strings.Cut(kv, "=")
		if slices.Contains(vcsEnv, k) || strings.HasPrefix(k, "GIT_CONFIG") || k == "GIT_DIR" {
			c.placeEnv[k] = v
		}
		switch {
		case (k == "HOME" || k == "TMPDIR" || k == "XDG_CONFIG_HOME") && filepath.IsAbs(v):
			c.vars[k] = v
		case k == "CDPATH":
			delete(c.vars, k) // cd NAME may go anywhere
		}
	}
	if filepath.IsAbs(at.Cwd) {
		c.vcwd = filepath.Clean(at.Cwd)
		c.ws = c.roots(c.vcwd)
	}
	tmp := "/tmp"
	if v, ok := c.vars["TMPDIR"]; ok {
		tmp = v
	}
	c.tmp = c.roots(filepath.Clean(tmp))
	if h, ok := c.vars["HOME"]; ok {
		c.home = c.roots(filepath.Clean(h))
	}
	return c
}

// roots is a directory as given and with its symbolic links resolved.
func (c *checker) roots(dir string) []string {
	if r := resolve(dir, true); r != dir {
		return []string{dir, r}
	}
	return []string{dir}
}

// flag records the first reason found; the walk stops there.
func (c *checker) flag(r Reason) {
	if c.why == "" {
		c.why = r
	}
}

// step counts work; false (and the command asks) past maxSteps.
func (c *checker) step() bool {
	c.steps++
	return c.steps <= maxSteps
}

// nest runs f one level deeper; past maxDepth the command asks.
func (c *checker) nest(f func()) {
	if c.depth >= maxDepth {
		c.flag(ReasonTooDeep)
		return
	}
	c.depth++
	f()
	c.depth--
}

// subshell runs f and restores what a subshell cannot change in its parent.
func (c *checker) subshell(f func()) {
	vcwd, piped := c.vcwd, c.piped
	f()
	c.vcwd, c.piped = vcwd, piped
}

// parse parses a script as bash; nil when it does not parse.
func parse(src string) *syntax.File {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil
	}
	return f
}

// script checks a script run by a shell: the top-level command line, sh -c,
// eval and the like. params are its positional parameters (nil: unknown).
// keep runs it in this shell (eval, source): what it may assign stays
// unknown afterwards, and it shares the parameters.
func (c *checker) script(src string, params []field, keep bool) {
	f := parse(src)
	if f == nil {
		c.flag(ReasonUnparsable)
		return
	}
	saved, savedParams, savedDynamic := c.vars, c.params, c.dynamic
	if !keep {
		c.params, c.dynamic = params, false
	}
	c.forget(f)
	c.stmts(f.Stmts)
	if !keep {
		c.vars, c.params, c.dynamic = saved, savedParams, savedDynamic
	}
}

// assigners are the commands that may assign variables whose names come
// from their arguments; with an argument that is not a plain word, any
// variable may change.
var assigners = map[string]bool{
	"read": true, "printf": true, "mapfile": true, "readarray": true, "getopts": true,
	"unset": true, "wait": true, "let": true, "export": true, "declare": true,
	"typeset": true, "local": true, "readonly": true,
}

// rewriters may change any variable or the positional parameters.
var rewriters = map[string]bool{
	"eval": true, "source": true, ".": true, "set": true, "shift": true, "alias": true,
	"builtin": true, "command": true, "exec": true,
}

// forget makes unknown the variables a script may assign: one it names
// anywhere other than in an expansion of it (X=..., read X, for X in...),
// and all of them, with the positional parameters, when it may assign a
// name it computes (read "$n", declare -n, eval, source, set, shift, a
// command name that is not a plain word).
func (c *checker) forget(node syntax.Node) {
	expansions := map[*syntax.Lit]bool{}
	vars, all, cloned := c.vars, false, false
	drop := func(text string) {
		for k := range vars {
			if strings.Contains(text, k) {
				if !cloned {
					vars, cloned = maps.Clone(vars), true
				}
				delete(vars, k)
			}
		}
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			expansions[n.Param] = true
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil {
				drop(n.Param.Value)
				c.envData(n.Param.Value)
			}
		case *syntax.BinaryArithm: // let X=1, ((X+=1)): a number, assigned
			if w, ok := n.X.(*syntax.Word); ok && arithAssignOp(n.Op) {
				c.envData(w.Lit())
			}
		case *syntax.UnaryArithm: // ((X++))
			if w, ok := n.X.(*syntax.Word); ok && (n.Op == syntax.Inc || n.Op == syntax.Dec) {
				c.envData(w.Lit())
			}
		case *syntax.Lit:
			if !expansions[n] {
				drop(n.Value)
			}
		case *syntax.SglQuoted:
			drop(n.Value)
		case *syntax.Assign:
			c.recordAssign(n)
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil {
				c.assign(wi.Name.Value, unk)
				c.envData(wi.Name.Value)
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				break
			}
			name := plainWord(n.Args[0])
			args := n.Args[1:]
			if name == "" || rewriters[filepath.Base(name)] {
				all = true
				// command and builtin run the builtin they name: its
				// assignments are read as that builtin's.
				if w, wargs := unwrapBuiltin(name, args); w != "" && !rewriters[w] {
					name, args = w, wargs
				} else {
					c.arithAll = c.arithAll || (name != "set" && name != "shift") // those assign no named variable
				}
			}
			if base := filepath.Base(name); base == "printf" || base == "wait" {
				// Only the word after -v (wait's -p) is a name; a format
				// or a job is not.
				v, found, unseen := optName(base, args)
				switch {
				case found && v != "":
					drop(v)
				case found || unseen:
					all = true
				}
				c.arithAssigners(base, args)
			} else if assigners[filepath.Base(name)] {
				for _, a := range args {
					w := plainWord(a)
					drop(w)
					all = all || w == ""
				}
				c.arithAssigners(filepath.Base(name), args)
			}
		case *syntax.DeclClause:
			c.recordIntegers(n)
			for _, a := range n.Args {
				if a.Naked && a.Name == nil {
					w := plainWord(a.Value)
					drop(w)
					computed := w == "" || strings.HasPrefix(w, "-") && strings.Contains(w, "n") // a computed name, or a nameref
					all = all || computed
					c.arithAll = c.arithAll || computed
				}
			}
		}
		return true
	})
	if all {
		vars = map[string]string{}
		c.params, c.dynamic = nil, true
	}
	c.vars = vars
}

// plainWord is a word's text when it is literal (quotes allowed, no
// expansion, no brace); "" otherwise.
func plainWord(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return ""
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return ""
				}
				b.WriteString(l.Value)
			}
		default:
			return ""
		}
	}
	if strings.ContainsAny(b.String(), "{\\") {
		return ""
	}
	return b.String()
}

func (c *checker) stmts(list []*syntax.Stmt) {
	for _, st := range list {
		if c.why != "" || !c.step() {
			c.flag(ReasonTooDeep)
			return
		}
		c.stmt(st)
	}
}

func (c *checker) stmt(st *syntax.Stmt) {
	for _, r := range st.Redirs {
		c.substs(r)
		if writes(r.Op) {
			for _, f := range c.word(r.Word) {
				if device(c.abs(f)) {
					c.flag(ReasonDisk)
				}
				c.wrote(f)
			}
		}
	}
	if _, call := st.Cmd.(*syntax.CallExpr); !call && len(st.Redirs) > 0 {
		defer c.setStdin(c.stdin(st))() // { bash; } <<EOF, while ...; done < <(...)
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range cmd.Assigns {
			c.substs(a)
		}
		c.commandVars(cmd.Assigns)
		c.run(c.words(cmd.Args), c.stdin(st))
	case *syntax.Block:
		c.stmts(cmd.Stmts)
	case *syntax.Subshell:
		c.subshell(func() { c.stmts(cmd.Stmts) })
	case *syntax.BinaryCmd:
		if cmd.Op == syntax.Pipe || cmd.Op == syntax.PipeAll {
			c.subshell(func() { c.stmt(cmd.X) })
			c.subshell(func() { c.piped = true; c.stmt(cmd.Y) })
			return
		}
		c.stmt(cmd.X)
		c.stmt(cmd.Y)
	case *syntax.IfClause:
		c.ifClause(cmd)
	case *syntax.WhileClause:
		c.loop(func() { c.stmts(cmd.Cond); c.stmts(cmd.Do) })
	case *syntax.ForClause:
		switch l := cmd.Loop.(type) {
		case *syntax.WordIter:
			c.words(l.Items)
		default:
			c.substs(l)
		}
		c.loop(func() { c.stmts(cmd.Do) })
	case *syntax.CaseClause:
		c.word(cmd.Word)
		start, end := c.vcwd, c.vcwd
		for i, item := range cmd.Items {
			c.words(item.Patterns)
			c.vcwd = start
			c.stmts(item.Stmts)
			if i == 0 {
				end = c.vcwd
			} else if c.vcwd != end {
				end = ""
			}
		}
		c.vcwd = end
	case *syntax.FuncDecl:
		c.funcDecl(cmd)
	case *syntax.TimeClause:
		if cmd.Stmt != nil {
			c.stmt(cmd.Stmt)
		}
	case *syntax.CoprocClause:
		c.subshell(func() { c.stmt(cmd.Stmt) })
	case nil:
	case *syntax.DeclClause: // declare/export/local: only their substitutions run
		c.substs(cmd)
		c.commandVars(cmd.Args)
	default: // [[ ]], (( )), let: only their substitutions run
		c.substs(cmd)
	}
}

// unwrapBuiltin is the builtin that command or builtin (name) runs, and
// its arguments: the word after command's -p (command -v and -V only look
// up); "" when name is neither, or the word is not plain text.
func unwrapBuiltin(name string, args []*syntax.Word) (string, []*syntax.Word) {
	if name != "command" && name != "builtin" {
		return "", nil
	}
	for len(args) > 0 {
		switch w := plainWord(args[0]); {
		case name == "command" && w == "-p":
			args = args[1:]
		case w == "--":
			args = args[1:]
			if len(args) == 0 {
				return "", nil
			}
			return plainWord(args[0]), args[1:]
		case w == "" || strings.HasPrefix(w, "-"):
			return "", nil
		default:
			return w, args[1:]
		}
	}
	return "", nil
}

// wrote notes a path the script may write; an unknown one (or an unknown
// directory) may be any path.
func (c *checker) wrote(f field) {
	p := c.abs(f)
	if p == "" || strings.Contains(p, unk) {
		p = "/" // anything
	}
	c.written[p] = true
}

// mayWrite reports whether the script may write path p (or a directory
// above it, which a copy or a move may replace).
func (c *checker) mayWrite(p string) bool {
	for d := filepath.Clean(p); ; d = filepath.Dir(d) {
		if c.written[d] {
			return true
		}
		if d == "/" || d == "." {
			return false
		}
	}
}

// runVars are variables whose value a program runs as a shell command
// (a pager, an editor, git's ssh or diff program, bash's PROMPT_COMMAND).
var runVars = map[string]bool{
	"PAGER": true, "GIT_PAGER": true, "MANPAGER": true, "EDITOR": true, "VISUAL": true,
	"GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "GIT_SSH_COMMAND": true, "GIT_SSH": true,
	"GIT_EXTERNAL_DIFF": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "PROMPT_COMMAND": true,
	"HGEDITOR": true, "HGMERGE": true, "JJ_EDITOR": true, "GIT_PROXY_COMMAND": true,
	"LESSOPEN": true, "LESSCLOSE": true, "BROWSER": true,
}

// loadVars are variables that make a program load a file the check does
// not read: a script bash runs first (BASH_ENV, ENV), a library, or git
// configuration (which may name commands); or options it reads before its
// own arguments (GNU tar's TAR_OPTIONS may hold --remove-files).
var loadVars = map[string]bool{
	"BASH_ENV": true, "ENV": true, "LD_PRELOAD": true, "LD_AUDIT": true,
	"GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true, "GIT_CONFIG_GLOBAL": true,
	"GIT_CONFIG_SYSTEM": true, "GIT_CONFIG": true, "GIT_DIR": true, "GIT_COMMON_DIR": true,
	"XDG_CONFIG_HOME": true, "TAR_OPTIONS": true, "HGRCPATH": true, "SL_CONFIG_PATH": true, "JJ_CONFIG": true,
	"GH_CONFIG_DIR": true, "GLAB_CONFIG_DIR": true,
	// git: the programs it runs (git-remote-https...), the hooks a new
	// repository gets, transports that run commands (ext::).
	"GIT_EXEC_PATH": true, "GIT_TEMPLATE_DIR": true, "GIT_ALLOW_PROTOCOL": true,
}

// commandVars checks assignments (before a command, alone, or exported)
// to variables that make a later program run a command: the command a
// runVars value holds is checked; a loadVars value asks.
func (c *checker) commandVars(assigns []*syntax.Assign) {
	for _, a := range assigns {
		if a.Name == nil {
			continue
		}
		var val string
		known := true
		if a.Value != nil {
			val = plainWord(a.Value)
			known = val != "" || len(a.Value.Parts) == 0
		}
		c.envVar(a.Name.Value, val, known)
	}
}

// envVar checks one variable given to a command's environment, by an
// assignment or by env NAME=VALUE: the command a runVars value holds is
// checked; a loadVars value asks.
func (c *checker) envVar(name, val string, known bool) {
	switch {
	case c.why != "":
	case runVars[name] && !known:
		c.flag(ReasonOpaque)
	case runVars[name]:
		c.nested(val, nil, false)
	case loadVar(name) && (val != "" || !known):
		c.flag(ReasonOpaque)
	}
}

// loadVar reports whether a variable makes a program load what the check
// does not read: loadVars, and each of git's GIT_CONFIG_KEY_n and
// GIT_CONFIG_VALUE_n (GIT_CONFIG_NOSYSTEM only leaves a file out).
func loadVar(name string) bool {
	return loadVars[name] || strings.HasPrefix(name, "GIT_CONFIG_") && name != "GIT_CONFIG_NOSYSTEM"
}

// envData notes a variable the script assigns from data or arithmetic
// (read, mapfile, getopts, printf -v, for NAME in, ${NAME:=...}, let,
// ((NAME=...))): when a program runs (runVars) or loads (loadVar) what it
// holds, the command asks, since its value is not seen.
func (c *checker) envData(name string) {
	if runVars[name] || loadVar(name) {
		c.flag(ReasonOpaque)
	}
}

// arithAssignOp reports whether an arithmetic operator assigns its left
// operand.
func arithAssignOp(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
		return true
	}
	return false
}

func (c *checker) ifClause(ic *syntax.IfClause) {
	c.stmts(ic.Cond)
	start := c.vcwd
	c.stmts(ic.Then)
	then := c.vcwd
	c.vcwd = start
	if ic.Else != nil {
		c.ifClause(ic.Else)
	}
	if c.vcwd != then {
		c.vcwd = ""
	}
}

// loop checks a loop body; when it moves the directory, a second pass
// checks it from an unknown one.
func (c *checker) loop(body func()) {
	start := c.vcwd
	body()
	if c.vcwd != start {
		c.vcwd = ""
		body()
	}
}

// writes reports whether a redirection writes its target.
func writes(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut, syntax.DplOut:
		return true
	}
	return false
}

// input is what a command reads on stdin, as far as the text tells.
type input struct {
	text  string // a here-document or here-string
	given bool   // text is set
	pipe  bool   // a pipe: unknown
}

// stdin is what a statement's stdin is after its redirections, applied
// in order; those of another descriptor (3<file, {fd}<file) leave it.
func (c *checker) stdin(st *syntax.Stmt) input {
	in := input{pipe: c.piped}
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			in = input{text: c.hdoc(r), given: true}
		case syntax.WordHdoc:
			in = input{text: unk, given: true}
			if fs := c.word(r.Word); len(fs) == 1 {
				in.text = fs[0].text + "\n"
			}
		case syntax.RdrIn, syntax.RdrInOut:
			in = c.fileInput(r.Word, in)
		case syntax.DplIn:
			switch r.Word.Lit() {
			case "0": // <&0: stdin stays
			case "-": // <&-: closed
				in = input{}
			default: // another descriptor, opened from anything
				in = input{pipe: true}
			}
		}
	}
	return in
}

// setStdin makes in the stdin of the commands checked until the function
// it returns is called: a block's, a loop's, a function's or an alias's
// redirected stdin is not told to each command inside; a shell among them
// reading it asks.
func (c *checker) setStdin(in input) (restore func()) {
	piped := c.piped
	c.piped = in.pipe || in.given
	return func() { c.piped = piped }
}

// fileInput is stdin read from the file a redirection names, in being
// stdin before it: /dev/stdin and its other names keep it; another
// descriptor, a process substitution, bash's /dev/tcp and /dev/udp, or a
// name the check cannot read are a stream it cannot see (as a pipe); a
// file is not read, as a script file operand is not.
func (c *checker) fileInput(w *syntax.Word, in input) input {
	var f field
	c.parts(&f, w.Parts, false)
	p := clean(c.abs(f))
	switch {
	case p == "" || f.glob:
		return input{pipe: true}
	case p == "/dev/stdin" || p == "/dev/fd/0" || p == "/proc/self/fd/0":
		return in
	case strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/") ||
		strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/"):
		return input{pipe: true}
	}
	return input{}
}

// hdoc is a here-document's text: literal under a quoted delimiter,
// expanded (as in double quotes) otherwise.
func (c *checker) hdoc(r *syntax.Redirect) string {
	if r.Hdoc == nil {
		return ""
	}
	if r.Word.Lit() == "" { // quoted delimiter
		var b strings.Builder
		for _, p := range r.Hdoc.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			} else {
				b.WriteString(unk)
			}
		}
		return b.String()
	}
	var f field
	c.parts(&f, r.Hdoc.Parts, true)
	return f.text
}

// abs makes a known field an absolute, uncleaned path; "" when unknown.
func (c *checker) abs(f field) string {
	if !f.known() || f.text == "" {
		return ""
	}
	if filepath.IsAbs(f.text) {
		return f.text
	}
	if c.vcwd == "" {
		return ""
	}
	return c.vcwd + "/" + f.text
}

func (c *checker) funcDecl(fd *syntax.FuncDecl) {
	names := append([]*syntax.Lit{fd.Name}, fd.Names...)
	for _, n := range names {
		if n == nil {
			continue
		}
		if forkBomb(n.Value, fd.Body) {
			c.flag(ReasonForkBomb)
			return
		}
		c.funcs[n.Value] = &function{body: fd.Body}
	}
}

// forkBomb reports whether body pipes a call of name into another.
func forkBomb(name string, body *syntax.Stmt) bool {
	calls := func(s *syntax.Stmt) bool {
		ce, ok := s.Cmd.(*syntax.CallExpr)
		return ok && len(ce.Args) > 0 && ce.Args[0].Lit() == name
	}
	found := false
	syntax.Walk(body, func(n syntax.Node) bool {
		if b, ok := n.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && calls(b.X) && calls(b.Y) {
			found = true
		}
		return !found
	})
	return found
}

// call checks a function body with its arguments as positional parameters.
// A recursive call is not followed again.
func (c *checker) call(fn *function, args []field) {
	if fn.active {
		return
	}
	fn.called, fn.active = true, true
	saved := c.params
	c.params = args
	if c.dynamic {
		c.params = nil
	}
	c.nest(func() { c.stmt(fn.body) })
	c.params = saved
	fn.active = false
}

// uncalled checks the functions never called by name (a trap, "$f", a
// child shell may still run them), with unknown arguments.
func (c *checker) uncalled() {
	for _, fn := range c.funcs {
		if !fn.called && c.why == "" {
			c.params = nil
			c.vcwd = ""
			c.call(fn, nil)
		}
	}
}

// scriptWithArgs checks a command text that takes more arguments (an
// alias, env -S): the arguments extend its last simple command.
func (c *checker) scriptWithArgs(src string, extra []field) {
	f := parse(src)
	if f == nil {
		c.flag(ReasonUnparsable)
		return
	}
	c.forget(f)
	c.nest(func() {
		n := len(f.Stmts)
		if n == 0 {
			c.run(extra, input{pipe: c.piped})
			return
		}
		c.stmts(f.Stmts[:n-1])
		last := f.Stmts[n-1]
		ce, ok := last.Cmd.(*syntax.CallExpr)
		if !ok {
			c.stmt(last)
			if len(extra) > 0 {
				c.flag(ReasonOpaque)
			}
			return
		}
		for _, r := range last.Redirs {
			c.substs(r)
		}
		for _, a := range ce.Assigns {
			c.substs(a)
		}
		c.commandVars(ce.Assigns)
		c.run(append(c.words(ce.Args), extra...), c.stdin(last))
	})
}
