package shell

import "strings"

// A small POSIX-shell reader for the destructive-command check: enough of
// the grammar to find the simple commands a command line runs and their
// words after quote removal, not an interpreter. It never fails: an
// unterminated quote or substitution ends at the end of input, so a broken
// line is checked as far as it goes.
//
// Expansions the check cares about become markers (a NUL byte, which no
// shell word can hold, and a letter): $HOME, ${HOME} and a leading ~ are
// markHome; $PWD, ${PWD}, $(pwd), `pwd` and ~+ are markPwd; ~user is
// markUser; ${X:?...} (fails when unset) is markSet; every other parameter,
// command or arithmetic substitution is markVar. Command substitutions are
// parsed too and their commands listed before the command they appear in
// (they run first).

const (
	markHome = "\x00H"
	markPwd  = "\x00P"
	markUser = "\x00U"
	markSet  = "\x00S"
	markVar  = "\x00V"
)

// maxShellDepth bounds nesting of substitutions, sh -c and eval. Deeper
// input is treated as destructive rather than left unchecked.
const maxShellDepth = 16

// word is one shell word after quote removal.
type word struct {
	text   string
	glob   bool // an unquoted *, ? or [ (the shell expands it)
	quoted bool // some part was quoted or escaped
}

// redir is one redirection: its operator and target.
type redir struct {
	op     string
	target word
}

// command is one simple command.
type command struct {
	args   []word
	redirs []redir
	body   string // here-document text fed to it, if any
}

type heredoc struct {
	delim string
	strip bool // <<- strips leading tabs
	cmd   *command
}

type parser struct {
	s        string
	i        int
	depth    int
	cmds     *[]*command
	tooDeep  *bool
	heredocs []heredoc
}

// parseShell returns the simple commands of s in the order they start, and
// whether nesting went past maxShellDepth.
func parseShell(s string, depth int) ([]*command, bool) {
	var cmds []*command
	tooDeep := depth > maxShellDepth
	if !tooDeep {
		p := &parser{s: s, depth: depth, cmds: &cmds, tooDeep: &tooDeep}
		p.list(false)
	}
	return cmds, tooDeep
}

// list reads commands until the end of input or, when inSub, the ")" that
// closes a $( substitution.
func (p *parser) list(inSub bool) {
	cur := &command{}
	finish := func() {
		if len(cur.args) > 0 || len(cur.redirs) > 0 {
			*p.cmds = append(*p.cmds, cur)
		}
		cur = &command{}
	}
	parens := 0
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '\n':
			p.i++
			finish()
			p.readHeredocs()
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '&' && p.peek(1) == '>':
			p.redirect(cur)
		case c == ';' || c == '&' || c == '|':
			p.i++
			finish()
		case c == '(':
			parens++
			p.i++
			finish()
		case c == ')':
			p.i++
			finish()
			if inSub {
				if parens == 0 {
					return
				}
				parens--
			}
		case c == '<' || c == '>':
			p.redirect(cur)
		default:
			start := p.i
			w := p.word()
			if p.i < len(p.s) && (p.s[p.i] == '<' || p.s[p.i] == '>') && !w.quoted && isDigits(w.text) {
				p.redirect(cur) // 2>file: the digits name a descriptor
				continue
			}
			if p.i == start {
				p.i++ // not reachable with the cases above; never loop forever
				continue
			}
			cur.args = append(cur.args, w)
		}
	}
	finish()
}

