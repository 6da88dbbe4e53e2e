// Package audit holds whole-process tests written by the protocol audit: each
// covers a sentence of docs/protocol.md (or a contract of the
// docs/configuration.md) observable through the pipes, exit codes, stderr or files on
// disk that e2e/transport and e2e/session do not already cover. A test that
// fails here names a spec sentence the binary does not hold.
package audit

import (
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// TestMain builds the binary once (unless MAGI_CODE_BIN names one), checks
// for leaked goroutines and removes what it built.
func TestMain(m *testing.M) { clienttest.Main(m) }
