package sandbox

import "golang.org/x/sys/unix"

// nativeNet is amd64's: x32 numbers are refused wholesale; the 32-bit
// ABI's calls (its socketcall among them) fail the architecture check.
var nativeNet = netABI{arch: unix.AUDIT_ARCH_X86_64, x32: true, deny: netCalls, pair: unix.SYS_SOCKETPAIR, keys: keyCalls}
