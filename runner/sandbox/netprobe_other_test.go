//go:build !linux

package sandbox

// netProbe has no network filter to probe here (netfilter_linux_test.go).
func netProbe(string, string) int { return 4 }
