package subproc

import (
	"errors"
	"strings"
)

// ErrMultiLine is why a shell command with a line break (or a NUL) does not
// start on Windows: cmd.exe /c runs the first line of its command and
// silently drops the rest, so such a command is refused instead of half
// run. On Unix, /bin/sh runs every line.
var ErrMultiLine = errors.New("cmd.exe runs a single line: join the commands with && or &")

// cmdExeLine is the Windows command line that runs command through the
// cmd.exe at exe: `"exe" /d /s /c "command"`. /d skips the AutoRun
// commands of the registry; /s with the outer quotes makes cmd.exe strip
// exactly those two quotes and run the rest as typed, so the command needs
// no escaping of ours (Go's argument quoting, made for programs that parse
// their command line with the C runtime's rules, would corrupt it). A pure
// function, so that it is tested on every OS.
func cmdExeLine(exe, command string) (string, error) {
	if strings.ContainsAny(command, "\r\n\x00") {
		return "", ErrMultiLine
	}
	return `"` + exe + `" /d /s /c "` + command + `"`, nil
}
