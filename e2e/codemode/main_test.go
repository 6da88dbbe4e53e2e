// Package codemode holds whole-process tests of Code Mode, the tool
// protections, auto-compaction and subagents: each test drives real
// `magi-code serve --stdio` children through real pipes with the Go client
// (docs/architecture.md, The agent runner).
package codemode

import (
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// TestMain builds the binary once (unless MAGI_CODE_BIN names one), checks
// for leaked goroutines and removes what it built.
func TestMain(m *testing.M) { clienttest.Main(m) }
