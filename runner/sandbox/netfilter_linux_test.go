//go:build linux && (amd64 || arm64)

package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/magi-code/magi-code/internal/ostest"
)

// verdict runs the network filter of a over one seccomp_data in the BPF
// VM, with args as the low words of the call's first arguments. The
// kernel's loads read seccomp_data's words in the machine's byte order,
// the VM's in network order: the data is written big-endian so the VM
// reads the values the kernel would (on amd64 and arm64, little-endian,
// the low word of an argument is its first).
func verdict(t *testing.T, a netABI, arch, nr uint32, args ...uint32) uint32 {
	t.Helper()
	return verdictOf(t, a, false, arch, nr, args...)
}

// verdictOf is verdict of the closed filter, or with open of the filter
// of a command that has the network.
func verdictOf(t *testing.T, a netABI, open bool, arch, nr uint32, args ...uint32) uint32 {
	t.Helper()
	raw, err := netFilter(a, open)
	if err != nil {
		t.Fatal(err)
	}
	prog, exact := bpf.Disassemble(raw)
	if !exact {
		t.Fatal("the filter does not disassemble exactly")
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 64) // nr, arch, instruction_pointer, args[6]
	binary.BigEndian.PutUint32(data[seccompNr:], nr)
	binary.BigEndian.PutUint32(data[seccompArch:], arch)
	for i, v := range args {
		binary.BigEndian.PutUint32(data[seccompArgs+8*i:], v)
		binary.BigEndian.PutUint32(data[seccompArgs+8*i+4:], 0xdeadbeef) // the high word, which the kernel ignores for an int
	}
	v, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(v)
}

