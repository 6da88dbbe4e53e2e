// Package worker runs the work that dispatch admits: the one initialization
// worker, the one session/history worker and the one turn worker of a
// child. Pool implements dispatch.Workers.
//
// Every worker goroutine belongs to the Pool's conc.WaitGroup and reports
// its end through its done callback, exactly once. Workers run under the
// Server's work context: shutdown, EOF and output failure cancel them.
// dispatch.Machine decides what a finished worker's report means (a
// pending initialization that finished after shutdown answers
// startup_cancelled, a session or history operation operation_cancelled),
// which session is attached and which run is active; the Pool holds the
// resources behind those decisions and never decides them again.
//
// The runner is reached through package runner alone: runner.Admit and
// runner.New build the runtime at initialization, Runtime.Run runs a turn
// whose progress the turn sink turns into run events and session records.
// The runtime and the attachment are owned here; Teardown closes them after
// the workers have ended, MCP servers first and session leases last (docs/protocol.md, Exit status:
// "session writer/active leases remain held until runtime teardown
// finishes").
package worker
