package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestRoundTrip: what writeGGUF writes, readKVs reads back (keys, types,
// scalars, strings, arrays), and the data section starts aligned after it.
func TestRoundTrip(t *testing.T) {
	u := uint32(7)
	f := float32(0.5)
	kvs := []kv{
		{key: "general.architecture", typ: tString, val: "llama"},
		{key: "n", typ: tU32, val: &u},
		{key: "eps", typ: tF32, val: &f},
		{key: "tokens", typ: tArray, elem: tString, arr: []any{"a", "Ġb", "<|im_end|>"}},
	}
	path := filepath.Join(t.TempDir(), "m.gguf")
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tensors := []tensor{{"x", []uint64{3}, []float32{1, 2, 3}}, {"y", []uint64{2, 2}, []float32{4, 5, 6, 7}}}
	if err := writeGGUF(w, kvs, tensors); err != nil {
		t.Fatal(err)
	}
	w.Close()
	b, _ := os.ReadFile(path)
	got, err := readKVs(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, kvs) {
		t.Fatalf("read back %+v; want %+v", got, kvs)
	}
	// x is padded to 32 bytes, y follows; the file ends with y's padding.
	if len(b)%alignment != 0 || !bytes.Contains(b, []byte{0, 0, 0x80, 0x40}) /* 4.0 */ {
		t.Fatalf("file of %d bytes: data not aligned or missing", len(b))
	}
}

// TestSegment: the answers split into distinct tokens, longest first,
// never reusing an ID taken before; an impossible split is an error.
func TestSegment(t *testing.T) {
	ids := map[string]int{"a": 1, "b": 2, "ab": 3, "c": 4}
	used := map[int]bool{}
	got, err := segment(ids, "abab", used)
	if err != nil || !reflect.DeepEqual(got, []int{3, 1, 2}) {
		t.Fatalf("segment(abab) = %v, %v; want [3 1 2]", got, err)
	}
	if _, err := segment(ids, "aa", map[int]bool{}); err == nil {
		t.Fatal("segment(aa) with one a: want an error")
	}
	if byteLevel(" x\n") != "Ġx"+"Ċ" {
		t.Fatalf("byteLevel = %q", byteLevel(" x\n"))
	}
}

func FuzzReadKVs(f *testing.F) {
	f.Add([]byte("GGUF\x03\x00\x00\x00" + strings.Repeat("\x00", 16)))
	f.Add([]byte("GGUF\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = readKVs(bytes.NewReader(b)) // no panic, bounded allocation
	})
}
