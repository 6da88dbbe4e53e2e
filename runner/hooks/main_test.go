package hooks

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/magi-code/magi-code/runner/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Main() // the test binary is the sandbox launcher of its hooks
	goleak.VerifyTestMain(m)
}
