//go:build !unix

package config

import "os"

// hardLinked: the link count is not at hand here (os.FileInfo on Windows
// does not carry it); the path rules stand alone.
func hardLinked(os.FileInfo) bool { return false }
