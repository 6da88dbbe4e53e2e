//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import (
	"fmt"
	"strings"

	"golang.org/x/term"
)

// readSecretTTY reads one line from the terminal fd without echo.
func readSecretTTY(fd int, prompt string) (string, error) {
	fmt.Print(prompt)
	b, err := term.ReadPassword(fd)
	fmt.Println()
	return strings.TrimSpace(string(b)), err
}
