package human

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Printable is s made safe to write to a terminal as text: what a model, a
// tool, a file, an MCP server or a stored history says is shown, never
// obeyed. Line feeds stay line feeds (CR LF is one); a tab becomes spaces
// to the next multiple of TabWidth columns of its line. Every other
// character a terminal would act on is replaced by a visible stand-in of
// the same meaning:
//
//   - C0 controls and DEL by their Control Pictures: ESC is ␛, BEL ␇, a lone
//     CR ␍, NUL ␀, DEL ␡; so an escape sequence reads as ␛[2J or ␛]0;title␇;
//   - C1 controls (U+0080 to U+009F, CSI and OSC among them), the line and
//     paragraph separators, the bidirectional embeddings, overrides,
//     isolates and marks, and the other invisible format characters by
//     their code point in angle brackets: <U+202E>. Zero-width joiner and
//     non-joiner stay: emoji sequences and scripts need them;
//   - a byte that is not UTF-8 by U+FFFD.
//
// So no byte of the result is a control but LF, and the result is valid
// UTF-8. Printable(Printable(s)) == Printable(s).
func Printable(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	col := 0 // display column in the current line, for tabs
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\n':
			b.WriteByte('\n')
			col = 0
			continue
		case r == '\r' && i < len(s) && s[i] == '\n':
			continue // CR LF: the LF breaks the line
		case r == '\t':
			n := TabWidth - col%TabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		vis := visibleRune(r, size)
		b.WriteString(vis)
		col += ansi.StringWidth(vis)
	}
	return b.String()
}

// TabWidth is the tab stop Printable lays tabs out to.
const TabWidth = 4

// plain reports whether s needs no change: printable ASCII and line feeds
// only (the common case, kept cheap).
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\n' && (c < 0x20 || c >= 0x7f) {
			return false
		}
	}
	return true
}

// visibleRune is r as shown: itself when it is harmless, else its visible
// stand-in. size is its length in s (1 for a byte that is not UTF-8).
func visibleRune(r rune, size int) string {
	switch {
	case r == utf8.RuneError && size == 1:
		return "\uFFFD"
	case r < 0x20:
		return string(rune(0x2400 + r)) // ␀ … ␟, ␛ for ESC
	case r == 0x7f:
		return "\u2421" // ␡
	case hidden(r):
		return fmt.Sprintf("<U+%04X>", r)
	}
	return string(r)
}

// hidden reports whether r is a character a terminal does not show as
// itself but acts on, or shows as nothing: C1 controls, the line and
// paragraph separators, and format characters (bidirectional controls,
// zero-width spaces, the byte order mark, soft hyphen, tags) but the
// zero-width joiner and non-joiner.
func hidden(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == '\u2028' || r == '\u2029':
		return true
	case r == '\u200c' || r == '\u200d':
		return false
	}
	return unicode.Is(unicode.Cf, r)
}
