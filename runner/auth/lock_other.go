//go:build !unix

package auth

import "context"

// lockFile is a no-op where flock is unavailable: serve runs only on Unix
// pipes (docs/protocol.md, Launch), so only the in-process mutex serializes refreshes here.
func lockFile(ctx context.Context, path string) (func(), error) {
	return func() {}, ctx.Err()
}
