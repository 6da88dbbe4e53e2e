package sandbox

import "golang.org/x/sys/unix"

// nativeNet is arm64's: no x32 and no socketcall (arm32 calls, where the
// CPU runs them, fail the architecture check).
var nativeNet = netABI{
	arch: unix.AUDIT_ARCH_AARCH64,
	deny: []uint32{
		unix.SYS_SOCKET, unix.SYS_CONNECT, unix.SYS_BIND, unix.SYS_LISTEN, unix.SYS_ACCEPT, unix.SYS_ACCEPT4,
		unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
		unix.SYS_PIDFD_GETFD,
	},
}
