package conformance

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/magi-code/magi-code/protocol"
)

// Server says how to start the server under test, once per transcript.
type Server struct {
	// Argv is the program and its arguments; when empty, Shell is run
	// with /bin/sh -c (so it may set variables: "MC_HOME=/tmp/h magi-code serve --stdio").
	Argv  []string
	Shell string
	// Env is the whole environment of the server. When Isolate is set,
	// MC_HOME, HOME and PATH are set to the transcript's workspace
	// instead (magi-code's own transcripts, with their settings files).
	Env     []string
	Isolate bool
	// Dir is the server's working directory; "" is the transcript's
	// temporary work directory (always so when Isolate is set).
	Dir string
	// EmptyStderr requires that the server write nothing to stderr.
	EmptyStderr bool
	// Wait bounds each wait for a frame or an exit (default 60 s). It only
	// turns a hang into a failure.
	Wait time.Duration
}

// Failure is a failed transcript: the step's line and what went wrong.
type Failure struct {
	Line int
	Msg  string
	// Check names the stream check that failed ("" for a transcript step).
	Check string
}

func (f *Failure) Error() string {
	if f.Line == 0 {
		return f.Msg
	}
	return fmt.Sprintf("line %d: %s", f.Line, f.Msg)
}

// Stats counts what a run saw, for the kit's report.
type Stats struct {
	Frames int
}

// Run starts the server in a fresh temporary workspace (MC_HOME and a
// working directory holding the transcript's files), plays the transcript
// and checks every frame. It returns nil when everything held, else a
// *Failure. The server is killed when Run returns.
func Run(ctx context.Context, t *Transcript, srv Server) (Stats, error) {
	if srv.Wait <= 0 {
		srv.Wait = 60 * time.Second
	}
	root, err := os.MkdirTemp("", "magi-code-transcript-")
	if err != nil {
		return Stats{}, err
	}
	defer os.RemoveAll(root)
	home, work := filepath.Join(root, "home"), filepath.Join(root, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return Stats{}, err
		}
	}
	expand := strings.NewReplacer("$MC_HOME", home, "$WORK", work)
	for name, text := range t.Files {
		dst := filepath.Join(work, strings.TrimPrefix(name, "work/"))
		if !strings.HasPrefix(name, "work/") {
			dst = filepath.Join(home, strings.TrimPrefix(name, "home/"))
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return Stats{}, err
		}
		if err := os.WriteFile(dst, []byte(expand.Replace(text)), 0o600); err != nil {
			return Stats{}, err
		}
	}
	var cmd *exec.Cmd
	if len(srv.Argv) > 0 {
		cmd = exec.Command(srv.Argv[0], srv.Argv[1:]...)
	} else {
		cmd = exec.Command("/bin/sh", "-c", srv.Shell)
	}
	cmd.Dir, cmd.Env = srv.Dir, srv.Env
	if srv.Isolate || cmd.Dir == "" {
		cmd.Dir = work
	}
	if srv.Isolate {
		cmd.Env = []string{"MC_HOME=" + home, "HOME=" + root, "PATH=" + os.Getenv("PATH")}
	}
	setProcessGroup(cmd)
	p := &proc{cmd: cmd, srv: srv, s: newStream(), b: bindings{}}
	if err := p.start(); err != nil {
		return Stats{}, err
	}
	defer p.kill()
	err = p.play(ctx, t.Steps)
	return Stats{Frames: p.s.frames}, err
}

// proc is one running server and the state of its transcript.
type proc struct {
	cmd    *exec.Cmd
	srv    Server
	stdin  io.WriteCloser
	stderr bytes.Buffer
	frames chan []byte // closed at EOF of stdout
	readMu sync.Mutex  // guards readErr
	// readErr is a framing violation or read error; set before frames closes.
	readErr *Violation
	next    []byte // a frame read but not consumed (lazy <*)
	s       *stream
	b       bindings
	exited  chan error
}

