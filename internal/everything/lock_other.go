//go:build !unix

package everything

// lock is a no-op where flock does not exist: concurrent installs are
// then npm's own business.
func lock(string) (unlock func(), err error) { return func() {}, nil }
