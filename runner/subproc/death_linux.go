package subproc

import "syscall"

// parentDeath asks the kernel to SIGKILL the child when the thread that
// started it (so, in practice, magi-code) dies: a magi-code killed without
// its cleanup leaves no child of its own running. The child's own children
// are reached by KillGroup on every path magi-code lives through.
func parentDeath(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