func (p *parser) peek(n int) byte {
	if p.i+n < len(p.s) {
		return p.s[p.i+n]
	}
	return 0
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

var redirOps = []string{"&>>", "<<<", "<<-", "&>", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">"}

func (p *parser) redirect(cur *command) {
	op := ">"
	for _, o := range redirOps {
		if strings.HasPrefix(p.s[p.i:], o) {
			op = o
			break
		}
	}
	p.i += len(op)
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
	target := p.word()
	cur.redirs = append(cur.redirs, redir{op: op, target: target})
	if op == "<<" || op == "<<-" {
		p.heredocs = append(p.heredocs, heredoc{delim: target.text, strip: op == "<<-", cmd: cur})
	}
}

// readHeredocs consumes the bodies of the here-documents opened on the line
// just ended, attaching each to its command.
func (p *parser) readHeredocs() {
	for _, h := range p.heredocs {
		var body strings.Builder
		for p.i < len(p.s) {
			end := strings.IndexByte(p.s[p.i:], '\n')
			line := p.s[p.i:]
			if end >= 0 {
				line = p.s[p.i : p.i+end]
				p.i += end + 1
			} else {
				p.i = len(p.s)
			}
			check := line
			if h.strip {
				check = strings.TrimLeft(line, "\t")
			}
			if check == h.delim {
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
		h.cmd.body = body.String()
	}
	p.heredocs = p.heredocs[:0]
}

// word reads one word at p.i, up to a blank or an operator.
func (p *parser) word() word {
	var b strings.Builder
	var w word
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case ' ', '\t', '\r', '\n', ';', '&', '|', '(', ')', '<', '>':
			w.text = b.String()
			return w
		case '\\':
			w.quoted = true
			if p.i+1 < len(p.s) && p.s[p.i+1] != '\n' {
				b.WriteByte(p.s[p.i+1])
			}
			p.i += 2
		case '\'':
			w.quoted = true
			end := strings.IndexByte(p.s[p.i+1:], '\'')
			if end < 0 {
				b.WriteString(p.s[p.i+1:])
				p.i = len(p.s)
			} else {
				b.WriteString(p.s[p.i+1 : p.i+1+end])
				p.i += end + 2
			}
		case '"':
			w.quoted = true
			p.i++
			p.double(&b)
		case '$':
			if p.peek(1) == '\'' {
				w.quoted = true
			}
			p.dollar(&b, false)
		case '`':
			p.backtick(&b)
		case '~':
			if p.i == start {
				p.tilde(&b)
			} else {
				b.WriteByte(c)
				p.i++
			}
		case '*', '?', '[':
			w.glob = true
			b.WriteByte(c)
			p.i++
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	if p.i > len(p.s) {
		p.i = len(p.s)
	}
	w.text = b.String()
	return w
}

// double reads the rest of a double-quoted string (after its opening quote).
func (p *parser) double(b *strings.Builder) {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return
		case '\\':
			if n := p.peek(1); n == '$' || n == '`' || n == '"' || n == '\\' {
				b.WriteByte(n)
				p.i += 2
			} else if n == '\n' {
				p.i += 2
			} else {
				b.WriteByte(c)
				p.i++
			}
		case '$':
			p.dollar(b, true)
		case '`':
			p.backtick(b)
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

func isNameByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

// dollar reads an expansion starting at "$".
func (p *parser) dollar(b *strings.Builder, inDouble bool) {
	n := p.peek(1)
	switch {
	case n == '(' && p.peek(2) == '(':
		// Arithmetic: skip to the matching "))".
		p.i += 3
		for depth := 2; p.i < len(p.s) && depth > 0; p.i++ {
			switch p.s[p.i] {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		b.WriteString(markVar)
	case n == '(':
		mark, next := p.substitution(p.s, p.i+2, true)
		b.WriteString(mark)
		p.i = next
	case n == '{':
		end := strings.IndexByte(p.s[p.i+2:], '}')
		var inner string
		if end < 0 {
			inner, p.i = p.s[p.i+2:], len(p.s)
		} else {
			inner, p.i = p.s[p.i+2:p.i+2+end], p.i+3+end
		}
		name := inner
		for k := 0; k < len(inner); k++ {
			if !isNameByte(inner[k], k == 0) {
				name = inner[:k]
				break
			}
		}
		rest := inner[len(name):]
		switch {
		case inner == "HOME":
			b.WriteString(markHome)
		case inner == "PWD":
			b.WriteString(markPwd)
		case name != "" && (strings.HasPrefix(rest, ":?") || strings.HasPrefix(rest, "?")):
			b.WriteString(markSet)
		default:
			b.WriteString(markVar)
		}
	case isNameByte(n, true):
		k := p.i + 1
		for k < len(p.s) && isNameByte(p.s[k], false) {
			k++
		}
		switch p.s[p.i+1 : k] {
		case "HOME":
			b.WriteString(markHome)
		case "PWD":
			b.WriteString(markPwd)
		default:
			b.WriteString(markVar)
		}
		p.i = k
	case n >= '0' && n <= '9' || strings.IndexByte("@*#?$!-", n) >= 0:
		b.WriteString(markVar)
		p.i += 2
	case n == '\'' && !inDouble:
		p.i += 2
		p.ansiC(b)
	default:
		b.WriteByte('$')
		p.i++
	}
}

// ansiC reads the rest of a $'...' string.
func (p *parser) ansiC(b *strings.Builder) {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\'':
			p.i++
			return
		case c == '\\' && p.i+1 < len(p.s):
			switch e := p.s[p.i+1]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(e)
			}
			p.i += 2
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

// backtick reads a `...` substitution.
func (p *parser) backtick(b *strings.Builder) {
	p.i++
	var inner strings.Builder
	for p.i < len(p.s) && p.s[p.i] != '`' {
		if p.s[p.i] == '\\' && p.i+1 < len(p.s) && strings.IndexByte("`\\$", p.s[p.i+1]) >= 0 {
			p.i++
		}
		inner.WriteByte(p.s[p.i])
		p.i++
	}
	p.i++ // the closing backtick, if any
	if p.i > len(p.s) {
		p.i = len(p.s)
	}
	mark, _ := p.substitution(inner.String(), 0, false)
	b.WriteString(mark)
}

// substitution parses the command substitution in s from i (up to its
// closing ")" when inSub), adding its commands to p's list. It returns the
// substitution's marker (markPwd for a lone pwd, else markVar) and the
// offset after it.
func (p *parser) substitution(s string, i int, inSub bool) (string, int) {
	if p.depth+1 > maxShellDepth {
		*p.tooDeep = true
		return markVar, len(s)
	}
	before := len(*p.cmds)
	sub := &parser{s: s, i: i, depth: p.depth + 1, cmds: p.cmds, tooDeep: p.tooDeep}
	sub.list(inSub)
	added := (*p.cmds)[before:]
	if len(added) == 1 && len(added[0].args) == 1 && added[0].args[0].text == "pwd" {
		return markPwd, sub.i
	}
	return markVar, sub.i
}

// tilde reads a tilde prefix at the start of a word.
func (p *parser) tilde(b *strings.Builder) {
	k := p.i + 1
	for k < len(p.s) && (isNameByte(p.s[k], false) || p.s[k] == '+' || p.s[k] == '-' || p.s[k] == '.') {
		k++
	}
	if k < len(p.s) && strings.IndexByte("/ \t\r\n;&|()<>", p.s[k]) < 0 {
		b.WriteByte('~') // quoted or odd: ~"x" is not expanded
		p.i++
		return
	}
	switch prefix := p.s[p.i+1 : k]; prefix {
	case "":
		b.WriteString(markHome)
	case "+":
		b.WriteString(markPwd)
	case "-":
		b.WriteString(markVar)
	default:
		b.WriteString(markUser)
	}
	p.i = k
}
