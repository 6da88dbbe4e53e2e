package shell

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// unk stands for text not known before the command runs (a variable, a
// command substitution's output...). A NUL cannot occur in an argument.
const unk = "\x00"

// field is one argument as bash would pass it, as far as the text tells.
type field struct {
	text  string // the value; unk marks unknown parts
	split bool   // holds an unquoted unknown part: may be several arguments, or none
	glob  bool   // holds an unquoted *, ? or [: pathname expansion applies
}

func (f field) known() bool { return !strings.Contains(f.text, unk) }

// lit is a known field with text s.
func lit(s string) field { return field{text: s} }

// unknown is an argument whose value is not known.
var unknown = field{text: unk}

// words expands a command's words into its arguments.
func (c *checker) words(ws []*syntax.Word) []field {
	var out []field
	for _, w := range ws {
		out = append(out, c.word(w)...)
	}
	return out
}

// word expands one word: its command substitutions are checked, braces
// are expanded, then each resulting word is read part by part. A word
// that expands to nothing (an unquoted empty variable) yields no field.
func (c *checker) word(w *syntax.Word) []field {
	c.substs(w)
	syntax.SplitBraces(w)
	var out []field
	for bw, err := range expand.BracesSeq(nil, w) {
		if err != nil || !c.step() {
			c.flag(ReasonTooDeep)
			return out
		}
		var f field
		quoted := c.parts(&f, bw.Parts, false)
		if f.text != "" || quoted {
			out = append(out, f)
		}
	}
	return out
}

// parts appends the values of word parts to f; inDq is true inside double
// quotes. It reports whether any part was quoted (an empty quoted word is
// still an argument).
func (c *checker) parts(f *field, ps []syntax.WordPart, inDq bool) (quoted bool) {
	for i, p := range ps {
		switch p := p.(type) {
		case *syntax.Lit:
			s := p.Value
			if i == 0 && !inDq && strings.HasPrefix(s, "~") {
				s = c.tilde(s, len(ps) > 1)
			}
			f.text += unescape(s, inDq, &f.glob)
		case *syntax.SglQuoted:
			quoted = true
			v := p.Value
			if p.Dollar { // $'...': ANSI-C escapes
				v, _, _ = expand.Format(&expand.Config{}, v, nil)
				v, _, _ = strings.Cut(v, "\x00")
			}
			f.text += v
		case *syntax.DblQuoted: // $"..." too: without a message catalog it is "..."
			quoted = true
			c.parts(f, p.Parts, true)
		case *syntax.ParamExp:
			c.value(f, c.param(p), inDq)
		case *syntax.CmdSubst:
			c.value(f, c.cmdSubstValue(p), inDq)
		case *syntax.ArithmExp: // a number: one argument, unknown
			f.text += unk
		case *syntax.ProcSubst:
			f.text += "/dev/fd/63"
		case *syntax.ExtGlob:
			f.text += p.Op.String() + p.Pattern.Value + ")"
			f.glob = true
		default:
			f.text += unk
			f.split = true
		}
	}
	return quoted
}

// value appends an expansion's value: unknown ones are unk, and unquoted
// they may split into several arguments or glob.
func (c *checker) value(f *field, v string, inDq bool) {
	if !inDq && (v == unk || strings.ContainsAny(v, " \t\n*?[")) {
		f.text += unk
		f.split = true
		return
	}
	f.text += v
}

// unescape removes the backslashes of unquoted text (inDq false) or of
// double-quoted text, and notes unquoted glob characters.
func unescape(s string, inDq bool, glob *bool) string {
	if !strings.ContainsAny(s, `\*?[`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s) && (!inDq || strings.IndexByte("$`\"\\\n", s[i+1]) >= 0):
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		case !inDq && (ch == '*' || ch == '?' || ch == '['):
			*glob = true
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// tilde expands a leading ~, ~/..., ~+ (the directory) of an unquoted
// word; ~user and ~- are unknown. more says other parts follow the
// literal, which then ends the prefix only at a slash.
func (c *checker) tilde(s string, more bool) string {
	prefix, rest, slash := strings.Cut(s, "/")
	if !slash && more {
		return s // ~"x": the prefix is quoted, no expansion
	}
	if slash {
		rest = "/" + rest
	}
	switch prefix {
	case "~":
		if h, ok := c.vars["HOME"]; ok {
			return h + rest
		}
	case "~+":
		if c.vcwd != "" {
			return c.vcwd + rest
		}
	}
	return unk + rest
}

// param is the value of a parameter expansion: HOME and TMPDIR from the
// environment given, PWD the directory, positional parameters when known;
// anything else (and any operator: ${X:-y}, ${#X}...) is unknown.
func (c *checker) param(p *syntax.ParamExp) string {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil ||
		p.Repl != nil || p.Names != 0 || p.Exp != nil || p.NestedParam != nil || p.Flags != nil || len(p.Modifiers) > 0 {
		return unk
	}
	name := p.Param.Value
	switch {
	case name == "PWD":
		if _, ok := c.vars["PWD"]; ok && c.vcwd != "" {
			return c.vcwd
		}
	case name == "@" || name == "*":
		if c.params != nil && len(c.params) == 0 {
			return ""
		}
	case len(name) == 1 && name[0] >= '1' && name[0] <= '9':
		if c.params != nil {
			if n := int(name[0] - '0'); n <= len(c.params) {
				if f := c.params[n-1]; f.known() && !f.glob {
					return f.text
				}
				return unk
			}
			return ""
		}
	default:
		if v, ok := c.vars[name]; ok {
			return v
		}
	}
	return unk
}

// cmdSubstValue is the output of $(pwd) (the directory); others are unknown.
func (c *checker) cmdSubstValue(cs *syntax.CmdSubst) string {
	if len(cs.Stmts) == 1 && c.vcwd != "" {
		if ce, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(ce.Args) == 1 && ce.Args[0].Lit() == "pwd" {
			return c.vcwd
		}
	}
	return unk
}

// substs checks the commands that command and process substitutions
// inside node run; each runs in a subshell. The arithmetic contexts it
// meets are checked too (arith.go). A prompt expansion (${X@P})
// runs the command substitutions its value holds: it asks.
func (c *checker) substs(node syntax.Node) {
	syntax.Walk(node, func(n syntax.Node) bool {
		if c.why != "" {
			return false
		}
		c.arithNode(n)
		switch n := n.(type) {
		case *syntax.ParamExp:
			if n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && n.Exp.Word.Lit() == "P" {
				c.flag(ReasonOpaque)
				return false
			}
		case *syntax.CmdSubst:
			c.subshell(func() { c.nest(func() { c.stmts(n.Stmts) }) })
			return false
		case *syntax.ProcSubst:
			c.subshell(func() { c.nest(func() { c.stmts(n.Stmts) }) })
			return false
		}
		return true
	})
}