// TestNetFilterVerdicts runs the native filter in a BPF VM: every socket
// call that reaches outside, io_uring and pidfd_getfd are refused with
// EPERM, and no other native call is (socketpair, read, execve... the
// whole table up to 1024); a call through another ABI (the 32-bit one,
// whose socketcall multiplexes socket) kills; on amd64 every x32 number is
// refused.
func TestNetFilterVerdicts(t *testing.T) {
	if !NetworkClosable() {
		t.Skip("no network filter for this architecture")
	}
	a := nativeNet
	native := map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]
	if a.arch != native || a.x32 != (runtime.GOARCH == "amd64") {
		t.Fatalf("%s: filter for arch %#x (x32 %v)", runtime.GOARCH, a.arch, a.x32)
	}
	refused := map[uint32]string{
		unix.SYS_SOCKET: "socket", unix.SYS_CONNECT: "connect", unix.SYS_BIND: "bind", unix.SYS_LISTEN: "listen",
		unix.SYS_ACCEPT: "accept", unix.SYS_ACCEPT4: "accept4",
		unix.SYS_IO_URING_SETUP: "io_uring_setup", unix.SYS_IO_URING_ENTER: "io_uring_enter", unix.SYS_IO_URING_REGISTER: "io_uring_register",
		unix.SYS_PIDFD_GETFD: "pidfd_getfd",
		unix.SYS_KEYCTL:      "keyctl", unix.SYS_ADD_KEY: "add_key", unix.SYS_REQUEST_KEY: "request_key",
	}
	for nr := uint32(0); nr < 1024; nr++ {
		var args []uint32
		if nr == unix.SYS_SOCKETPAIR {
			args = []uint32{unix.AF_UNIX, unix.SOCK_STREAM}
		}
		got := verdict(t, a, a.arch, nr, args...)
		name, deny := refused[nr]
		switch {
		case deny && got != retEPERM:
			t.Errorf("%s (%d): verdict %#x, want EPERM", name, nr, got)
		case !deny && got != retAllow:
			t.Errorf("native call %d: verdict %#x, want allow", nr, got)
		}
	}
	for _, nr := range []uint32{unix.SYS_READ, unix.SYS_EXECVE, unix.SYS_SENDMSG, unix.SYS_RECVMSG, unix.SYS_SENDTO} {
		if got := verdict(t, a, a.arch, nr, unix.AF_UNIX, unix.SOCK_DGRAM); got != retAllow {
			t.Errorf("call %d: verdict %#x, want allow", nr, got)
		}
	}
	// socketpair: AF_UNIX stream and seqpacket pairs (with their flags)
	// connect only their holders; a datagram pair sends to any bound
	// address named in sendto, another family's pair is a network socket.
	for _, tc := range []struct {
		domain, typ uint32
		want        uint32
	}{
		{unix.AF_UNIX, unix.SOCK_STREAM, retAllow},
		{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC | unix.SOCK_NONBLOCK, retAllow},
		{unix.AF_UNIX, unix.SOCK_SEQPACKET, retAllow},
		{unix.AF_UNIX, unix.SOCK_SEQPACKET | unix.SOCK_CLOEXEC, retAllow},
		{unix.AF_UNIX, unix.SOCK_DGRAM, retEPERM},
		{unix.AF_UNIX, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC, retEPERM},
		{unix.AF_UNIX, unix.SOCK_RAW, retEPERM},
		{unix.AF_UNIX, unix.SOCK_RDM, retEPERM},
		{unix.AF_UNIX, 0, retEPERM},
		{unix.AF_UNIX, unix.SOCK_STREAM | 0x10, retAllow}, // an unknown flag: the kernel says EINVAL
		{unix.AF_TIPC, unix.SOCK_STREAM, retEPERM},
		{unix.AF_TIPC, unix.SOCK_SEQPACKET, retEPERM},
		{unix.AF_INET, unix.SOCK_STREAM, retEPERM},
		{unix.AF_UNIX | 0x100, unix.SOCK_STREAM, retEPERM},
		{0, unix.SOCK_STREAM, retEPERM},
	} {
		if got := verdict(t, a, a.arch, unix.SYS_SOCKETPAIR, tc.domain, tc.typ); got != tc.want {
			t.Errorf("socketpair(%d, %#x): verdict %#x, want %#x", tc.domain, tc.typ, got, tc.want)
		}
	}
	// With the network open: the keyring's calls alone are refused, the
	// architecture still checked.
	keys := map[uint32]bool{unix.SYS_KEYCTL: true, unix.SYS_ADD_KEY: true, unix.SYS_REQUEST_KEY: true}
	for nr := uint32(0); nr < 1024; nr++ {
		want := uint32(retAllow)
		if keys[nr] {
			want = retEPERM
		}
		if got := verdictOf(t, a, true, a.arch, nr, unix.AF_UNIX, unix.SOCK_DGRAM); got != want {
			t.Errorf("network open, call %d: verdict %#x, want %#x", nr, got, want)
		}
	}
	if a.x32 {
		for _, nr := range []uint32{unix.SYS_SOCKET, unix.SYS_KEYCTL, unix.SYS_READ, 0x3fffffff} {
			if got := verdictOf(t, a, true, a.arch, nr|x32Bit); got != retEPERM {
				t.Errorf("network open, x32 call %#x: verdict %#x, want EPERM", nr|x32Bit, got)
			}
		}
	}
	if got := verdictOf(t, a, true, unix.AUDIT_ARCH_I386, 102); got != retKill {
		t.Errorf("network open, i386 socketcall: verdict %#x, want kill", got)
	}
	// Another architecture's calls: i386's socketcall (102) and socket
	// (359), arm's socket (281), anything at all.
	for _, foreign := range []uint32{unix.AUDIT_ARCH_I386, unix.AUDIT_ARCH_ARM, unix.AUDIT_ARCH_X86_64 ^ unix.AUDIT_ARCH_AARCH64 ^ a.arch, 0} {
		for _, nr := range []uint32{102, 359, 281, unix.SYS_READ, unix.SYS_SOCKETPAIR} {
			if got := verdict(t, a, foreign, nr); got != retKill {
				t.Errorf("arch %#x call %d: verdict %#x, want kill", foreign, nr, got)
			}
		}
	}
	if a.x32 {
		for _, nr := range []uint32{unix.SYS_SOCKET, unix.SYS_SOCKETPAIR, unix.SYS_READ, 0, 512, 0x3fffffff} {
			if got := verdict(t, a, a.arch, nr|x32Bit); got != retEPERM {
				t.Errorf("x32 call %#x: verdict %#x, want EPERM", nr|x32Bit, got)
			}
		}
	}
}

