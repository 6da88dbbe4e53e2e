package main

import (
	"os"
	"runtime/pprof"
)

// startProfile starts a CPU profile when MAGI_CODE_CPUPROFILE names a file:
// a tool for performance engineers (the child has no flags besides
// --stdio). It returns the function that stops and flushes it.
func startProfile() func() {
	path := os.Getenv("MAGI_CODE_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
