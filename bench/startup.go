package main

import (
	"bytes"
	"fmt"
	"time"
)

// runStartup measures, with two fresh children:
//   - startup.to_init_response: process start (just before fork/exec) to
//     the initialize response, initialize written at once into the pipe;
//     initialize answers only at readiness, so this is also start to ready;
//   - startup.init: initialize request to response in a child whose loop
//     is already up (it first answered a status with not_initialized): the
//     work of admission, configuration and fixture readiness;
//   - startup.idle_rss: VmRSS right after initialize;
//   - startup.exit_after_eof: stdin closed while idle to process exit
//     (exit code 0 expected).
func runStartup(bin string) (*result, error) {
	w, err := newWorkspace("")
	if err != nil {
		return nil, err
	}
	defer w.remove()
	r := &result{}

	// Child 1: start -> initialize response, idle RSS, exit after EOF.
	c, err := startChild(bin, w)
	if err != nil {
		return nil, err
	}
	if err := c.initialize(); err != nil {
		c.kill()
		return nil, err
	}
	r.addSpread("startup.to_init_response", ms(time.Since(c.started)), "ms")
	rss, err := procStatus(c.pid(), "VmRSS")
	if err != nil {
		c.kill()
		return nil, err
	}
	r.add("startup.idle_rss", float64(rss)/1024, "MiB")
	closed := time.Now()
	code, err := c.closeAndWait(5 * time.Second)
	if err != nil {
		return nil, err
	}
	r.addSpread("startup.exit_after_eof", ms(c.exitAt.Sub(closed)), "ms")
	if code != 0 || c.stderr.Len() != 0 {
		r.note("idle EOF: exit code %d, %d stderr bytes (want 0, 0)", code, c.stderr.Len())
	}

	// Child 2: the loop is up (status answered), then initialize alone.
	c, err = startChild(bin, w)
	if err != nil {
		return nil, err
	}
	defer c.closeAndWait(5 * time.Second)
	if err := c.send(request("s0", "status", "{}")); err != nil {
		return nil, err
	}
	l, err := c.response("s0", nil)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(l, []byte(`"not_initialized"`)) {
		return nil, fmt.Errorf("status before initialize: %s", l)
	}
	t := time.Now()
	if err := c.initialize(); err != nil {
		return nil, err
	}
	r.addSpread("startup.init", ms(time.Since(t)), "ms")
	return r, nil
}