// TestNetFilterRefusesEmpty: no architecture facts, no filter (the
// launcher then refuses the command rather than run it with the network).
func TestNetFilterRefusesEmpty(t *testing.T) {
	if _, err := netFilter(netABI{}, false); err == nil {
		t.Error("a filter was assembled without an architecture")
	}
	if _, err := netFilter(netABI{arch: nativeNet.arch, x32: nativeNet.x32, deny: nativeNet.deny, keys: nativeNet.keys}, false); err == nil {
		t.Error("a filter was assembled without socketpair's number (it would allow every pair)")
	}
	if _, err := netFilter(netABI{arch: nativeNet.arch, x32: nativeNet.x32, deny: nativeNet.deny, pair: nativeNet.pair}, true); err == nil {
		t.Error("a filter was assembled without the keyring's calls")
	}
}

// Exit statuses of netProbe.
const (
	probeDone    = 0
	probeRefused = 3 // EPERM or EACCES: the sandbox said no
	probeOther   = 4
	probeAbsent  = 5 // the kernel lacks the call (ENOSYS, or io_uring disabled)
)

// netProbe is what the test binary does when run as a confined command
// with SANDBOX_NETPROBE set: one network operation, its outcome as the
// exit status. TestMain calls it.
func netProbe(op, arg string) int {
	refused := func(err error) int {
		switch {
		case err == nil:
			return probeDone
		case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
			return probeRefused
		case errors.Is(err, unix.ENOSYS):
			return probeAbsent
		}
		fmt.Fprintln(os.Stderr, op, err)
		return probeOther
	}
	switch op {
	case "tcp", "unix":
		c, err := net.Dial(op, arg)
		if err == nil {
			c.Close()
		}
		return refused(err)
	case "socketpair":
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return refused(err)
		}
		if _, err := unix.Write(fds[0], []byte("ping")); err != nil {
			return refused(err)
		}
		buf := make([]byte, 4)
		if n, err := unix.Read(fds[1], buf); err != nil || string(buf[:n]) != "ping" {
			return probeOther
		}
		return probeDone
	case "dgram":
		// A datagram pair's sendto names a UNIX socket bound outside.
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return refused(err)
		}
		return refused(unix.Sendto(fds[0], []byte("ping"), 0, &unix.SockaddrUnix{Name: arg}))
	case "keyring":
		// A key the person's unconfined process keeps in the user keyring.
		id, err := unix.KeyctlSearch(unix.KEY_SPEC_USER_KEYRING, "user", arg, 0)
		if err != nil {
			return refused(err)
		}
		buf := make([]byte, 64)
		_, err = unix.KeyctlBuffer(unix.KEYCTL_READ, id, buf, 0)
		return refused(err)
	case "io_uring":
		var params [120]byte // struct io_uring_params
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno == 0 {
			unix.Close(int(fd))
			return probeDone
		}
		if errno == unix.EPERM && arg == "disabled" {
			return probeAbsent
		}
		return refused(errno)
	case "x32":
		// socket(AF_INET, SOCK_STREAM) by its x32 number; most kernels
		// lack x32 (ENOSYS), but the filter sees the call before that.
		fd, _, errno := unix.RawSyscall(unix.SYS_SOCKET|x32Bit, unix.AF_INET, unix.SOCK_STREAM, 0)
		if errno == 0 {
			unix.Close(int(fd))
			return probeDone
		}
		return refused(errno)
	}
	return probeOther
}

