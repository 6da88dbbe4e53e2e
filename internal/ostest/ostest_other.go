//go:build !unix

package ostest

import "errors"

// Mkfifo answers errors.ErrUnsupported: no FIFOs in the file system here.
func Mkfifo(string, uint32) error { return errors.ErrUnsupported }

// LimitFileSize answers errors.ErrUnsupported: no RLIMIT_FSIZE here.
func LimitFileSize(uint64) (func(), error) { return nil, errors.ErrUnsupported }

// FIFOs reports whether Mkfifo can make one here.
const FIFOs = false
