//go:build !unix && !windows

package filelock

import "os"

func tryLock(*os.File) (bool, error) { return false, ErrUnsupported }
