// Package session holds whole-process tests of sessions, history and
// turns: each test drives real `magi-code serve --stdio` children through
// real pipes with the Go client (issues 4 and 5, "What must hold").
package session

import (
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// TestMain builds the binary once (unless MAGI_CODE_BIN names one), checks
// for leaked goroutines and removes what it built.
func TestMain(m *testing.M) { clienttest.Main(m) }
