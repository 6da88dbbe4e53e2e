package sandbox

import "golang.org/x/sys/unix"

// nativeNet is arm64's: no x32; arm32 calls, where the CPU runs them, fail
// the architecture check.
var nativeNet = netABI{arch: unix.AUDIT_ARCH_AARCH64, deny: netCalls, pair: unix.SYS_SOCKETPAIR, keys: keyCalls}
