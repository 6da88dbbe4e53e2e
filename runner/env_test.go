package runner

import (
	"runtime"
	"testing"
)

// The home that MC_HOME defaults below is $HOME on Unix and %USERPROFILE%
// on Windows, where HOME is usually unset.
func TestProcessEnvHome(t *testing.T) {
	t.Setenv("HOME", "/home/someone")
	t.Setenv("USERPROFILE", `C:\Users\someone`)
	want := "/home/someone"
	if runtime.GOOS == "windows" {
		t.Setenv("HOME", "")
		want = `C:\Users\someone`
	}
	if got := ProcessEnv().Home; got != want {
		t.Fatalf("ProcessEnv().Home = %q; want %q", got, want)
	}
}
