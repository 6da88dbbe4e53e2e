package subproc

// KeepFromChildren does nothing on Windows: a child inherits only the
// handles it is given (exec.Cmd's standard streams and ExtraFiles).
func KeepFromChildren() int { return 0 }
