// Package worker runs the work that dispatch admits: the one initialization
// worker, the one session/history worker and the one turn worker of a
// child. Pool implements dispatch.Workers.
//
// Every worker goroutine belongs to the Pool's conc.WaitGroup and reports
// its end through its done callback, exactly once. Workers run under the
// Server's work context: shutdown, EOF and output failure cancel them, and a
// pending initialization answers startup_cancelled, a pending session or
// history operation operation_cancelled.
//
// The admitted runtime (settings snapshot, MCP manager, session store,
// provider) and the attachment are owned here; Teardown closes them after
// the workers have ended, MCP servers first and session leases last (spec:
// "session writer/active leases remain held until runtime teardown
// finishes").
package worker
