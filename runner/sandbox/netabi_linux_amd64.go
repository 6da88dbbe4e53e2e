package sandbox

import "golang.org/x/sys/unix"

// nativeNet is amd64's: x32 numbers are refused wholesale; there is no
// native socketcall (the 32-bit ABI's fails the architecture check).
var nativeNet = netABI{
	arch: unix.AUDIT_ARCH_X86_64,
	x32:  true,
	deny: []uint32{
		unix.SYS_SOCKET, unix.SYS_CONNECT, unix.SYS_BIND, unix.SYS_LISTEN, unix.SYS_ACCEPT, unix.SYS_ACCEPT4,
		unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
		unix.SYS_PIDFD_GETFD,
	},
}