func (p *proc) start() error {
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	p.cmd.Stderr = &limited{buf: &p.stderr, n: 64 << 10}
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("starting the server: %w", err)
	}
	p.frames = make(chan []byte, 1<<14)
	p.exited = make(chan error, 1)
	readDone := make(chan struct{})
	go func() {
		// Ends at EOF of stdout, which the server's exit (or kill) brings.
		defer close(p.frames)
		defer close(readDone)
		br := bufio.NewReaderSize(stdout, protocol.MaxOutputFrameBytes+1)
		for {
			line, err := br.ReadSlice('\n')
			switch {
			case err == nil:
				p.frames <- bytes.Clone(line)
				continue
			case errors.Is(err, bufio.ErrBufferFull):
				p.setReadErr(violation(CheckFraming, "a frame longer than %d bytes", protocol.MaxOutputFrameBytes))
			case errors.Is(err, io.EOF) && len(line) > 0:
				p.setReadErr(violation(CheckFraming, "%d bytes without LF at the end of the output", len(line)))
			case !errors.Is(err, io.EOF):
				p.setReadErr(violation(CheckFraming, "reading the output: %v", err))
			}
			_, _ = io.Copy(io.Discard, br)
			return
		}
	}()
	// Wait closes stdout: reap only after the reader saw EOF.
	go func() { <-readDone; p.exited <- p.cmd.Wait() }()
	return nil
}

func (p *proc) setReadErr(v *Violation) {
	p.readMu.Lock()
	p.readErr = v
	p.readMu.Unlock()
}

func (p *proc) kill() {
	if p.cmd.Process != nil {
		killProcessGroup(p.cmd)
	}
	_ = p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
}

// errEOF is returned by read when the output ended cleanly.
var errEOF = errors.New("the server's output ended")

