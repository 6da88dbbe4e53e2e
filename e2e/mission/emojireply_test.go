//go:build unix

package mission

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/magi-code/magi-code/client/clienttest"
)

// A reply full of skin-tone and ZWJ emoji sequences, in a terminal that
// draws code point by code point (tmux 3.3 does not answer the mode 2027
// query): the app wraps it by the columns the terminal draws, so no line
// is wider than the pane (the terminal would wrap it again and the app's
// count of rows would be wrong) and every word is in the scrollback once,
// in order.
func TestEmojiWidthsOfAReplyInACodePointTerminal(t *testing.T) {
	emoji := []string{"👍🏽", "👨‍👩‍👧", "👩🏾‍💻", "🧑🏻‍🤝‍🧑🏿", "👋🏿", "👨‍👨‍👦‍👦"}
	var reply strings.Builder
	const words = 48
	for i := range words {
		fmt.Fprintf(&reply, "word%02d %s%s ", i, emoji[i%len(emoji)], emoji[(i+1)%len(emoji)])
	}
	reply.WriteString("reply-end")
	for _, cols := range []int{30, 80} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Text(reply.String())),
			}})
			tt := startTmux(t, ws, cols, 24)
			tt.waitScreen("fixture-model")
			tt.typeText("go")
			tt.key("Enter")
			tt.waitScreen("reply-end")
			tt.waitIdle("reply-end")
			// -J joins the rows the terminal wrapped: a line the app
			// drew wider than the pane is one line here.
			lines := strings.Split(tt.run("capture-pane", "-p", "-J", "-S", "-", "-E", "-"), "\n")
			next := 0
			for _, l := range lines {
				l = strings.TrimRight(l, " ")
				if w := ansi.StringWidthWc(l); w > cols {
					t.Fatalf("a line of %d columns in a %d-column pane: %q\n%s", w, cols, l, tt.dump())
				}
				for _, f := range strings.Fields(l) {
					var n int
					if _, err := fmt.Sscanf(f, "word%02d", &n); err != nil || !strings.HasPrefix(f, "word") {
						continue
					}
					if n != next {
						t.Fatalf("word%02d where word%02d was due (lost, repeated or out of order):\n%s", n, next, tt.dump())
					}
					next++
				}
			}
			if next != words {
				t.Fatalf("%d of %d words on the screen and in the scrollback:\n%s", next, words, tt.dump())
			}
		})
	}
}
