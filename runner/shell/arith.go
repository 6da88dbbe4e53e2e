package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates a variable's value as an arithmetic expression wherever
// arithmetic happens ($((X)), ((X)), let, [[ X -eq 0 ]], a declare -i
// variable's assignments, an indexed array's subscript, ${V:X:Y}), and an
// array subscript in that value runs the command substitutions it holds:
// X='a[$(cmd)]'; echo $((X)) runs cmd. So an arithmetic context that names
// a variable asks unless each value the script gives the variable is known
// to be safe: text with no expansion, quote or backslash whose names are in
// turn safe (3, n+1, 16#ff, a chain of such names), a single $NAME of a safe
// name, or an arithmetic result. A name the script assigns in any other way
// (read, mapfile, printf -v, for NAME in, $(...), a concatenation...) is not
// safe anywhere in the script: the check does not follow the order of
// assignments. A name the script never assigns comes from the agent's own
// environment (RANDOM, LINES...), not from the repository: it is safe,
// unless the script may assign names it computes (eval, source, declare -n,
// read "$n"...), or bash sets it from data (implicit).

// implicit are the variables bash assigns from data the check does not see:
// what read, getopts, mapfile or [[ =~ ]] read, the command text, directory
// names.
var implicit = map[string]bool{
	"REPLY": true, "OPTARG": true, "MAPFILE": true, "BASH_REMATCH": true, "_": true, "COPROC": true,
	"READLINE_LINE": true, "BASH_COMMAND": true, "BASH_EXECUTION_STRING": true, "BASH_ARGV": true,
	"BASH_ARGV0": true, "BASH_SOURCE": true, "FUNCNAME": true, "DIRSTACK": true, "PWD": true, "OLDPWD": true,
}

// assign records a value the script gives a variable (unk: not known).
func (c *checker) assign(name, value string) {
	if c.assigned == nil {
		c.assigned = map[string][]string{}
	}
	c.assigned[name] = append(c.assigned[name], value)
}

// assignValue is a value word as arithmetic reads it: literal text, the
// name of a single $NAME, 0 for an arithmetic result; unk otherwise.
func assignValue(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	if len(w.Parts) == 1 {
		if p, ok := w.Parts[0].(*syntax.ParamExp); ok && plainParam(p) && isName(p.Param.Value) {
			return p.Param.Value
		}
	}
	if v, ok := constText(w.Parts); ok {
		return v
	}
	return unk
}

// constText is the text of word parts with no expansion but arithmetic
// (whose value is a number, written 0); false when there is one. A
// literal's backslashes are kept.
func constText(ps []syntax.WordPart) (string, bool) {
	var b strings.Builder
	for _, p := range ps {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			v, ok := constText(p.Parts)
			if !ok {
				return "", false
			}
			b.WriteString(v)
		case *syntax.ArithmExp:
			b.WriteString("0")
		default:
			return "", false
		}
	}
	return b.String(), true
}

// plainParam reports whether p is $NAME or ${NAME}: no operator.
func plainParam(p *syntax.ParamExp) bool {
	return p.Param != nil && !p.Excl && !p.Length && !p.Width && p.Index == nil && p.Slice == nil &&
		p.Repl == nil && p.Names == 0 && p.Exp == nil && p.NestedParam == nil && p.Flags == nil && len(p.Modifiers) == 0
}

func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
}

// recordAssign notes the values an assignment gives (forget calls it for
// every assignment of a script, before the script is checked).
func (c *checker) recordAssign(a *syntax.Assign) {
	if a.Name == nil || a.Naked {
		return
	}
	if a.Append { // X+=b: the text joins what X held (a + b is the name ab)
		c.appended[a.Name.Value] = true
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			c.assign(a.Name.Value, assignValue(e.Value))
		}
		return
	}
	c.assign(a.Name.Value, assignValue(a.Value))
}

// arithName reports whether evaluating the variable name in arithmetic
// runs nothing the check cannot see. seen breaks cycles (bash stops those
// with an error).
func (c *checker) arithName(name string, seen map[string]bool) bool {
	if c.arithAll || implicit[name] {
		return false
	}
	if c.appended[name] && !c.integers[name] { // an integer's += adds
		return false
	}
	vals, ok := c.assigned[name]
	if !ok || seen[name] {
		return true // the agent's environment, or already being checked
	}
	seen[name] = true
	for _, v := range vals {
		if !c.arithText(v, seen) {
			return false
		}
	}
	return true
}

