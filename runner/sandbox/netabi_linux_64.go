//go:build linux && (amd64 || arm64)

package sandbox

import "golang.org/x/sys/unix"

// netCalls are the calls the network filter refuses, by the numbers of
// this architecture (amd64 and arm64 name the same ones, with different
// numbers; neither has a native socketcall).
var netCalls = []uint32{
	unix.SYS_SOCKET, unix.SYS_CONNECT, unix.SYS_BIND, unix.SYS_LISTEN, unix.SYS_ACCEPT, unix.SYS_ACCEPT4,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_PIDFD_GETFD,
}

// keyCalls are the kernel keyring's calls, refused whether or not the
// network is open: a confined command would otherwise read the keys the
// person's unconfined processes keep in the user and session keyrings
// (Kerberos tickets, credential helpers' secrets), which Landlock does not
// cover.
var keyCalls = []uint32{unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL}
