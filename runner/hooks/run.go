package hooks

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner/subproc"
)

// pipeCloseWait bounds how long output draining may outlast the shell after
// its process group was killed (a descendant that left the group, with
// setsid for example, can hold a pipe open).
const pipeCloseWait = 2 * time.Second

// result is what one hook run came to.
type result struct {
	code   int    // exit status; -1 when it did not exit by itself
	stderr []byte // at most OutputBytes+1 bytes
	err    error  // *Error, nil when the hook exited by itself with 0 or, for pre_tool_use, 2
}

// run runs h with input on stdin. It blocks until the shell was reaped, its
// group killed and its output drained (or pipeCloseWait passed). It never
// returns with a goroutine of its own still running.
func (r *Runner) run(ctx context.Context, h *hook, tool string, input []byte) result {
	fail := func(c Cause) result { return result{code: -1, err: h.failure(ctx, c)} }
	if h.bad {
		return fail(CauseMatcher)
	}
	if ctx.Err() != nil {
		r.logf("hooks: %s hook %d (tool %q): not started, cancelled", h.event, h.index, tool)
		return fail(CauseCancelled)
	}
	p, err := newPipes()
	if err != nil {
		r.logf("hooks: %s hook %d: pipes: %v", h.event, h.index, err)
		return fail(CauseStart)
	}
	defer p.closeOurs()

	runCtx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	cmd := r.command(runCtx, h, p)
	if r.sandbox != nil {
		if err := r.sandbox(cmd); err != nil {
			r.logf("hooks: %s hook %d: sandbox: %v", h.event, h.index, err)
			return fail(CauseStart)
		}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		r.logf("hooks: %s hook %d: start: %v", h.event, h.index, err)
		if ctx.Err() != nil { // exec refuses to start on a done context
			return fail(CauseCancelled)
		}
		return fail(CauseStart)
	}
	p.closeChilds()
	stdout := &subproc.Capped{Limit: OutputBytes}
	stderr := &subproc.Capped{Limit: OutputBytes}
	waitErr := exchange(cmd, p, input, stdout, stderr)
	elapsed := time.Since(start).Round(time.Millisecond)

	res := h.verdict(ctx, runCtx, waitErr)
	res.stderr = stderr.Bytes()
	outcome := "ok"
	if res.err != nil {
		outcome = res.err.Error()
	} else if res.code == 2 {
		outcome = "blocked"
	}
	r.logf("hooks: %s hook %d (tool %q): %s in %v; stdout: %q; stderr: %q",
		h.event, h.index, tool, outcome, elapsed, excerpt(stdout), excerpt(stderr))
	return res
}

// failure is the *Error of a hook run that ended for cause c.
func (h *hook) failure(ctx context.Context, c Cause) *Error {
	e := &Error{Event: h.event, Index: h.index, Cause: c, ExitCode: -1}
	switch c {
	case CauseTimeout:
		e.Timeout = h.timeout
	case CauseCancelled:
		e.ctxErr = ctx.Err()
	}
	return e
}

// command is the shell of h, bound to runCtx and to the child's ends of p.
func (r *Runner) command(runCtx context.Context, h *hook, p *pipes) *exec.Cmd {
	cmd := subproc.Shell(runCtx, h.command)
	cmd.Dir = r.cwd
	cmd.Env = r.env
	// *os.File ends: the child uses the pipes directly, and Wait returns
	// when the shell exits, not when every descendant closed them.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.inR, p.outW, p.errW
	// Subprocesses run in their own process group so that cleanup reaches
	// their children.
	subproc.OwnGroup(cmd)
	cmd.Cancel = func() error { return subproc.KillGroup(cmd.Process.Pid) }
	// Should the group kill not end the shell, exec kills it directly
	// after this delay.
	cmd.WaitDelay = pipeCloseWait
	return cmd
}

