package history

import (
	"runtime"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// The store refuses on Windows the session IDs that Windows opens as a
// device; the check is pure, so it is held here on every OS.
func TestWindowsDeviceName(t *testing.T) {
	for _, c := range []struct {
		base string
		want bool
	}{
		{"CON.jsonl", true}, {"con.active", true}, {"Con.writer", true}, {"CON", true},
		{"PRN.jsonl", true}, {"AUX.jsonl", true}, {"NUL.jsonl", true}, {"nul", true},
		{"COM1.jsonl", true}, {"com9.jsonl", true}, {"COM0.jsonl", true}, {"LPT1.active", true}, {"lpt9", true},
		{"CONIN$", true}, {"CONOUT$.x", true}, {"CLOCK$", true}, {"CON .jsonl", true},
		{"CONSOLE.jsonl", false}, {"ACON.jsonl", false}, {"COM10.jsonl", false}, {"COM.jsonl", false},
		{"COMA.jsonl", false}, {"LPT.jsonl", false}, {"NULL.jsonl", false}, {"AUX_1.jsonl", false},
		{"b9a3c2e4-6f1d-4e8a-9b7c-1d2e3f4a5b6c.jsonl", false}, {"", false}, {".jsonl", false},
	} {
		if got := windowsDeviceName(c.base); got != c.want {
			t.Errorf("windowsDeviceName(%q) = %v; want %v", c.base, got, c.want)
		}
	}
}

// On Windows the store refuses those IDs before opening anything: create
// and open answer session_invalid.
func TestWindowsDeviceIDsRefused(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("device names are a Windows notion")
	}
	e := newEnv(t)
	for _, id := range []string{"CON", "nul", "COM1", "lpt9"} {
		if a, code := e.store.Create(id, Selection{}); code != protocol.CodeSessionInvalid {
			if a != nil {
				a.Close()
			}
			t.Errorf("Create(%q) = %q; want session_invalid", id, code)
		}
		if a, _, code := e.store.Open(id, nil); code != protocol.CodeSessionInvalid {
			if a != nil {
				a.Close()
			}
			t.Errorf("Open(%q) = %q; want session_invalid", id, code)
		}
	}
}
