// Package client is a Go client of the magi-code.local-agent v1 protocol,
// used by process-level tests, benchmarks and the demo. It is not part of
// the server.
//
// Start spawns the child (by default `magi-code serve --stdio`) with
// exec.Cmd and real pipes, in a caller-given working directory and
// environment (MC_HOME...), in its own process group. Stderr is captured
// into a bounded buffer so tests can assert it is empty.
//
// One reader goroutine, started by Start and ended by EOF on the child's
// stdout (the child's exit or Kill), reads every output frame and checks it
// strictly: one JSON object per LF-terminated line of at most 65,536 bytes,
// valid UTF-8, no duplicate or unknown fields, protocol and version, a
// canonical UUID instance_id that never changes, seq from 1 strictly
// increasing, known frame types, error codes, event names and enum values,
// and the exact data fields of each event. The first violation is recorded
// (Err, Wait) and wraps ErrProtocol; the reader then closes Events, fails
// pending Calls with that error and only drains stdout.
//
// Responses are correlated by ID, never by order: Call sends with a fresh
// ID and waits for the response with that ID; Send and Await give raw
// control, SendLine writes arbitrary bytes. Events arrive on a bounded
// channel in arrival order; when it is full the reader blocks (a slow
// reader: the child's pipe fills), it never drops.
package client
