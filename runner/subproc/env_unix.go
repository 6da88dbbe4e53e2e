//go:build !windows

package subproc

var inherited = [...]string{"PATH", "HOME", "LANG", "TERM"}
