package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
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
//     (exit code 0 expected);
//   - startup.idle_rss_anon, startup.idle_rss_file: the two parts of it;
//   - startup.package_init, startup.package_init_alloc: the clock time and
//     the bytes allocated by every package's initialization, summed from
//     GODEBUG=inittrace=1 output of bin help (what any start pays
//     before main).
func runStartup(bin string) (*result, error) {
	w, err := newWorkspace("")
	if err != nil {
		return nil, err
	}
	defer w.remove()
	r := &result{}

	// Child 1: start -> initialize response, idle RSS, exit after EOF.
	c, err := startReady(bin, w)
	if err != nil {
		return nil, err
	}
	r.addSpread("startup.to_init_response", ms(time.Since(c.started)), "ms")
	rss, err := procStatus(c.pid(), "VmRSS")
	if err != nil {
		c.kill()
		return nil, err
	}
	r.add("startup.idle_rss", float64(rss)/1024, "MiB")
	// The anonymous part (heap, stacks) and the file-backed part (pages of
	// the binary that start-up touched; clean, shared by every child of
	// the same binary).
	for _, f := range [...]struct{ field, name string }{{"RssAnon", "startup.idle_rss_anon"}, {"RssFile", "startup.idle_rss_file"}} {
		if v, err := procStatus(c.pid(), f.field); err == nil {
			r.add(f.name, float64(v)/1024, "MiB")
		}
	}
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

	// Package initialization, which every start pays before main.
	clock, alloc, err := initTrace(bin)
	if err != nil {
		return nil, err
	}
	r.addSpread("startup.package_init", clock, "ms")
	r.add("startup.package_init_alloc", alloc/1024, "KiB")
	return r, nil
}

// initTrace runs bin help with GODEBUG=inittrace=1 and returns the
// sum of the clock time and of the bytes allocated over every package's
// initialization ("init PKG @T ms, C ms clock, B bytes, N allocs").
func initTrace(bin string) (clockMs, allocBytes float64, err error) {
	cmd := exec.Command(bin, "help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%s help: %w", bin, err)
	}
	n := 0
	for l := range strings.SplitSeq(stderr.String(), "\n") {
		f := strings.Fields(l)
		if len(f) != 11 || f[0] != "init" || f[6] != "clock," || f[8] != "bytes," {
			continue
		}
		c, err1 := strconv.ParseFloat(f[4], 64)
		b, err2 := strconv.ParseFloat(f[7], 64)
		if err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("inittrace line %q", l)
		}
		clockMs += c
		allocBytes += b
		n++
	}
	if n == 0 {
		return 0, 0, fmt.Errorf("%s help printed no inittrace lines", bin)
	}
	return clockMs, allocBytes, nil
}
