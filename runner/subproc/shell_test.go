package subproc

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCmdExeLine(t *testing.T) {
	const exe = `C:\Windows\system32\cmd.exe`
	for _, c := range []struct{ command, want string }{
		{`echo hi`, `"C:\Windows\system32\cmd.exe" /d /s /c "echo hi"`},
		// Quotes, carets, percent signs and redirections reach cmd.exe as
		// typed: /s strips only the outer pair.
		{`"C:\Program Files\x.exe" "a b" > out.txt && echo %PATH% ^& done`,
			`"C:\Windows\system32\cmd.exe" /d /s /c ""C:\Program Files\x.exe" "a b" > out.txt && echo %PATH% ^& done"`},
		{``, `"C:\Windows\system32\cmd.exe" /d /s /c ""`},
	} {
		got, err := cmdExeLine(exe, c.command)
		if err != nil || got != c.want {
			t.Errorf("cmdExeLine(%q) = %q, %v; want %q", c.command, got, err, c.want)
		}
	}
	for _, bad := range []string{"echo a\necho b", "echo a\r\necho b", "echo a\r", "echo \x00"} {
		if got, err := cmdExeLine(exe, bad); !errors.Is(err, ErrMultiLine) || got != "" {
			t.Errorf("cmdExeLine(%q) = %q, %v; want ErrMultiLine", bad, got, err)
		}
	}
}

// On Unix the shell is /bin/sh, and every line of a command runs.
func TestShellRunsEveryLine(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("cmd.exe: see TestCmdExeLine")
	}
	cmd := Shell(context.Background(), "echo one\necho two")
	out, err := cmd.Output()
	if err != nil || string(out) != "one\ntwo\n" || cmd.Path != "/bin/sh" {
		t.Fatalf("Shell ran %s: %q, %v; want /bin/sh printing both lines", cmd.Path, out, err)
	}
	var exitErr *exec.ExitError
	if err := Shell(context.Background(), "exit 3").Run(); !errors.As(err, &exitErr) || exitErr.ExitCode() != 3 {
		t.Fatalf("exit 3: %v", err)
	}
	if !strings.Contains(ShellName, "/bin/sh") {
		t.Errorf("ShellName = %q", ShellName)
	}
}

// On Windows the shell is the system's cmd.exe: && chains, the exit status
// comes back, and a command with a line break does not start.
func TestShellRunsCmdExe(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("cmd.exe exists on Windows only")
	}
	cmd := Shell(context.Background(), `echo one&& echo "two three"`)
	out, err := cmd.Output()
	if err != nil || strings.ReplaceAll(string(out), "\r\n", "\n") != "one\n\"two three\"\n" || !strings.EqualFold(filepath.Base(cmd.Path), "cmd.exe") {
		t.Fatalf("Shell ran %s: %q, %v; want cmd.exe printing both lines", cmd.Path, out, err)
	}
	var exitErr *exec.ExitError
	if err := Shell(context.Background(), "exit /b 3").Run(); !errors.As(err, &exitErr) || exitErr.ExitCode() != 3 {
		t.Fatalf("exit /b 3: %v", err)
	}
	if err := Shell(context.Background(), "echo a\necho b").Run(); !errors.Is(err, ErrMultiLine) {
		t.Fatalf("a two-line command: %v; want ErrMultiLine", err)
	}
}
