package main

import (
	"context"
	"fmt"
	"os"

	"github.com/magi-code/magi-code/conformance"
)

// conformanceMain runs the conformance kit against the server command
// (run with /bin/sh -c, in this directory, with this process's
// environment): one line per check and a summary on stdout;
// exit 0 when every check passed, 1 otherwise, 2 when the kit could not
// run.
func conformanceMain(server string) int {
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "magi-code: conformance:", err)
		return 2
	}
	ok, err := conformance.Kit(context.Background(), conformance.Server{Shell: server, Env: os.Environ(), Dir: dir}, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "magi-code: conformance:", err)
		return 2
	}
	if !ok {
		return 1
	}
	return 0
}
