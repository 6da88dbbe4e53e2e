// Command magi-code is a coding-agent backend. Its main job is
// `magi-code serve --stdio`: a child process that speaks the
// magi-code.local-agent v1 protocol on inherited pipes.
//
// This package holds launch validation, the wiring of the pipeline and the
// exit codes; nothing else. Exit codes: 0 clean shutdown or drained EOF,
// 1 runtime transport failure (never with stderr output), 2 invalid launch
// (before any side effect).
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	// The OS sandbox's launcher: this same executable, started by the
	// runner to confine a command, is handled by that package's init
	// before main runs (runner/sandbox, launch.go).
	"github.com/magi-code/magi-code/runner/sandbox"
	"github.com/magi-code/magi-code/runner/subproc"
)

func main() {
	// A write to a closed pipe on fd 1 or 2 would kill us with
	// SIGPIPE; ignore it first thing and treat EPIPE as broken output.
	signal.Ignore(syscall.SIGPIPE)
	// The agent's environment holds provider keys and its memory
	// credentials: non-dumpable, no other process of the user (a
	// confined command in particular) may read /proc/<pid>/environ or
	// mem (runner/sandbox: NotDumpable).
	_ = sandbox.NotDumpable()
	// What the process that started us left open to us (a frontend's
	// socket or pipe, a file) goes to none of our subprocesses: a
	// confined command could otherwise read or write it (runner/subproc:
	// KeepFromChildren).
	subproc.KeepFromChildren()
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	l, err := parseArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "magi-code:", err)
		return 2
	}
	switch l.mode {
	case modeServe:
		if !serveSupported {
			fmt.Fprintln(os.Stderr, "magi-code: serve --stdio is not supported on this platform (Unix pipes only)")
			return 2
		}
		// docs/protocol.md, Launch: "TTYs, regular files and sockets are not supported transport
		// endpoints"; invalid launch exits 2 before any side effect.
		for _, fd := range []int{0, 1} {
			if err := checkPipe(fd); err != nil {
				fmt.Fprintf(os.Stderr, "magi-code: serve --stdio needs pipes on stdin and stdout (fd %d: %v)\n", fd, err)
				return 2
			}
		}
		return serve()
	case modeACP:
		if !serveSupported {
			fmt.Fprintln(os.Stderr, "magi-code: acp is not supported on this platform (Unix pipes only)")
			return 2
		}
		// Launched like serve: pipes only, refused before any side effect.
		for _, fd := range []int{0, 1} {
			if err := checkPipe(fd); err != nil {
				fmt.Fprintf(os.Stderr, "magi-code: acp needs pipes on stdin and stdout (fd %d: %v)\n", fd, err)
				return 2
			}
		}
		return acpMain()
	case modeInteractive:
		if !isTerminal() {
			fmt.Fprintln(os.Stderr, "magi-code: interactive mode needs a terminal on stdin and stdout; use serve --stdio for pipes")
			return 2
		}
		return interactive(l)
	case modeLogin, modeLogout, modeModel:
		return account(l)
	case modeHelp:
		fmt.Print(topicHelp(l.topic))
		return 0
	case modeVersion:
		info, _ := debug.ReadBuildInfo()
		if _, err := os.Stdout.WriteString(versionOutput(info, runtime.Version())); err != nil {
			return 1
		}
		return 0
	default:
		return cli(l)
	}
}