// TestNetworkClosed runs this test binary as a confined command that
// tries each route out, with the network closed and open: TCP to a
// listener of the test on 127.0.0.1, a UNIX socket with a path and an
// abstract one, both served by the test from outside the sandbox, a
// datagram socketpair's sendto to a UNIX datagram socket bound outside,
// io_uring, an x32 socket call (amd64). Closed, each is refused (EPERM or
// EACCES: the sandbox, not a failure elsewhere); open, each works, except
// the abstract socket where Landlock (ABI 6 and later) scopes it either
// way. socketpair works either way.
func TestNetworkClosed(t *testing.T) {
	requireLandlock(t)
	if !NetworkClosable() {
		t.Skip("no network filter for this architecture")
	}
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	serve := func(ln net.Listener) {
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(tcp)
	sock := filepath.Join(ostest.OutsideTemp(t), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	serve(ln)
	if err := os.Chmod(sock, 0o777); err != nil {
		t.Fatal(err)
	}
	dgram := filepath.Join(filepath.Dir(sock), "journal.sock")
	dc, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: dgram, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dc.Close() })
	if err := os.Chmod(dgram, 0o777); err != nil {
		t.Fatal(err)
	}
	key := "magi-code-test-" + strconv.Itoa(os.Getpid())
	keyring := "keyring"
	if _, err := unix.AddKey("user", key, []byte("canary"), unix.KEY_SPEC_USER_KEYRING); err != nil {
		t.Logf("no user keyring here (%v): the keyring's refusal is shown by TestNetFilterVerdicts only", err)
		keyring = ""
	}
	abstract := "@magi-code-test-" + strconv.Itoa(os.Getpid())
	if ln, err = net.Listen("unix", abstract); err != nil {
		t.Fatal(err)
	}
	serve(ln)
	ioUring := "enabled"
	if b, err := os.ReadFile("/proc/sys/kernel/io_uring_disabled"); err == nil && len(b) > 0 && b[0] != '0' {
		ioUring = "disabled"
	}
	abi := Probe().ABI
	for _, tc := range []struct {
		op, arg  string
		openWant int
	}{
		{"tcp", tcp.Addr().String(), probeDone},
		{"unix", sock, probeDone},
		{"dgram", dgram, probeDone},
		{keyring, key, probeRefused},
		{"unix", abstract, map[bool]int{true: probeRefused, false: probeDone}[abi >= 6]},
		{"io_uring", ioUring, probeDone},
		{"x32", "", probeRefused}, // the keyring's filter refuses x32 numbers too
	} {
		if tc.op == "" || tc.op == "x32" && runtime.GOARCH != "amd64" {
			continue
		}
		for _, network := range []bool{false, true} {
			cmd := exec.Command(self)
			cmd.Env = append(os.Environ(), "SANDBOX_NETPROBE="+tc.op, "SANDBOX_NETPROBE_ARG="+tc.arg)
			if err := (Policy{Writable: []string{t.TempDir()}, Network: network}).Wrap(cmd, self); err != nil {
				t.Fatal(err)
			}
			out, err := cmd.CombinedOutput()
			got := exitCode(err)
			want := probeRefused
			if network {
				want = tc.openWant
			}
			if got == probeAbsent && (tc.op == "io_uring" || tc.op == "x32") && network {
				t.Logf("%s: not offered by this kernel", tc.op)
				continue
			}
			if tc.op == "io_uring" && ioUring == "disabled" {
				t.Logf("io_uring is disabled by the kernel's setting: the filter's refusal is shown by TestNetFilterVerdicts only")
				continue
			}
			if got != want {
				t.Errorf("%s %s with network %v: exit %d, want %d (%q)", tc.op, tc.arg, network, got, want, out)
			}
		}
	}
	for _, network := range []bool{false, true} {
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), "SANDBOX_NETPROBE=socketpair")
		if err := (Policy{Writable: []string{t.TempDir()}, Network: network}).Wrap(cmd, self); err != nil {
			t.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("socketpair with network %v: %v (%q)", network, err, out)
		}
	}
}

// exitCode is a finished command's exit status, -1 when it did not exit.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -1
		}
		return ee.ExitCode()
	}
	return -1
}
