package main

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// roundtrips is the number of sequential status requests timed per run
// (plus a short warm-up). The child retains at most 4096 request IDs.
const roundtrips = 3000

// runRoundtrip times sequential status round trips on one idle, initialized
// child: write one request, read until its LF, repeat. The response is
// checked only for its ID, so the benchmark process stays out of the way.
func runRoundtrip(bin string) (*result, error) {
	w, err := newWorkspace("")
	if err != nil {
		return nil, err
	}
	defer w.remove()
	c, err := startReady(bin, w)
	if err != nil {
		return nil, err
	}
	defer c.closeAndWait(5 * time.Second)
	const warmup = 100
	lat := make([]time.Duration, 0, roundtrips)
	for i := range warmup + roundtrips {
		id := "s" + strconv.Itoa(i)
		req := request(id, "status", "{}")
		t := time.Now()
		if err := c.send(req); err != nil {
			return nil, err
		}
		l, err := c.line()
		d := time.Since(t)
		if err != nil {
			return nil, err
		}
		if !bytes.Contains(l, []byte(`"id":"`+id+`"`)) {
			return nil, fmt.Errorf("unexpected frame for %s: %.200s", id, l)
		}
		if i >= warmup {
			lat = append(lat, d)
		}
	}
	slices.Sort(lat)
	r := &result{}
	r.addSpread("roundtrip.p50", us(percentile(lat, 0.50)), "us")
	r.addSpread("roundtrip.p99", us(percentile(lat, 0.99)), "us")
	r.addSpread("roundtrip.max", us(lat[len(lat)-1]), "us")
	return r, nil
}
