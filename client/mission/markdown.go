package mission

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// renderMarkdown styles the Markdown people see in replies: headings,
// fenced code blocks (keywords, strings and comments highlighted for the
// common languages), bullets and numbered lists, block quotes, tables,
// rules, and the inline **bold**, *italic*, `code` and [links](url). A
// small renderer rather than glamour: glamour's syntax highlighter
// registers hundreds of lexers at package init, which every `serve
// --stdio` start would pay. Lines are wrapped to width by the caller;
// tables are laid out to fit it here.
//
// With links, an http or https link ([text](url), or a bare URL) is also
// an OSC 8 hyperlink the terminal can open (linkTarget says which URLs);
// its text stays as shown without.
func renderMarkdown(text string, width int, links bool) string {
	var out []string
	lines := strings.Split(text, "\n")
	fenced, lang := false, ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			fenced = !fenced
			lang = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(trimmed, "```")))
			out = append(out, styleDim().Render(strings.Repeat("─", min(40, max(width-2, 4)))))
			continue
		}
		if fenced {
			out = append(out, "  "+highlight(line, lang))
			continue
		}
		if strings.HasPrefix(trimmed, "|") {
			j := i
			for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|") {
				j++
			}
			out = append(out, renderTable(lines[i:j], width, links)...)
			i = j - 1
			continue
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		switch {
		case strings.HasPrefix(trimmed, "#"):
			out = append(out, styleHead().Render(strings.TrimSpace(strings.TrimLeft(trimmed, "#"))))
		case trimmed == "---" || trimmed == "***" || trimmed == "___":
			out = append(out, styleDim().Render(strings.Repeat("─", min(40, max(width-2, 4)))))
		case strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ") || strings.HasPrefix(trimmed, "+ "):
			out = append(out, indent+"• "+inline(trimmed[2:], links))
		case strings.HasPrefix(trimmed, ">"):
			q := strings.TrimSpace(strings.TrimLeft(trimmed, ">"))
			out = append(out, styleDim().Render("│ ")+lipgloss.NewStyle().Italic(true).Render(inline(q, links)))
		default:
			out = append(out, inline(line, links))
		}
	}
	return strings.Join(out, "\n")
}

// inline styles **bold**, *italic* and _italic_, `code` spans and
// [text](url) links; unmatched markers stay as typed.
func inline(s string, links bool) string {
	var b strings.Builder
	prev := ' ' // the last character written, for telling snake_case from italics
	for s != "" {
		i := strings.IndexAny(s, "*_`[")
		if u := bareURL(s); u >= 0 && (i < 0 || u < i) {
			// A bare URL, before any marker: its underscores and stars
			// are part of it.
			b.WriteString(s[:u])
			if u > 0 && isWord(lastRune(s[:u])) {
				b.WriteString(s[u : u+4]) // inside a word ("xhttp://"): not a link
				prev, s = 'p', s[u+4:]
				continue
			}
			url := urlAt(s[u:])
			b.WriteString(link(url, url, links))
			prev, s = lastRune(url), s[u+len(url):]
			continue
		}
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		if i > 0 {
			prev = []rune(s[:i])[len([]rune(s[:i]))-1]
		}
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "**"):
			if j := strings.Index(s[2:], "**"); j > 0 {
				b.WriteString(styleBold().Render(s[2 : 2+j]))
				s = s[4+j:]
				continue
			}
		case s[0] == '*' || s[0] == '_':
			// An italic span opens before a letter and closes after one;
			// snake_case and a lone star stay as typed.
			if j := strings.IndexByte(s[1:], s[0]); j > 0 && !isWord(prev) && !unicode.IsSpace(rune(s[1])) && !unicode.IsSpace(rune(s[j])) &&
				(len(s) == j+2 || !isWord(rune(s[j+2]))) {
				b.WriteString(lipgloss.NewStyle().Italic(true).Render(s[1 : 1+j]))
				s = s[2+j:]
				continue
			}
		case s[0] == '`':
			if j := strings.IndexByte(s[1:], '`'); j > 0 {
				b.WriteString(styleCode().Render(s[1 : 1+j]))
				s = s[2+j:]
				continue
			}
		case s[0] == '[':
			if j := strings.Index(s, "]("); j > 0 {
				if k := strings.IndexByte(s[j+2:], ')'); k >= 0 {
					label, url := s[1:j], s[j+2:j+2+k]
					b.WriteString(link(lipgloss.NewStyle().Underline(true).Render(label), url, links))
					if url != label {
						b.WriteString(styleDim().Render(" (" + url + ")"))
					}
					s = s[j+3+k:]
					continue
				}
			}
		}
		b.WriteByte(s[0])
		prev = rune(s[0])
		s = s[1:]
	}
	return b.String()
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// maxLinkBytes bounds a hyperlink's target; a longer URL is shown, not
// linked.
const maxLinkBytes = 2048