// read returns the next frame, decoded and checked, leaving it unconsumed
// when peek is set.
func (p *proc) read(ctx context.Context, peek bool) ([]byte, map[string]any, error) {
	if p.next == nil {
		select {
		case line, ok := <-p.frames:
			if !ok {
				p.readMu.Lock()
				defer p.readMu.Unlock()
				if p.readErr != nil {
					return nil, nil, &Failure{Check: p.readErr.Check, Msg: p.readErr.Error()}
				}
				return nil, nil, fmt.Errorf("%w%s", errEOF, p.ended())
			}
			if _, v := p.s.frame(line); v != nil {
				return nil, nil, &Failure{Check: v.Check, Msg: v.Error()}
			}
			p.next = line
		case <-time.After(p.srv.Wait):
			return nil, nil, fmt.Errorf("no frame within %v", p.srv.Wait)
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	line := p.next
	if !peek {
		p.next = nil
	}
	v, _ := decode(line[:len(line)-1])
	return line, v.(map[string]any), nil
}

// ended describes how the server ended, for a failure message: its exit
// status and the start of its stderr, when it exits soon.
func (p *proc) ended() string {
	select {
	case werr := <-p.exited:
		p.exited <- werr
		code := 0
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			code = ee.ExitCode()
		}
		msg := fmt.Sprintf(" (exit status %d", code)
		if p.stderr.Len() > 0 {
			msg += fmt.Sprintf(", stderr %.160q", p.stderr.String())
		}
		return msg + ")"
	case <-time.After(time.Second):
		return " (the server has not exited)"
	}
}

func (p *proc) play(ctx context.Context, steps []Step) error {
	for i := 0; i < len(steps); i++ {
		st := steps[i]
		fail := func(err error) error {
			var f *Failure
			if errors.As(err, &f) {
				if f.Line == 0 {
					f.Line = st.Line
				}
				return f
			}
			return &Failure{Line: st.Line, Msg: err.Error()}
		}
		var err error
		switch st.Kind {
		case Send:
			var line string
			if line, err = substitute(st.Text, p.b); err == nil {
				p.s.request([]byte(line))
				_, err = io.WriteString(p.stdin, line+"\n")
			}
		case SendRaw:
			p.s.request([]byte(st.Text))
			_, err = io.WriteString(p.stdin, st.Text)
		case Fill:
			_, err = p.stdin.Write(bytes.Repeat([]byte{'x'}, st.N))
		case Close:
			err = p.stdin.Close()
		case Expect, ExpectAny:
			// A lazy <* stops at the first frame the step after it accepts.
			var stop *Step
			if st.Kind == ExpectAny && i+1 < len(steps) && steps[i+1].Kind == Expect {
				stop = &steps[i+1]
			}
			err = p.expect(ctx, st, stop)
		case Unordered:
			err = p.unordered(ctx, st.Block)
		case Repeat:
			for n := 1; n <= st.N && err == nil; n++ {
				i := strconv.Itoa(n)
				round := make([]Step, len(st.Block))
				for k, b := range st.Block {
					b.Text = strings.ReplaceAll(b.Text, "{i}", i)
					round[k] = b
				}
				err = p.play(ctx, round)
			}
		case Exit:
			err = p.exit(ctx, st.N)
		}
		if err != nil {
			return fail(err)
		}
	}
	return nil
}

// try matches frame v against pattern, keeping the bindings only on a
// match.
func (p *proc) try(pattern string, v map[string]any) string {
	want, _ := decode([]byte(pattern))
	b := p.b.clone()
	if d := match(want, v, "", b); d != "" {
		return d
	}
	p.b = b
	return ""
}

func (p *proc) expect(ctx context.Context, st Step, stop *Step) error {
	for {
		line, v, err := p.read(ctx, true)
		if errors.Is(err, errEOF) && st.Kind == ExpectAny {
			return nil
		}
		if err != nil {
			return fmt.Errorf("waiting for %.100s: %w", st.Text, err)
		}
		if st.Kind == ExpectAny {
			if stop != nil {
				want, _ := decode([]byte(stop.Text))
				if match(want, v, "", p.b.clone()) == "" {
					return nil
				}
			}
			if p.try(st.Text, v) != "" {
				return nil
			}
			p.next = nil
			continue
		}
		if d := p.try(st.Text, v); d != "" {
			return fmt.Errorf("%s\n  got  %s  want %s", d, strings.TrimSpace(string(line)), st.Text)
		}
		p.next = nil
		return nil
	}
}

func (p *proc) unordered(ctx context.Context, block []Step) error {
	done := make([]bool, len(block))
	remaining := 0
	for _, s := range block {
		if s.Kind == Expect {
			remaining++
		}
	}
	for remaining > 0 {
		line, v, err := p.read(ctx, false)
		if err != nil {
			return fmt.Errorf("waiting for %d more frames of an unordered block: %w", remaining, err)
		}
		matched := false
		for k, s := range block {
			if (s.Kind == Expect && done[k]) || p.try(s.Text, v) != "" {
				continue
			}
			if s.Kind == Expect {
				done[k] = true
				remaining--
			}
			matched = true
			break
		}
		if !matched {
			var want []string
			for k, s := range block {
				if !done[k] {
					want = append(want, fmt.Sprintf("line %d", s.Line))
				}
			}
			return fmt.Errorf("unexpected frame %s (none of %s accepts it)", strings.TrimSpace(string(line)), strings.Join(want, ", "))
		}
	}
	return nil
}

func (p *proc) exit(ctx context.Context, want int) error {
	line, _, err := p.read(ctx, false)
	if err == nil {
		return fmt.Errorf("unexpected frame before the exit: %s", strings.TrimSpace(string(line)))
	}
	if !errors.Is(err, errEOF) {
		return err
	}
	select {
	case werr := <-p.exited:
		p.exited <- werr // kill reads it again
		code := 0
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			code = ee.ExitCode()
		} else if werr != nil {
			return werr
		}
		if code != want {
			return fmt.Errorf("exit status %d; want %d", code, want)
		}
		if p.srv.EmptyStderr && p.stderr.Len() > 0 {
			return fmt.Errorf("the server wrote to stderr: %.200q", p.stderr.String())
		}
		return nil
	case <-time.After(p.srv.Wait):
		return fmt.Errorf("the server closed its output but did not exit within %v", p.srv.Wait)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// limited keeps the first n bytes written to it and discards the rest.
type limited struct {
	mu  sync.Mutex
	buf *bytes.Buffer
	n   int
}

func (l *limited) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.n - l.buf.Len(); room > 0 {
		l.buf.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}
