//go:build unix

package transport

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client/clienttest"
)

// launchResult is what a launch left behind.
type launchResult struct {
	code   int
	stdout []byte
	stderr []byte
}

// runLaunch runs the binary with args, the given stdin and stdout (nil
// means a pipe: an empty stdin at EOF, or stdout captured through a pipe),
// and env, under the hang guard.
func runLaunch(t *testing.T, args []string, stdin, stdout *os.File, env []string) launchResult {
	t.Helper()
	cmd := exec.Command(clienttest.Binary(t), args...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	var out, errb bytes.Buffer
	// A non-*os.File reader or writer makes exec create a pipe (a FIFO).
	cmd.Stdin = strings.NewReader("")
	if stdin != nil {
		cmd.Stdin = stdin
	}
	cmd.Stdout = &out
	if stdout != nil {
		cmd.Stdout = stdout
	}
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(clienttest.HangGuard):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%q did not exit within %v", args, clienttest.HangGuard)
	}
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return launchResult{code: code, stdout: out.Bytes(), stderr: errb.Bytes()}
}

// wantRefused requires exit 2 with exactly one line on stderr and nothing
// on stdout.
func wantRefused(t *testing.T, r launchResult) {
	t.Helper()
	if r.code != 2 {
		t.Errorf("exit code %d; want 2 (stderr %q)", r.code, r.stderr)
	}
	if len(r.stderr) == 0 || r.stderr[len(r.stderr)-1] != '\n' || bytes.Count(r.stderr, []byte("\n")) != 1 {
		t.Errorf("stderr %q; want exactly one line", r.stderr)
	}
	if len(r.stdout) != 0 {
		t.Errorf("stdout %q; want nothing", r.stdout)
	}
}

// TestLaunchArgs: docs/protocol.md, Launch, the argument rules. Stdin and stdout
// are pipes, so only the arguments are wrong; no TTY is present, so the
// default and --prompt modes are refused too.
func TestLaunchArgs(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"serve without --stdio", []string{"serve"}},
		{"serve with extra flag after", []string{"serve", "--stdio", "--verbose"}},
		{"serve with extra flag before", []string{"serve", "--verbose", "--stdio"}},
		{"serve with extra argument", []string{"serve", "--stdio", "extra"}},
		{"serve with repeated --stdio", []string{"serve", "--stdio", "--stdio"}},
		{"serve --stdio=true", []string{"serve", "--stdio=true"}},
		{"flag before serve", []string{"--stdio", "serve"}},
		{"legacy --app", []string{"--app"}},
		{"legacy --app with serve", []string{"--app", "serve", "--stdio"}},
		{"legacy daemon", []string{"daemon"}},
		{"legacy daemon --stdio", []string{"daemon", "--stdio"}},
		{"--prompt without TTY", []string{"--prompt", "x"}},
		{"no arguments without TTY", []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, check := missingHome(t)
			wantRefused(t, runLaunch(t, c.args, nil, nil, env))
			check()
		})
	}
}

// socketpair returns both ends of a Unix stream socket pair.
func socketpair(t *testing.T) (mine, theirs *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	mine, theirs = os.NewFile(uintptr(fds[0]), "socket-mine"), os.NewFile(uintptr(fds[1]), "socket-theirs")
	t.Cleanup(func() { _ = mine.Close(); _ = theirs.Close() })
	return mine, theirs
}

// TestLaunchEndpoints: docs/protocol.md, Choices: "Only FIFOs are transport endpoints: a
// character device such as /dev/null, a TTY, a regular file or a socket on
// fd 0 or fd 1 exits 2", before any side effect, and no byte reaches the
// refused endpoint.
func TestLaunchEndpoints(t *testing.T) {
	serve := []string{"serve", "--stdio"}
	// Each case returns the child's stdin and stdout (nil: a pipe) and a
	// check, run after the exit, that nothing was written to the endpoint.
	cases := []struct {
		name  string
		setup func(t *testing.T) (stdin, stdout *os.File, written func() []byte)
	}{
		{"stdout regular file", func(t *testing.T) (*os.File, *os.File, func() []byte) {
			f := tempFile(t, "")
			return nil, f, func() []byte { return readPath(t, f.Name()) }
		}},
		{"stdout socketpair", func(t *testing.T) (*os.File, *os.File, func() []byte) {
			mine, theirs := socketpair(t)
			return nil, theirs, func() []byte { return drainSocket(t, mine, theirs) }
		}},
		{"stdout /dev/null", func(t *testing.T) (*os.File, *os.File, func() []byte) {
			return nil, devNull(t, os.O_WRONLY), func() []byte { return nil }
		}},
		{"stdin /dev/null", func(t *testing.T) (*os.File, *os.File, func() []byte) {
			return devNull(t, os.O_RDONLY), nil, func() []byte { return nil }
		}},
		{"stdin regular file", func(t *testing.T) (*os.File, *os.File, func() []byte) {
			return tempFile(t, reqLine("r1", "initialize", initParams)), nil, func() []byte { return nil }
		}},
		{"stdin socketpair", func(t *testing.T) (*os.File, *os.File, func() []byte) {
			mine, theirs := socketpair(t)
			if _, err := mine.Write([]byte(reqLine("r1", "initialize", initParams))); err != nil {
				t.Fatal(err)
			}
			return theirs, nil, func() []byte { return nil }
		}},
		{"both sockets", func(t *testing.T) (*os.File, *os.File, func() []byte) {
			mine, theirs := socketpair(t)
			return theirs, theirs, func() []byte { return drainSocket(t, mine, theirs) }
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, check := missingHome(t)
			stdin, stdout, written := c.setup(t)
			wantRefused(t, runLaunch(t, serve, stdin, stdout, env))
			if b := written(); len(b) != 0 {
				t.Errorf("refused endpoint received %q", b)
			}
			check()
		})
	}
}

// TestLaunchPipesServe: with pipes on both ends serve runs, and (docs/protocol.md, Choices)
// "serve creates nothing before initialize is admitted": EOF at once exits
// 0 with nothing on stdout or stderr and no MC_HOME.
func TestLaunchPipesServe(t *testing.T) {
	env, check := missingHome(t)
	r := runLaunch(t, []string{"serve", "--stdio"}, nil, nil, env)
	if r.code != 0 || len(r.stdout) != 0 || len(r.stderr) != 0 {
		t.Errorf("serve --stdio with pipes and immediate EOF: exit %d, stdout %q, stderr %q; want 0, empty, empty", r.code, r.stdout, r.stderr)
	}
	check()
}

func tempFile(t *testing.T, content string) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "endpoint")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func readPath(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func devNull(t *testing.T, flag int) *os.File {
	t.Helper()
	f, err := os.OpenFile(os.DevNull, flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// drainSocket closes our copy of the child's end (the child has exited)
// and returns everything the child wrote into it.
func drainSocket(t *testing.T, mine, theirs *os.File) []byte {
	t.Helper()
	_ = theirs.Close()
	b, err := io.ReadAll(mine)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
