//go:build windows

package subproc

// inherited on Windows: SystemRoot (without it Winsock, and with it most
// networking programs, fail to start), ComSpec and PATHEXT (how cmd.exe
// finds programs), TEMP and TMP, and USERPROFILE, Windows's HOME.
var inherited = [...]string{"PATH", "HOME", "LANG", "TERM", "SystemRoot", "ComSpec", "PATHEXT", "TEMP", "TMP", "USERPROFILE"}
