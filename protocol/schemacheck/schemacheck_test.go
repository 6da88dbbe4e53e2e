package schemacheck

import (
	"strings"
	"sync"
	"testing"
)

const delta = `{"protocol":"magi-code.local-agent","version":1,"type":"event","instance_id":"0b8a4d2e-7f11-4c3a-9d55-1e2f3a4b5c6d","seq":7,"event":"message.delta","data":{"session_id":"s1","run_id":"4f1c2b3a-5d6e-4f70-8192-a3b4c5d6e7f8","message_id":"m1","part":0,"text":"Hel"}}` + "\n"

func TestValidate(t *testing.T) {
	var wg sync.WaitGroup
	for range 4 { // concurrent first use compiles once
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Validate([]byte(delta)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	bad := strings.Replace(delta, `"part":0`, `"part":"0"`, 1)
	if err := Validate([]byte(bad)); err == nil {
		t.Fatalf("Validate accepts %s", bad)
	}
	if err := Validate([]byte(delta + delta)); err == nil {
		t.Fatal("Validate accepts two frames")
	}
	if err := ValidateDef("nosuch", []byte(delta)); err == nil {
		t.Fatal("ValidateDef accepts an unknown $defs name")
	}
}

func BenchmarkValidateDelta(b *testing.B) {
	if err := Validate([]byte(delta)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		_ = Validate([]byte(delta))
	}
}

func BenchmarkValidateDefDelta(b *testing.B) {
	if err := ValidateDef("event.message.delta", []byte(delta)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		_ = ValidateDef("event.message.delta", []byte(delta))
	}
}

// TestValidateTrailing: a frame followed by anything but white space is
// more than one JSON value, whatever the stray bytes are (a closing brace
// or bracket is not a value of its own, and a decoder that only asks
// whether another value follows walks past it).
func TestValidateTrailing(t *testing.T) {
	frame := strings.TrimSuffix(delta, "\n")
	for _, tail := range []string{"}", "]", " }", "\n]", " {}", "[]", "0", `"x"`, ",", ":", "x", "}\n"} {
		if err := Validate([]byte(frame + tail)); err == nil {
			t.Errorf("Validate accepts the frame followed by %q", tail)
		}
		if err := ValidateDef("event.message.delta", []byte(frame+tail)); err == nil {
			t.Errorf("ValidateDef accepts the frame followed by %q", tail)
		}
	}
	for _, tail := range []string{"", "\n", " ", "\t\r\n"} {
		if err := Validate([]byte(frame + tail)); err != nil {
			t.Errorf("Validate refuses the frame followed by white space %q: %v", tail, err)
		}
	}
}

// TestValidateUnnamedBranch: a frame that names no branch of the root is
// validated against the root, whose error says the frame matches none of
// its branches (not that the schema could not be compiled).
func TestValidateUnnamedBranch(t *testing.T) {
	for _, frame := range []string{
		`{"protocol":"magi-code.local-agent","version":1,"type":"bogus"}`,
		`{"protocol":"magi-code.local-agent","version":1,"type":"response","id":"r1","result":{"nothing":true}}`,
		`[1]`,
	} {
		err := Validate([]byte(frame))
		if err == nil || !strings.Contains(err.Error(), "validating") || strings.Contains(err.Error(), "compiling") {
			t.Errorf("Validate(%s) = %v; want the root's verdict on the frame", frame, err)
		}
	}
}
