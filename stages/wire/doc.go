// Package wire holds the frames of magi-code.local-agent v1 (Request,
// Response, Event) and their append-based encoders used on the hot path.
// The vocabulary they carry (codes, bounds, names) lives in package protocol.
//
// It starts no goroutines and performs no I/O.
package wire