// exchange feeds input to the started cmd and captures its output until it
// exits; then it kills its process group and drains the pipes (at most
// pipeCloseWait longer). It returns cmd.Wait's error.
func exchange(cmd *exec.Cmd, p *pipes, input []byte, stdout, stderr *subproc.Capped) error {
	pgid := cmd.Process.Pid
	var wg conc.WaitGroup
	wg.Go(func() {
		// A hook that does not read its stdin makes this fail with EPIPE
		// (or ErrClosed below): not an error of the hook.
		_, _ = p.inW.Write(input)
		_ = p.inW.Close()
	})
	wg.Go(func() { _, _ = io.Copy(stdout, p.outR) })
	wg.Go(func() { _, _ = io.Copy(stderr, p.errR) })
	waitErr := cmd.Wait()
	_ = subproc.KillGroup(pgid)
	// Every process of the group is gone now; only a descendant that left
	// the group can still hold a pipe: close our ends after a grace period.
	drainTimer := time.AfterFunc(pipeCloseWait, p.closeOurs)
	_ = p.inW.Close() // unblocks a stdin write nobody reads
	wg.Wait()
	drainTimer.Stop()
	return waitErr
}

// verdict turns how the shell ended into the run's result: its exit
// status, and an *Error unless it exited by itself with 0 (or, for
// pre_tool_use, with 2: blocked).
func (h *hook) verdict(ctx, runCtx context.Context, waitErr error) result {
	res := result{code: -1}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
		res.code = 0
	case errors.As(waitErr, &exitErr) && exitErr.ExitCode() >= 0:
		res.code = exitErr.ExitCode()
	}
	switch {
	case ctx.Err() != nil && res.code < 0:
		res.err = h.failure(ctx, CauseCancelled)
	case runCtx.Err() != nil && res.code < 0:
		res.err = h.failure(ctx, CauseTimeout)
	case res.code < 0:
		res.err = h.failure(ctx, CauseSignal)
	case res.code == 0, res.code == 2 && h.event == PreToolUse:
	default:
		res.err = &Error{Event: h.event, Index: h.index, Cause: CauseExit, ExitCode: res.code}
	}
	return res
}

// pipes are the three standard streams of one hook: the child's ends
// (inR, outW, errW) and ours (inW, outR, errR).
type pipes struct {
	inR, inW, outR, outW, errR, errW *os.File
}

func newPipes() (*pipes, error) {
	var p pipes
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		p.closeChilds()
		p.closeOurs()
		return nil, err
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		p.closeChilds()
		p.closeOurs()
		return nil, err
	}
	return &p, nil
}

// closeChilds closes our copies of the child's ends. Safe to repeat.
func (p *pipes) closeChilds() { closeAll(p.inR, p.outW, p.errW) }

// closeOurs closes our ends, and the child's ends still held. Safe to
// repeat and to call while another goroutine reads or writes them: the
// blocked call returns.
func (p *pipes) closeOurs() { closeAll(p.inR, p.outW, p.errW, p.inW, p.outR, p.errR) }

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// excerpt is a redacted, bounded, single-string view of c for logs.
func excerpt(c *subproc.Capped) string {
	s, _ := cutUTF8(safeText(c.Bytes(), c.Truncated()), logBytes)
	return s
}

// blockReason is the reason a blocking pre_tool_use hook gives the model:
// its trimmed, redacted stderr, at most OutputBytes, or a fixed text when
// it said nothing.
func blockReason(stderr []byte) string {
	s := safeText(stderr, len(stderr) > OutputBytes)
	if s == "" {
		return "blocked by a pre_tool_use hook"
	}
	return s
}

// safeText turns captured output into trimmed, valid, redacted UTF-8 of at
// most OutputBytes. Output cut at the capture bound is first cut back to
// its last white space, so that no secret is left half-captured where the
// redaction rules would no longer recognise it; redaction runs before the
// final cut (stages/redact: redacting first means truncation can never cut
// a secret into a shape the rules no longer recognise).
func safeText(b []byte, truncated bool) string {
	if truncated {
		b = b[:min(len(b), OutputBytes)]
		i := len(b) - 1
		for i >= 0 && !isSpace(b[i]) {
			i--
		}
		b = b[:max(i, 0)]
	}
	s, _ := cutUTF8(strings.TrimSpace(string(b)), OutputBytes)
	s = redact.String(s)
	s, _ = cutUTF8(s, OutputBytes)
	return s
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}