// bareURL is the index of the first "http://" or "https://" in s, -1
// when none.
func bareURL(s string) int {
	i := strings.Index(s, "http://")
	if j := strings.Index(s, "https://"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	return i
}

// urlAt is the URL s begins with: up to white space or a character that
// cannot end a URL in prose (<>"'` and the like), trailing punctuation
// (.,;:!?) and an unbalanced closing parenthesis left out.
func urlAt(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("<>\"'`", r) || r > unicode.MaxASCII
	})
	if end < 0 {
		end = len(s)
	}
	u := s[:end]
	for u != "" {
		last := u[len(u)-1]
		switch {
		case strings.IndexByte(".,;:!?*_", last) >= 0:
			u = u[:len(u)-1]
			continue
		case last == ')' && strings.Count(u, "(") < strings.Count(u, ")"):
			u = u[:len(u)-1]
			continue
		}
		break
	}
	return u
}

// linkTarget reports whether u may be an OSC 8 target: an absolute http
// or https URL with a host, at most maxLinkBytes, of printable ASCII only
// (no space, no control: the text has been through human.Printable, which
// turned controls into visible characters, and those are refused here
// too), so that nothing of the model's can end or extend the sequence.
func linkTarget(u string) bool {
	if len(u) > maxLinkBytes {
		return false
	}
	for i := 0; i < len(u); i++ {
		if u[i] <= ' ' || u[i] >= 0x7f {
			return false
		}
	}
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != "" && p.User == nil
}

// link is text as an OSC 8 hyperlink to target when links are on and
// target may be one (linkTarget); else text as it is.
func link(text, target string, links bool) string {
	if !links || !linkTarget(target) {
		return text
	}
	return ansi.SetHyperlink(target) + text + ansi.ResetHyperlink()
}

