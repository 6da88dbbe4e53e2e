package mission

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/magi-code/magi-code/client/human"
)

const osc8 = "\x1b]8;"

// targets are the OSC 8 targets in s, in order.
func targets(s string) []string {
	var out []string
	for {
		i := strings.Index(s, osc8+";")
		if i < 0 {
			return out
		}
		s = s[i+len(osc8)+1:]
		end := strings.IndexAny(s, "\x07\x1b")
		if end > 0 {
			out = append(out, s[:end])
		}
		s = s[end:]
	}
}

// Links in a reply are OSC 8 hyperlinks: [text](url) and bare URLs, http
// and https only, with a host, printable ASCII only; the text reads the
// same with or without them.
func TestHyperlinks(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"see [the docs](https://example.com/docs) now", []string{"https://example.com/docs"}},
		{"at https://example.org/a_b_c*d, then", []string{"https://example.org/a_b_c*d"}},
		{"(https://example.org/x) and http://h.test/p?q=1;r=2.", []string{"https://example.org/x", "http://h.test/p?q=1;r=2"}},
		{"https://en.wikipedia.org/wiki/Go_(language) is it", []string{"https://en.wikipedia.org/wiki/Go_(language)"}},
		{"[x](javascript:alert(1)) [y](file:///etc/passwd) [z](ftp://h/x)", nil},
		{"[x](https://user:pw@evil.test/) and https:// alone and https:///nohost", nil},
		{"xhttps://glued.test/ is not a link", nil},
		{"`https://in.code/span`", nil},
		{"[x](https://e.test/\x1b]0;evil\x07) and https://e.test/\x1b[2J", []string{"https://e.test/"}},
		{"https://e.test/é and https://e.test/\u202e", []string{"https://e.test/", "https://e.test/"}},
		{"[long](https://e.test/" + strings.Repeat("a", maxLinkBytes) + ")", nil},
	} {
		// The way replies are shown: made printable, then rendered.
		got := renderMarkdown(human.Printable(c.in), 200, true)
		if tg := targets(got); strings.Join(tg, " ") != strings.Join(c.want, " ") {
			t.Errorf("%q: targets %q; want %q", c.in, tg, c.want)
		}
		plain := renderMarkdown(human.Printable(c.in), 200, false)
		if strings.Contains(plain, osc8) {
			t.Errorf("%q: a hyperlink with links off", c.in)
		}
		if ansi.Strip(got) != ansi.Strip(plain) {
			t.Errorf("%q: reads %q with links, %q without", c.in, ansi.Strip(got), ansi.Strip(plain))
		}
		if bad := foreignControl(got); bad != "" {
			t.Errorf("%q: %s", c.in, bad)
		}
	}
}

func FuzzLinkTarget(f *testing.F) {
	f.Add("https://example.com/x")
	f.Add("https://e.test/\x1b\\")
	f.Fuzz(func(t *testing.T, s string) {
		out := renderMarkdown(human.Printable(s), 80, true)
		if bad := foreignControl(out); bad != "" {
			t.Fatalf("%q: %s", s, bad)
		}
		for _, tg := range targets(out) {
			if !linkTarget(tg) {
				t.Fatalf("a target linkTarget refuses: %q", tg)
			}
			for i := 0; i < len(tg); i++ {
				if tg[i] < 0x21 || tg[i] > 0x7e {
					t.Fatalf("byte %#x in target %q", tg[i], tg)
				}
			}
		}
	})
}

func TestHyperlinksEnv(t *testing.T) {
	for env, want := range map[string]bool{"TERM=xterm-256color": true, "TERM=dumb": false, "": false, "TERM=xterm NO_COLOR=1": false} {
		vars := map[string]string{}
		for _, kv := range strings.Fields(env) {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = v
		}
		if got := hyperlinks(func(k string) string { return vars[k] }); got != want {
			t.Errorf("%q: hyperlinks %v", env, got)
		}
	}
}

// foreignControl says what in s is not one of the sequences the renderer
// writes: SGR (ESC [ digits ; : m) and OSC 8 (ESC ] 8 ; ; printable ASCII
// BEL); "" when nothing is.
func foreignControl(s string) string {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 0x1b && strings.HasPrefix(s[i:], "\x1b["):
			j := i + 2
			for j < len(s) && strings.IndexByte("0123456789;:", s[j]) >= 0 {
				j++
			}
			if j >= len(s) || s[j] != 'm' {
				return "a CSI that is not SGR at " + s[i:min(len(s), i+12)]
			}
			i = j
		case c == 0x1b && strings.HasPrefix(s[i:], osc8+";"):
			j := i + len(osc8) + 1
			for j < len(s) && s[j] > 0x20 && s[j] < 0x7f {
				j++
			}
			if j >= len(s) || s[j] != 0x07 {
				return "an OSC 8 not ended by BEL"
			}
			i = j
		case c < 0x20 && c != '\n' || c == 0x7f:
			return "a control byte " + string(rune(c))
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] < 0xa0:
			return "a C1 control"
		}
	}
	return ""
}
