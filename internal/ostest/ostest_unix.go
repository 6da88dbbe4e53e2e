//go:build unix

package ostest

import "syscall"

// Mkfifo makes a FIFO at path with mode.
func Mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }

// LimitFileSize sets this process's soft file-size limit (RLIMIT_FSIZE) to
// n bytes; restore puts the previous limit back.
func LimitFileSize(n uint64) (restore func(), err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return nil, err
	}
	small := lim
	small.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		return nil, err
	}
	return func() { _ = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim) }, nil
}

// FIFOs reports whether Mkfifo can make one here.
const FIFOs = true