// renderTable lays out a Markdown table: columns as wide as their widest
// cell, or, when that does not fit width, each row as "header: cell" lines.
func renderTable(rows []string, width int, links bool) []string {
	var cells [][]string
	for _, r := range rows {
		r = strings.TrimSpace(r)
		r = strings.TrimSuffix(strings.TrimPrefix(r, "|"), "|")
		parts := strings.Split(r, "|")
		sep := true
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
			if strings.Trim(parts[i], ":-") != "" || parts[i] == "" {
				sep = false
			}
		}
		if sep {
			continue // the |---|:--| line
		}
		for i := range parts {
			parts[i] = inline(parts[i], links)
		}
		cells = append(cells, parts)
	}
	if len(cells) == 0 {
		return nil
	}
	cols := 0
	for _, r := range cells {
		cols = max(cols, len(r))
	}
	widths := make([]int, cols)
	for _, r := range cells {
		for i, c := range r {
			widths[i] = max(widths[i], strWidth(c))
		}
	}
	total := 3 * (cols - 1)
	for _, w := range widths {
		total += w
	}
	var out []string
	if total > width {
		head := cells[0]
		for _, r := range cells[1:] {
			for i, c := range r {
				h := ""
				if i < len(head) {
					h = styleBold().Render(head[i]) + ": "
				}
				out = append(out, "  "+h+c)
			}
			out = append(out, "")
		}
		return append([]string{strings.Join(styleBoldAll(head), " · ")}, out...)
	}
	for n, r := range cells {
		var b strings.Builder
		for i := range cols {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			if n == 0 {
				c = styleBold().Render(c)
			}
			b.WriteString(c + strings.Repeat(" ", widths[i]-strWidth(c)))
			if i < cols-1 {
				b.WriteString(styleDim().Render(" │ "))
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
		if n == 0 {
			var rule []string
			for _, w := range widths {
				rule = append(rule, strings.Repeat("─", w))
			}
			out = append(out, styleDim().Render(strings.Join(rule, "─┼─")))
		}
	}
	return out
}

func styleBoldAll(s []string) []string {
	out := make([]string, len(s))
	for i, c := range s {
		out[i] = styleBold().Render(c)
	}
	return out
}

// keywords of the languages highlighted in fenced blocks, by the fence's
// language name.
func keywords(lang string) (words []string, comment string) {
	switch lang {
	case "go", "golang":
		return strings.Fields("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false"), "//"
	case "python", "py":
		return strings.Fields("and as assert async await break class continue def del elif else except finally for from global if import in is lambda None nonlocal not or pass raise return True False try while with yield"), "#"
	case "js", "javascript", "ts", "typescript", "jsx", "tsx":
		return strings.Fields("async await break case catch class const continue default delete do else export extends false finally for from function if import in instanceof let new null return switch this throw true try typeof undefined var void while yield interface type"), "//"
	case "rust", "rs":
		return strings.Fields("as async await break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while"), "//"
	case "sh", "bash", "shell", "zsh", "console":
		return strings.Fields("if then else elif fi for while until do done case esac function in return export local"), "#"
	case "c", "cpp", "c++", "java", "kotlin", "swift", "cs", "csharp":
		return strings.Fields("auto break case catch char class const continue default do double else enum extern false final float for if import int long new null private protected public return short static struct switch this throw true try void while"), "//"
	}
	return nil, ""
}

// highlight colours one line of code: comments, strings, numbers and the
// language's keywords. An unknown language is shown in one colour.
func highlight(line, lang string) string {
	words, comment := keywords(lang)
	if words == nil {
		return styleCode().Render(line)
	}
	kw := lipgloss.NewStyle().Foreground(lipgloss.Color("13")).Bold(true)
	str := lipgloss.NewStyle().Foreground(lipgloss.Color("10"))
	num := lipgloss.NewStyle().Foreground(lipgloss.Color("14"))
	var b strings.Builder
	rs := []rune(line)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case comment != "" && strings.HasPrefix(string(rs[i:]), comment):
			b.WriteString(styleDim().Render(string(rs[i:])))
			return b.String()
		case r == '"' || r == '\'' || r == '`':
			j := i + 1
			for j < len(rs) && rs[j] != r {
				if rs[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(rs))
			b.WriteString(str.Render(string(rs[i:j])))
			i = j
		case unicode.IsDigit(r):
			j := i
			for j < len(rs) && (isWord(rs[j]) || rs[j] == '.') {
				j++
			}
			b.WriteString(num.Render(string(rs[i:j])))
			i = j
		case isWord(r) || r == '_':
			j := i
			for j < len(rs) && (isWord(rs[j]) || rs[j] == '_') {
				j++
			}
			w := string(rs[i:j])
			if contains(words, w) {
				b.WriteString(kw.Render(w))
			} else {
				b.WriteString(w)
			}
			i = j
		default:
			b.WriteRune(r)
			i++
		}
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, w := range list {
		if w == s {
			return true
		}
	}
	return false
}
