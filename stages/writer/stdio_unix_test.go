//go:build unix

package writer

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const helperEnv = "MAGI_WRITER_TAKESTDIO_HELPER"

// takeStdioHelper runs in a child process: after TakeStdio, stray prints and
// subprocess output must not reach the protocol stream, subprocesses must
// not inherit the protocol descriptors, and only what goes through out does.
func takeStdioHelper() {
	in, out, err := TakeStdio()
	if err != nil {
		os.Exit(3)
	}
	fmt.Println("stray print")
	os.Stdout.WriteString("stray write\n")
	// Inherits fd 0 and fd 1 (now /dev/null): prints nothing we can see,
	// reads no protocol input.
	sub := exec.Command("/bin/sh", "-c", "echo from-subprocess; read x && echo got-input")
	sub.Stdin, sub.Stdout = os.Stdin, os.Stdout
	sub.Run()
	var fds []string
	for _, f := range []*os.File{in, out} {
		raw, _ := f.SyscallConn()
		raw.Control(func(fd uintptr) { fds = append(fds, fmt.Sprint(fd)) })
	}
	leaked, _ := exec.Command("/bin/sh", "-c", "for n in "+strings.Join(fds, " ")+"; do [ -e /proc/self/fd/$n ] && echo leaked-$n; done; true").Output()
	buf := make([]byte, 64)
	n, _ := in.Read(buf)
	out.Write([]byte("protocol:" + string(leaked) + string(buf[:n])))
	os.Exit(0)
}

func TestTakeStdio(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin.Write([]byte("hello\n"))
	stdin.Close()
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	if string(got) != "protocol:hello\n" {
		t.Fatalf("stdout = %q; want only the protocol bytes %q", got, "protocol:hello\n")
	}
}
