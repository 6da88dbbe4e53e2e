//go:build !unix

package benchcpu

func cpuClock() int64 { return -1 }
