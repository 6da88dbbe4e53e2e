// Package transport holds whole-process tests of `magi-code serve --stdio`
// through real pipes (docs/protocol.md): the launch matrix, exit
// codes 0/1/2, stalled and closed readers, every transport error code
// (never echoing submitted text), byte-exact limits, pipelining and
// correlation by ID. Everything here runs the real binary; deadlines are
// generous hang guards only, never assertions about speed.
package transport

import (
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// TestMain builds the binary once (unless MAGI_CODE_BIN names one), checks
// for leaked goroutines and removes what it built.
func TestMain(m *testing.M) { clienttest.Main(m) }