// arithText reports whether the text, evaluated as arithmetic, runs
// nothing: no expansion, quote or backslash, and every name in it safe
// (a subscript is arithmetic too: its names are among them).
func (c *checker) arithText(s string, seen map[string]bool) bool {
	if strings.ContainsAny(s, "$`\\'\"\x00") {
		return false
	}
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch >= '0' && ch <= '9': // a number: 10, 0x1f, 64#a_@
			for i < len(s) && (isWordByte(s[i]) || s[i] == '#' || s[i] == '@') {
				i++
			}
		case isWordByte(ch):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			if !c.arithName(s[i:j], seen) {
				return false
			}
			i = j
		default:
			i++
		}
	}
	return true
}

func isWordByte(ch byte) bool {
	return ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9'
}

// arithWord checks a word bash evaluates as arithmetic: its literal text,
// the values of the variables it expands, and no command's output. The
// subscripts and nested expressions inside it are checked by the walk
// that found it (arithNode).
func (c *checker) arithWord(w *syntax.Word) {
	if w != nil && !c.arithParts(w.Parts) {
		c.arithAsks = true
	}
}

func (c *checker) arithParts(ps []syntax.WordPart) bool {
	for _, p := range ps {
		switch p := p.(type) {
		case *syntax.Lit:
			if !c.arithText(p.Value, map[string]bool{}) {
				return false
			}
		case *syntax.SglQuoted:
			if p.Dollar || !c.arithText(p.Value, map[string]bool{}) {
				return false
			}
		case *syntax.DblQuoted:
			if !c.arithParts(p.Parts) {
				return false
			}
		case *syntax.ArithmExp: // a number
		case *syntax.ParamExp:
			if !c.arithParam(p) {
				return false
			}
		default: // a command's output, a process substitution...
			return false
		}
	}
	return true
}

// arithParam reports whether an expansion's value is safe in arithmetic:
// a length is a number; $NAME, ${NAME} and ${NAME[i]} are their
// variable's values; positional parameters when known; $#, $?, $$, $!, $-.
func (c *checker) arithParam(p *syntax.ParamExp) bool {
	if p.Param == nil || p.NestedParam != nil {
		return false
	}
	if p.Length && p.Exp == nil && p.Repl == nil && p.Slice == nil && len(p.Modifiers) == 0 {
		return true
	}
	bare := *p // ${a[i]} is a's value: i is checked where the walk finds it
	bare.Index = nil
	if !plainParam(&bare) {
		return false
	}
	name := p.Param.Value
	switch {
	case name == "#" || name == "?" || name == "$" || name == "!" || name == "-":
		return true
	case name == "@" || name == "*" || len(name) == 1 && name[0] >= '1' && name[0] <= '9':
		if c.params == nil {
			return false
		}
		for k, f := range c.params {
			if (name == "@" || name == "*" || int(name[0]-'1') == k) && (!f.known() || !c.arithText(f.text, map[string]bool{})) {
				return false
			}
		}
		return true
	case isName(name):
		return c.arithName(name, map[string]bool{})
	}
	return false
}

// arithOps are the operators of [[ ]] that compare their operands as
// arithmetic.
var arithOps = map[syntax.BinTestOperator]bool{
	syntax.TsEql: true, syntax.TsNeq: true, syntax.TsLeq: true, syntax.TsGeq: true, syntax.TsLss: true, syntax.TsGtr: true,
}

// arithNode checks the arithmetic contexts a node of a walk opens (substs
// walks every node of a word or command): $((...)), $[...], ((...)), let,
// for ((...)), subscripts of ${a[i]} and a[i]=, ${V:X:Y}, the operands of
// [[ -eq ]] and its kin, and the variables declare -i makes arithmetic.
func (c *checker) arithNode(n syntax.Node) {
	c.nameNode(n)
	switch n := n.(type) {
	case *syntax.ArithmExp:
		c.arithExpr(n.X)
	case *syntax.ArithmCmd:
		c.arithExpr(n.X)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			c.arithExpr(x)
		}
	case *syntax.CStyleLoop:
		c.arithExpr(n.Init)
		c.arithExpr(n.Cond)
		c.arithExpr(n.Post)
	case *syntax.ParamExp:
		if n.Index != nil && !isAll(n.Index) {
			c.arithExpr(n.Index)
		}
		if n.Slice != nil {
			c.arithExpr(n.Slice.Offset)
			c.arithExpr(n.Slice.Length)
		}
	case *syntax.Assign:
		c.arithExpr(n.Index)
		if n.Array != nil {
			for _, e := range n.Array.Elems {
				c.arithExpr(e.Index)
			}
		}
	case *syntax.BinaryTest:
		if arithOps[n.Op] {
			for _, x := range []syntax.TestExpr{n.X, n.Y} {
				if w, ok := x.(*syntax.Word); ok {
					c.arithWord(w)
				}
			}
		}
	case *syntax.DeclClause:
		if !integerDecl(n) {
			return
		}
		for _, a := range n.Args {
			name := ""
			switch {
			case a.Name != nil:
				name = a.Name.Value
			case a.Naked:
				name = plainWord(a.Value)
			}
			if isName(name) && !c.arithName(name, map[string]bool{}) {
				c.arithAsks = true
			}
		}
	}
}

