package main

import (
	"bytes"
	"strconv"
	"time"
)

const (
	// inFlight is the number of status requests outstanding at all times.
	inFlight = 32
	// pipelinedRequests per child: the child retains at most 4096 request
	// IDs (initialize included), so one child serves 4000.
	pipelinedRequests = 4000
	// pipelinedChildren per run: one child's 4000 requests last only
	// milliseconds, too short a window on a noisy machine.
	pipelinedChildren = 3
)

// runPipelined measures pipelinedChildren children one after the other and
// reports their total requests over their total time.
func runPipelined(bin string) (*result, error) {
	r := &result{}
	var got int
	var elapsed time.Duration
	for range pipelinedChildren {
		n, d, err := pipelineOnce(bin, r)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			r.add("pipelined.child_exits", 1, "count")
			return r, nil
		}
		got += n
		elapsed += d
	}
	r.add("pipelined.child_exits", 0, "count")
	r.addSpread("pipelined.throughput", float64(got)/elapsed.Seconds(), "req/s")
	return r, nil
}

// pipelineOnce keeps exactly 32 status requests in flight on one child:
// 32 are written, then each response read is answered by writing the next
// request. It reports requests/s from the first write to the last response,
// and whether the child exited (it must not: the protocol's 32 pending frames
// race with a client that reads a frame and writes the next request before
// the child's write(2) returns). It returns the responses read and the
// time taken; -1 responses when the child exited.
func pipelineOnce(bin string, r *result) (int, time.Duration, error) {
	w, err := newWorkspace("")
	if err != nil {
		return 0, 0, err
	}
	defer w.remove()
	c, err := startReady(bin, w)
	if err != nil {
		return 0, 0, err
	}
	defer c.closeAndWait(5 * time.Second)
	next := 0
	sendNext := func() error {
		err := c.send(request("p"+strconv.Itoa(next), "status", "{}"))
		next++
		return err
	}
	start := time.Now()
	for range inFlight {
		if err := sendNext(); err != nil {
			return 0, 0, err
		}
	}
	got, exited := 0, false
	for got < pipelinedRequests {
		l, err := c.line()
		if err != nil {
			exited = true
			break
		}
		if !bytes.Contains(l, []byte(`"result"`)) {
			r.note("error response under pipelining: %.200s", l)
		}
		got++
		if next < pipelinedRequests {
			if err := sendNext(); err != nil {
				exited = true
				break
			}
		}
	}
	elapsed := time.Since(start)
	select {
	case <-c.exited:
		exited = true
	default:
	}
	if exited {
		<-c.exited
		r.note("child EXITED during pipelining after %d responses (exit code %d): target is never", got, c.cmd.ProcessState.ExitCode())
		return -1, 0, nil
	}
	return got, elapsed, nil
}
