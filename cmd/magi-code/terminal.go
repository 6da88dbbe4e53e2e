package main

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether stdin and stdout are both terminals, on every
// platform (a Windows console included). docs/frontend.md, Launch rules: no arguments or --prompt
// TEXT require a TTY on stdin and stdout.
func isTerminal() bool {
	return term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stdout.Fd()))
}
