package writer

import "golang.org/x/sys/unix"

// pipeBytes is the capacity asked of the output pipe: the most an
// unprivileged process may set by default (/proc/sys/fs/pipe-max-size).
// A 64 KiB pipe holds one batch of frames (16 delta frames of a flood, or
// 16 reconcile parts of 4,000 bytes): the writer and the reader then take
// turns waking each other once per batch. A larger pipe lets the writer
// keep writing while the reader drains, so that each sleeps only when it
// has really caught up. The pending-output rules do not change: a frame
// still counts until the write(2) carrying it returns.
const pipeBytes = 1 << 20

// growPipe asks for a pipeBytes pipe behind fd. It is best effort: a
// descriptor that is not a pipe, or a lower system limit, keeps its size.
func growPipe(fd int) {
	if size, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0); err == nil && size < pipeBytes {
		_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, pipeBytes)
	}
}