// recordIntegers notes the names a declare -i gives the integer
// attribute: their += adds.
func (c *checker) recordIntegers(d *syntax.DeclClause) {
	if !integerDecl(d) {
		return
	}
	for _, a := range d.Args {
		switch {
		case a.Name != nil:
			c.integers[a.Name.Value] = true
		case a.Naked:
			c.integers[plainWord(a.Value)] = true
		}
	}
}

// integerDecl reports whether a declare, local or typeset gives the
// integer attribute.
func integerDecl(d *syntax.DeclClause) bool {
	for _, a := range d.Args {
		if !a.Naked || a.Name != nil {
			continue
		}
		w := plainWord(a.Value)
		if strings.HasPrefix(w, "-") && strings.Contains(w, "i") { // an unknown word asks (nameNode)
			return true
		}
	}
	return false
}

// arithExpr checks the words of an arithmetic expression.
func (c *checker) arithExpr(x syntax.ArithmExpr) {
	if x == nil || x == syntax.ArithmExpr((*syntax.Word)(nil)) {
		return
	}
	syntax.Walk(x, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			c.arithWord(w)
			return false
		}
		return c.why == ""
	})
}

// arithAssigners notes the names a command that assigns variables from
// data (read, mapfile, getopts, printf -v, wait -p...) may assign: their
// values are not known. printf and wait assign only the name after -v
// and -p; the others any word, and a word the check cannot read may be
// any name.
func (c *checker) arithAssigners(name string, args []*syntax.Word) {
	if name == "printf" || name == "wait" {
		v, found, unseen := optName(name, args)
		switch {
		case found && v != "":
			v, _, _ = strings.Cut(v, "[")
			c.assign(v, unk)
			c.envData(v)
		case found || unseen:
			c.arithAll = true
		}
		return
	}
	declares := name == "declare" || name == "typeset" || name == "local" || name == "export" || name == "readonly"
	for _, a := range args {
		w := plainWord(a)
		if declares { // NAME=VALUE gives VALUE; NAME alone gives nothing
			if lit, ok := a.Parts[0].(*syntax.Lit); ok && w == "" && isName(strings.SplitN(lit.Value, "=", 2)[0]) && strings.Contains(lit.Value, "=") {
				c.assign(strings.SplitN(lit.Value, "=", 2)[0], unk) // a value not plain text
				continue
			}
			if n, v, ok := strings.Cut(w, "="); ok && isName(n) {
				c.assign(n, v)
				c.envData(n)
				continue
			}
			if isName(w) || isOption(lit(w)) && !strings.Contains(w, "n") {
				continue
			}
		}
		if w == "" {
			c.arithAll = true
			continue
		}
		n, _, _ := strings.Cut(w, "=")
		n, _, _ = strings.Cut(n, "[")
		c.assign(n, unk)
		if name != "unset" && !isOption(lit(w)) {
			c.envData(n)
		}
	}
}

// optName finds the variable printf -v NAME or wait -p NAME assigns among
// a call's arguments, as bash reads their options: printf's -v only
// before its format (-vNAME too), wait's -p in a cluster (-np NAME) among
// -f and -n, up to an operand or "--". found says an option names one;
// name is its word, "" when the word is not plain text. unseen says a
// word the check cannot read (quoted, escaped: -\v, or an expansion) may
// be the option.
func optName(cmd string, args []*syntax.Word) (name string, found, unseen bool) {
	opt, flags := byte('v'), ""
	if cmd == "wait" {
		opt, flags = 'p', "fn"
	}
	for i, a := range args {
		w := plainWord(a)
		if w == "" {
			v, ok := constText(a.Parts)
			return "", false, !ok || strings.HasPrefix(v, "-")
		}
		if w == "--" || len(w) < 2 || w[0] != '-' {
			return "", false, false
		}
		for k := 1; k < len(w); k++ {
			switch {
			case w[k] == opt && k+1 < len(w):
				return w[k+1:], true, false
			case w[k] == opt && i+1 < len(args):
				return plainWord(args[i+1]), true, false
			case w[k] == opt:
				return "", false, false // no name: bash refuses it
			case strings.IndexByte(flags, w[k]) < 0:
				return "", false, false // not an option: bash refuses it
			}
		}
	}
	return "", false, false
}

