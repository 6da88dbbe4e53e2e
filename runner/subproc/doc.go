// Package subproc holds what the runner's subprocesses (shell tool calls,
// hooks, stdio MCP servers) have in common: each runs as the leader of its
// own process group, cleanup kills the whole group, and its output is
// captured within a bound without ever blocking the child.
//
// docs/protocol.md, Choices: "MCP servers and tool subprocesses ... run in their own process
// group so that cleanup reaches their children." Where process groups do not
// exist (Windows, where serve refuses to start but the rest still builds),
// OwnGroup does nothing and KillGroup kills the one process.
//
// The package is a leaf: it imports none of ours, starts no goroutine and
// writes nothing to stdout or stderr.
package subproc
