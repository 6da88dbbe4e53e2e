//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"

	"golang.org/x/sys/unix"
)

// readSecretTTY reads one line from the terminal fd without echo. Echo is
// turned off before the prompt is printed, so that nothing typed or pasted
// as soon as the prompt shows is echoed (term.ReadPassword prints nothing
// and turns echo off only once called, after our prompt). Ctrl-C restores
// the terminal and exits 130.
func readSecretTTY(fd int, prompt string) (string, error) {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return "", err
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	quiet.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &quiet); err != nil {
		return "", err
	}
	restore := func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, old) }
	defer restore()
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt)
	defer func() { signal.Stop(interrupted); close(interrupted) }()
	go func() { // ends when interrupted is closed
		if _, ok := <-interrupted; ok {
			restore()
			fmt.Println()
			os.Exit(130)
		}
	}()
	fmt.Print(prompt)
	line := readLine()
	fmt.Println()
	return strings.TrimSpace(line), nil
}
