// Package session holds whole-process tests of sessions, history and
// turns: each test drives real `magi-code serve --stdio` children through
// real pipes with the Go client (issues 4 and 5, "What must hold").
package session

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
