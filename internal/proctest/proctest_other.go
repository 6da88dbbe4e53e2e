//go:build !unix

package proctest

import "testing"

// WaitGone skips t: the tests that wait for killed processes and process
// groups are about Unix process groups, and they run on Unix only.
func WaitGone(t testing.TB, _ ...int) {
	t.Helper()
	t.Skip("process groups exist only on Unix")
}

// WaitGroupGone skips t, as WaitGone does.
func WaitGroupGone(t testing.TB, _ int) {
	t.Helper()
	t.Skip("process groups exist only on Unix")
}

// WaitSessionGone skips t, as WaitGone does.
func WaitSessionGone(t testing.TB, _ int) {
	t.Helper()
	t.Skip("sessions of processes exist only on Unix")
}
