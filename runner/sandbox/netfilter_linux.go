//go:build linux

package sandbox

import (
	"errors"
	"slices"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The network filter: a seccomp-BPF program the launcher installs, after
// no_new_privs, in a command that does not get the network (Policy.Network
// false), on every Landlock ABI. "The network" is every socket that
// reaches outside the command's own processes: socket(2) fails with EPERM
// for every family, AF_INET, AF_INET6, AF_NETLINK and AF_UNIX alike (a
// UNIX socket with a path or an abstract name reaches daemons that act
// unconfined for the caller: an ssh agent, a tmux server, docker.sock).
// socketpair(2) stays allowed for AF_UNIX with SOCK_STREAM or
// SOCK_SEQPACKET: such a pair connects only the processes that hold it (a
// pipe with messages: node's child IPC, Python's multiprocessing), as the
// kernel ignores or refuses a destination address given to sendto or
// sendmsg on them. Every other pair is refused: a SOCK_DGRAM pair sends to
// any address named in sendto or sendmsg (a bound UNIX datagram socket
// outside the sandbox: journald's, syslog's /dev/log, systemd's notify
// socket), and another family's pair (TIPC's) is a network socket.
// connect, bind, listen and accept are refused too, for a socket the
// command might have inherited.
//
// Around those calls, the routes by which a filter keyed on system call
// numbers is walked past are closed:
//   - seccomp_data.arch must be the native AUDIT_ARCH: a call made through
//     another ABI (int 0x80 on amd64, whose numbers differ and whose
//     socketcall multiplexes every socket call) kills the process;
//   - on amd64, x32 numbers (bit 30 set) are refused whatever they name;
//   - socketcall is refused where the native ABI has it;
//   - io_uring_setup, io_uring_enter and io_uring_register are refused:
//     io_uring opens and connects sockets in the kernel, where no filter
//     sees a system call;
//   - pidfd_getfd is refused: it copies a descriptor (a connected socket)
//     out of another process (Landlock's ptrace scope refuses it too).
//
// Landlock's TCP rules (ABI 4 and later) stay on as a second layer.

// Offsets in struct seccomp_data.
const (
	seccompNr   = 0
	seccompArch = 4
	seccompArgs = 16 // args[6], 64 bits each; amd64 and arm64 are little-endian: an int argument is the low word, first
)

// Return values of the filter.
const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retKill  = 0x80000000 // SECCOMP_RET_KILL_PROCESS
)

// x32Bit marks the system call numbers of amd64's x32 ABI.
const x32Bit = 0x40000000

// netABI is one architecture's facts for the filter.
type netABI struct {
	arch uint32   // its AUDIT_ARCH value
	x32  bool     // numbers with x32Bit are another ABI (amd64)
	deny []uint32 // the calls refused with EPERM
	pair uint32   // socketpair's number: allowed for AF_UNIX stream and seqpacket pairs only
	keys []uint32 // the keyring's calls, refused with the network open too
}

// netFilter assembles the program for a: check the architecture (kill on
// any other), refuse x32 numbers where a has them, allow socketpair for
// AF_UNIX stream and seqpacket pairs only, refuse a.deny, allow the rest.
//
// With open, the filter of a command that has the network: the
// architecture checks and a.keys only.
func netFilter(a netABI, open bool) ([]bpf.RawInstruction, error) {
	if a.arch == 0 || a.pair == 0 || len(a.deny) == 0 || len(a.keys) == 0 || len(a.deny)+len(a.keys) > 200 {
		return nil, errors.New("no filter for this architecture")
	}
	deny := append(slices.Clone(a.keys), a.deny...)
	if open {
		deny = a.keys
	}
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: seccompArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: a.arch, SkipTrue: 1},
		bpf.RetConstant{Val: retKill},
		bpf.LoadAbsolute{Off: seccompNr, Size: 4},
	}
	// socketpair(domain, type, ...): the kernel reads both as int (the
	// low word) and type's low four bits as the type, the rest as flags.
	pair := []bpf.Instruction{
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: a.pair, SkipTrue: 8}, // not socketpair: on to the deny checks
		bpf.LoadAbsolute{Off: seccompArgs, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.AF_UNIX, SkipTrue: 5},
		bpf.LoadAbsolute{Off: seccompArgs + 8, Size: 4},
		bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_STREAM, SkipTrue: 1},
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SOCK_SEQPACKET, SkipTrue: 1},
		bpf.RetConstant{Val: retAllow},
		bpf.RetConstant{Val: retEPERM},
	}
	if open {
		pair = nil
	}
	// Every check jumps, on a match, to the last instruction (the
	// refusal), past the checks after it and the allow.
	checks := len(deny)
	if a.x32 {
		checks++
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: x32Bit, SkipTrue: uint8(len(pair) + checks)})
	}
	prog = append(prog, pair...)
	for i, nr := range deny {
		rest := len(deny) - 1 - i
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipTrue: uint8(rest + 1)})
	}
	prog = append(prog, bpf.RetConstant{Val: retAllow}, bpf.RetConstant{Val: retEPERM})
	return bpf.Assemble(prog)
}

// NetworkClosable reports whether the launcher can close the network on
// this architecture (amd64 and arm64): where it cannot, a command whose
// Policy has Network false is refused by the launcher.
func NetworkClosable() bool { return nativeNet.arch != 0 }

// closeNetwork installs the network filter in this process, all threads
// (TSYNC); with open, the filter of a command that has the network.
// no_new_privs must be set already.
func closeNetwork(open bool) error {
	raw, err := netFilter(nativeNet, open)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	if errno != 0 {
		return errno
	}
	return nil
}