// A variable's name is evaluated too where a command takes one: read,
// printf -v, unset, test -v, [[ -v ]], declare/local/typeset NAME=...,
// ${!X} (the name X holds) and a nameref's target. The subscript of such a
// name is arithmetic, and bash expands it first: read 'a[$(cmd)]' runs
// cmd. A name the check cannot see, or whose subscript holds an expansion
// or a name that is not safe, asks.

// nameField checks a name a command is given (name, or name=value when
// assign is set).
func (c *checker) nameField(f field, assign bool) {
	t := f.text
	if assign {
		t, _, _ = strings.Cut(t, "=")
	}
	if strings.Contains(t, unk) {
		c.arithAsks = true
		return
	}
	if _, sub, ok := strings.Cut(t, "["); ok && !c.arithText(sub, map[string]bool{}) {
		c.arithAsks = true
	}
}

// readArgOpts are the options of read that take an argument (the last of
// a cluster: read -rp PROMPT).
const readArgOpts = "adinNptu"

// nameArgs checks the names the builtins that take variable names are
// given.
func (c *checker) nameArgs(name string, args []field) {
	switch name {
	case "read":
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case isOption(a): // a name cannot start with -: after --, bash refuses it before reading
				if strings.IndexByte(readArgOpts, a.text[len(a.text)-1]) >= 0 {
					if a.text[len(a.text)-1] == 'a' && i+1 < len(args) {
						c.nameField(args[i+1], false)
					}
					i++
				}
			default:
				c.nameField(a, false)
			}
		}
	case "printf":
		for i, a := range args {
			switch {
			case a.text == "-v" && i+1 < len(args):
				c.nameField(args[i+1], false)
			case strings.HasPrefix(a.text, "-v") && len(a.text) > 2:
				c.nameField(field{text: a.text[2:]}, false)
			}
		}
	case "unset":
		for _, a := range args {
			if shortFlag(a, 'f') {
				return // functions
			}
		}
		for _, a := range operands(args) {
			c.nameField(a, false)
		}
	case "let": // let reached through a word the parser does not read as let (builtin let, \let)
		for _, a := range args {
			if !c.arithText(a.text, map[string]bool{}) {
				c.arithAsks = true
			}
		}
	case "declare", "typeset", "local": // reached the same way: command declare...
		integer := false
		for _, a := range args {
			integer = integer || shortFlag(a, 'i') // an unseen word asks: nameField
		}
		for _, a := range operands(args) {
			c.nameField(a, true)
			// An integer's value here, and each value the script gives
			// it elsewhere (bash evaluates them all), as the parsed
			// declare -i is checked (arithNode).
			n, v, ok := strings.Cut(a.text, "=")
			if integer && (ok && !c.arithText(v, map[string]bool{}) || isName(n) && !c.arithName(n, map[string]bool{})) {
				c.arithAsks = true
			}
		}
	case "test", "[":
		for i, a := range args {
			if a.text == "-v" && i+1 < len(args) {
				c.nameField(args[i+1], false)
			}
		}
	}
}

// nameNode checks the names of the nodes a walk meets: [[ -v NAME ]],
// declare NAME=..., ${!X}, declare -n R=TARGET.
func (c *checker) nameNode(n syntax.Node) {
	word := func(w *syntax.Word, assign bool) {
		var f field
		c.parts(&f, w.Parts, false)
		c.nameField(f, assign)
	}
	switch n := n.(type) {
	case *syntax.UnaryTest:
		if w, ok := n.X.(*syntax.Word); ok && n.Op == syntax.TsVarSet {
			word(w, false)
		}
	case *syntax.ParamExp:
		if n.Excl && n.Names == 0 && n.Param != nil && (n.Index == nil || !isAll(n.Index)) {
			if !c.arithName(n.Param.Value, map[string]bool{}) {
				c.arithAsks = true
			}
		}
	case *syntax.DeclClause:
		if n.Variant.Value == "export" || n.Variant.Value == "readonly" {
			return // they take no subscript
		}
		nameref := false
		for _, a := range n.Args {
			if a.Naked && a.Name == nil {
				if w := plainWord(a.Value); strings.HasPrefix(w, "-") {
					nameref = nameref || strings.Contains(w, "n")
					continue
				}
				word(a.Value, true)
			} else if nameref && a.Name != nil && a.Value != nil {
				word(a.Value, false) // the target's name
			}
		}
	}
}

// isAll reports whether a subscript is @ or *.
func isAll(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}
