package codemode

import (
	"strings"
	"testing"
)

// A program of exactly MaxCodeBytes runs; one byte more is refused.
func TestCodeSizeBound(t *testing.T) {
	code := "return 1;"
	tl := New(Options{MaxCodeBytes: len(code) + 10})
	exact := code + strings.Repeat(" ", 10)
	if res := run(t, tl, exact); res.IsError || res.Text != "1" {
		t.Errorf("a program of exactly the limit: %q; want it run", res.Text)
	}
	if res := run(t, tl, exact+" "); !res.IsError || !strings.Contains(res.Text, "code too long") {
		t.Errorf("a program one byte over the limit: %q; want code too long", res.Text)
	}
}

// An uncaught error reports its stack: the frames of the program's own
// functions, which say where it was thrown.
func TestUncaughtErrorHasItsStack(t *testing.T) {
	res := run(t, New(Options{}), `function inner() { throw new Error("deep") }
function outer() { inner() }
outer()`)
	if !res.IsError || !strings.Contains(res.Text, "Error: deep") || !strings.Contains(res.Text, "at inner") || !strings.Contains(res.Text, "at outer") {
		t.Errorf("uncaught error = %q; want its message and the frames of inner and outer", res.Text)
	}
}
