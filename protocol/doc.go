// Package protocol holds the vocabulary of magi-code.local-agent v1: the
// protocol name and version, the bounds table, the error and notice codes,
// the method and event names, and the ID grammar. Each is written once here
// and used by the stages, the runner and the session store alike.
//
// It is a foundation: it imports nothing of ours, starts no goroutine and
// performs no I/O. Names follow the protocol's spelling (CodeFrameTooLarge is
// "frame_too_large") and the bounds follow the rows of the bounds table in
// docs/protocol.md.
package protocol
