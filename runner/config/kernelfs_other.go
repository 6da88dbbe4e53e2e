//go:build !linux

package config

import "os"

// kernelFS: only Linux has the process views (/proc) this guards against
// wherever they are mounted; elsewhere the path rules of scope.check stand
// alone.
func kernelFS(*os.File) bool { return false }
