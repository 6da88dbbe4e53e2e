// Package subproc holds what the runner's subprocesses (shell tool calls,
// hooks, stdio MCP servers) have in common: each runs as the leader of its
// own process group, cleanup kills the whole group, and its output is
// captured within a bound without ever blocking the child.
//
// docs/protocol.md, Choices: "MCP servers and tool subprocesses ... run in their own process
// group so that cleanup reaches their children." Where process groups do not
// exist (Windows), OwnGroup does nothing and KillGroup kills the one
// process: a program that a shell command or hook started and that outlives
// it is not killed there, and reading its output stops pipeCloseWait (2 s)
// after the shell ended.
//
// Shell is the one place where the shell that runs a command line is
// chosen: /bin/sh -c on Unix; on Windows cmd.exe, which every Windows has
// and which starts in milliseconds (PowerShell takes hundreds), and whose
// &&, ||, | and redirections read as they do in sh. cmd.exe runs one line
// only, so a command with a line break is refused there (ErrMultiLine).
//
// The package is a leaf: it imports none of ours, starts no goroutine and
// writes nothing to stdout or stderr.
package subproc
