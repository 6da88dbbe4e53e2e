package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/magi-code/magi-code/runner/subproc"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat.
// It is 100 on every Linux the Go runtime supports.
const clockTicks = 100

// workspace is a temporary MC_HOME with the fixture provider and a
// working directory for the child.
type workspace struct {
	root string
	home string // MC_HOME
	cwd  string // canonical child cwd
}

// newWorkspace makes a workspace whose settings select the fixture
// provider; script, when not empty, is written next to MC_HOME and named by
// [providers.fixture] script.
func newWorkspace(script string) (*workspace, error) {
	root, err := os.MkdirTemp("", "magi-bench-")
	if err != nil {
		return nil, err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, err
	}
	w := &workspace{root: root, home: filepath.Join(root, "home"), cwd: filepath.Join(root, "work")}
	for _, d := range []string{w.home, w.cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	settings := "provider = \"fixture\"\nmodel = \"fixture-model\"\n"
	if script != "" {
		path := filepath.Join(root, "script.json")
		if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
			return nil, err
		}
		settings += "\n[providers.fixture]\nscript = " + strconv.Quote(path) + "\n"
	}
	if err := os.WriteFile(filepath.Join(w.home, "settings.toml"), []byte(settings), 0o600); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *workspace) remove() { os.RemoveAll(w.root) }

// child is one `magi-code serve --stdio` driven through raw pipes: the
// benchmark writes request bytes and reads output bytes itself, so that
// the CPU it spends is its own and the child's figures are the child's.
type child struct {
	cmd     *exec.Cmd
	stdin   *os.File // our end of the child's stdin
	stdout  *os.File // our end of the child's stdout
	stderr  *bytes.Buffer
	started time.Time
	exited  chan struct{} // closed when Wait returned
	exitAt  time.Time
	waitErr error

	// lines is the reader's buffer: buf[off:n] holds bytes not yet consumed.
	buf    []byte
	off, n int
	// read counts every byte read from stdout.
	read int64
	// pacing (see pace): at most readMax bytes per read, one read per
	// readEvery on an absolute schedule starting at nextRead.
	readMax   int
	readEvery time.Duration
	nextRead  time.Time
}

// startChild spawns `bin serve --stdio` in w. Only MC_HOME, HOME and PATH
// are passed on.
func startChild(bin string, w *workspace) (*child, error) {
	return startCmd(w, bin, "serve", "--stdio")
}

