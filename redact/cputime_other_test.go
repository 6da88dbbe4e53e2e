//go:build !unix

package redact

import "testing"

func loop(b *testing.B, f func()) {
	b.Helper()
	for b.Loop() {
		f()
	}
}
