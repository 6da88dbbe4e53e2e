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
	// IDs (initialize and the warm-up included), so one child serves 4000.
	pipelinedRequests = 4000
)

// runPipelined keeps exactly 32 status requests in flight on one child:
// 32 are written, then each response read is answered by writing the next
// request. It reports requests/s from the first write to the last response,
// and whether the child exited (it must not: the spec's 32 pending frames
// race with a client that reads a frame and writes the next request before
// the child's write(2) returns).
func runPipelined(bin string) (*result, error) {
	w, err := newWorkspace("")
	if err != nil {
		return nil, err
	}
	defer w.remove()
	c, err := startChild(bin, w)
	if err != nil {
		return nil, err
	}
	defer c.closeAndWait(5 * time.Second)
	if err := c.initialize(); err != nil {
		return nil, err
	}
	r := &result{}
	next := 0
	sendNext := func() error {
		err := c.send(request("p"+strconv.Itoa(next), "status", "{}"))
		next++
		return err
	}
	start := time.Now()
	for range inFlight {
		if err := sendNext(); err != nil {
			return nil, err
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
		r.add("pipelined.child_exits", 1, "count")
		return r, nil
	}
	r.add("pipelined.child_exits", 0, "count")
	r.addSpread("pipelined.throughput", float64(got)/elapsed.Seconds(), "req/s")
	return r, nil
}
