//go:build race

package redact

// The package starts no goroutine: under the race detector (ten times
// slower) the split-everywhere tests take every fifth offset; a plain
// go test takes them all.
const splitStride = 5
