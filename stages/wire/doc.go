// Package wire holds the magi-code.local-agent v1 protocol vocabulary: the
// protocol name and version, the bounds table, error codes, request and frame
// types, and the append-based JSON encoder used on the hot path.
//
// It is a leaf package: it imports nothing of ours, starts no goroutines and
// performs no I/O. Names follow the spec's spelling (CodeFrameTooLarge is
// "frame_too_large") and the bounds follow the rows of the spec's bounds table.
package wire