// startCmd spawns name with args in w, on pipes, in its own process group.
func startCmd(w *workspace, name string, args ...string) (*child, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c := &child{stdin: inW, stdout: outR, stderr: &bytes.Buffer{}, exited: make(chan struct{}), buf: make([]byte, 1<<20)}
	c.cmd = exec.Command(name, args...)
	c.cmd.Dir = w.cwd
	c.cmd.Env = []string{"MC_HOME=" + w.home, "HOME=" + w.root, "PATH=" + os.Getenv("PATH")}
	c.cmd.Stdin, c.cmd.Stdout = inR, outW
	c.cmd.Stderr = c.stderr // copied by exec's goroutine; Wait waits for it
	subproc.OwnGroup(c.cmd)
	c.started = time.Now()
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	inR.Close()
	outW.Close()
	go func() {
		c.waitErr = c.cmd.Wait()
		c.exitAt = time.Now()
		close(c.exited)
	}()
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// send writes raw request bytes (whole frames, LF included).
func (c *child) send(b []byte) error {
	_, err := c.stdin.Write(b)
	return err
}

// request formats one request frame.
func request(id, method, params string) []byte {
	return []byte(`{"protocol":"magi-code.local-agent","version":1,"id":"` + id + `","method":"` + method + `","params":` + params + "}\n")
}

// line returns the next output line (LF excluded); the slice is valid
// until the next call. io.EOF when the output ended.
func (c *child) line() ([]byte, error) {
	for {
		if i := bytes.IndexByte(c.buf[c.off:c.n], '\n'); i >= 0 {
			l := c.buf[c.off : c.off+i]
			c.off += i + 1
			return l, nil
		}
		if c.off > 0 {
			c.n = copy(c.buf, c.buf[c.off:c.n])
			c.off = 0
		}
		if c.n == len(c.buf) {
			return nil, errors.New("output line longer than the read buffer")
		}
		end := len(c.buf)
		if c.readMax > 0 {
			c.wait()
			end = min(end, c.n+c.readMax)
		}
		k, err := c.stdout.Read(c.buf[c.n:end])
		c.n += k
		c.read += int64(k)
		if k == 0 && err != nil {
			return nil, err
		}
	}
}

// pace makes every later read take at most n bytes, one read per every,
// on an absolute schedule: a reader held at a fixed rate.
func (c *child) pace(n int, every time.Duration) {
	c.readMax, c.readEvery, c.nextRead = n, every, time.Now()
}

// wait sleeps until the next paced read is due. A schedule that fell
// behind (a late wake-up) catches up by at most 10 reads.
func (c *child) wait() {
	now := time.Now()
	if d := c.nextRead.Sub(now); d > 0 {
		time.Sleep(d)
	} else if -d > 10*c.readEvery {
		c.nextRead = now.Add(-10 * c.readEvery)
	}
	c.nextRead = c.nextRead.Add(c.readEvery)
}

// response reads lines until the response to id and returns it; events
// and other responses in between are passed to other (when not nil).
func (c *child) response(id string, other func([]byte)) ([]byte, error) {
	want := []byte(`"id":"` + id + `"`)
	for {
		l, err := c.line()
		if err != nil {
			return nil, fmt.Errorf("waiting for %s: %w", id, err)
		}
		if bytes.Contains(l, want) && bytes.Contains(l, []byte(`"type":"response"`)) {
			return l, nil
		}
		if other != nil {
			other(l)
		}
	}
}

// call sends one request and decodes its result into v (nil: ignore); an
// error response is an error.
func (c *child) call(id, method, params string, v any) error {
	if err := c.send(request(id, method, params)); err != nil {
		return err
	}
	l, err := c.response(id, nil)
	if err != nil {
		return err
	}
	var r struct {
		Result json.RawMessage
		Error  *struct{ Code string }
	}
	if err := json.Unmarshal(l, &r); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if r.Error != nil {
		return fmt.Errorf("%s: error %s", method, r.Error.Code)
	}
	if v != nil {
		return json.Unmarshal(r.Result, v)
	}
	return nil
}

// initialize admits the child (fixture provider: ready at once).
func (c *child) initialize() error {
	return c.call("init", "initialize", `{"required_capabilities":["status","shutdown"]}`, nil)
}

// startReady spawns bin in w and initializes it; a child that fails to
// initialize is killed.
func startReady(bin string, w *workspace) (*child, error) {
	c, err := startChild(bin, w)
	if err != nil {
		return nil, err
	}
	if err := c.initialize(); err != nil {
		c.kill()
		return nil, err
	}
	return c, nil
}

// closeAndWait closes stdin, drains stdout and waits at most d for the
// exit; it kills the child's process group past d. It returns the exit code.
func (c *child) closeAndWait(d time.Duration) (int, error) {
	c.stdin.Close()
	go io.Copy(io.Discard, c.stdout)
	select {
	case <-c.exited:
	case <-time.After(d):
		c.kill()
		<-c.exited
		return -1, errors.New("child did not exit in time; killed")
	}
	c.stdout.Close()
	return c.cmd.ProcessState.ExitCode(), nil
}

// kill ends the child's process group.
func (c *child) kill() {
	_ = subproc.KillGroup(c.pid())
}

// procStatus reads a kB field (VmRSS, VmHWM) of /proc/PID/status in KiB.
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// procCPU reads the child's user+system CPU time from /proc/PID/stat (10 ms
// resolution), all threads included.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: count fields after ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	// Fields 14 and 15 (utime, stime) are f[11] and f[12] here.
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(u+s) * time.Second / clockTicks, nil
}

// rusageCPU is the exited child's user+system CPU time (µs resolution).
func (c *child) rusageCPU() time.Duration {
	st := c.cmd.ProcessState
	return st.UserTime() + st.SystemTime()
}
