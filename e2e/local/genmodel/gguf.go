package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// GGUF (version 3) metadata value types.
const (
	tU8, tI8, tU16, tI16, tU32, tI32, tF32, tBool, tString, tArray, tU64, tI64, tF64 = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
)

// kv is one metadata entry: its type and value (an array holds its element
// type in elem and its values in arr).
type kv struct {
	key  string
	typ  uint32
	val  any
	elem uint32
	arr  []any
}

// maxLen bounds a string or array read from a file.
const maxLen = 1 << 24

// readKVs reads a GGUF file's header and metadata.
func readKVs(r io.Reader) ([]kv, error) {
	br := bufio.NewReader(r)
	var hdr struct {
		Magic   [4]byte
		Version uint32
		Tensors uint64
		KVs     uint64
	}
	if err := binary.Read(br, binary.LittleEndian, &hdr); err != nil {
		return nil, err
	}
	if string(hdr.Magic[:]) != "GGUF" || hdr.Version != 3 || hdr.KVs > maxLen {
		return nil, errors.New("not a GGUF v3 file")
	}
	var out []kv // grown as read: a count in the file allocates nothing
	for range hdr.KVs {
		key, err := readString(br)
		if err != nil {
			return nil, err
		}
		var typ uint32
		if err := binary.Read(br, binary.LittleEndian, &typ); err != nil {
			return nil, err
		}
		e := kv{key: key, typ: typ}
		if typ == tArray {
			var n uint64
			if err := binary.Read(br, binary.LittleEndian, &e.elem); err != nil {
				return nil, err
			}
			if err := binary.Read(br, binary.LittleEndian, &n); err != nil || n > maxLen {
				return nil, errors.New("bad array")
			}
			for range n {
				v, err := readValue(br, e.elem)
				if err != nil {
					return nil, err
				}
				e.arr = append(e.arr, v)
			}
		} else if e.val, err = readValue(br, typ); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func readString(r io.Reader) (string, error) {
	var n uint64
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil || n > maxLen {
		return "", errors.New("bad string")
	}
	var b strings.Builder
	if _, err := io.CopyN(&b, r, int64(n)); err != nil {
		return "", err
	}
	return b.String(), nil
}

// scalar returns a zero value of the Go type of a scalar GGUF type.
func scalar(typ uint32) (any, error) {
	switch typ {
	case tU8:
		return new(uint8), nil
	case tI8:
		return new(int8), nil
	case tU16:
		return new(uint16), nil
	case tI16:
		return new(int16), nil
	case tU32:
		return new(uint32), nil
	case tI32:
		return new(int32), nil
	case tF32:
		return new(float32), nil
	case tBool:
		return new(bool), nil
	case tU64:
		return new(uint64), nil
	case tI64:
		return new(int64), nil
	case tF64:
		return new(float64), nil
	}
	return nil, fmt.Errorf("GGUF type %d not supported", typ)
}

func readValue(r io.Reader, typ uint32) (any, error) {
	if typ == tString {
		return readString(r)
	}
	p, err := scalar(typ)
	if err != nil {
		return nil, err
	}
	if err := binary.Read(r, binary.LittleEndian, p); err != nil {
		return nil, err
	}
	return p, nil
}

// tensor is one f32 tensor: its name, its dimensions (ne0 first, the
// contiguous one) and its values.
type tensor struct {
	name string
	dims []uint64
	data []float32
}

const alignment = 32

// writeGGUF writes a GGUF v3 file of kvs and f32 tensors.
func writeGGUF(w io.Writer, kvs []kv, tensors []tensor) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	le := binary.LittleEndian
	var werr error
	put := func(v any) {
		if werr == nil {
			werr = binary.Write(bw, le, v)
		}
	}
	str := func(s string) { put(uint64(len(s))); put([]byte(s)) }
	value := func(typ uint32, v any) {
		if typ == tString {
			str(v.(string))
			return
		}
		put(v)
	}
	bw.WriteString("GGUF")
	put(uint32(3))
	put(uint64(len(tensors)))
	put(uint64(len(kvs)))
	for _, e := range kvs {
		str(e.key)
		put(e.typ)
		if e.typ == tArray {
			put(e.elem)
			put(uint64(len(e.arr)))
			for _, v := range e.arr {
				value(e.elem, v)
			}
			continue
		}
		value(e.typ, e.val)
	}
	var offset uint64
	for _, t := range tensors {
		str(t.name)
		put(uint32(len(t.dims)))
		put(t.dims)
		put(uint32(0)) // GGML_TYPE_F32
		put(offset)
		offset += pad(uint64(len(t.data)) * 4)
	}
	if werr != nil {
		return werr
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return writeData(bw, w, tensors)
}

func pad(n uint64) uint64 { return (n + alignment - 1) / alignment * alignment }

// writeData writes the tensors' values after the header (already flushed
// to w): the data section starts at an aligned offset of the file, and
// each tensor is padded to the alignment.
func writeData(bw *bufio.Writer, w io.Writer, tensors []tensor) error {
	pos, ok := w.(interface {
		Seek(int64, int) (int64, error)
	})
	if !ok {
		return errors.New("the output must be seekable")
	}
	at, err := pos.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if gap := pad(uint64(at)) - uint64(at); gap > 0 {
		bw.Write(make([]byte, gap))
	}
	buf := make([]byte, 4)
	for _, t := range tensors {
		for _, f := range t.data {
			binary.LittleEndian.PutUint32(buf, math.Float32bits(f))
			bw.Write(buf)
		}
		if gap := pad(uint64(len(t.data))*4) - uint64(len(t.data))*4; gap > 0 {
			bw.Write(make([]byte, gap))
		}
	}
	return bw.Flush()
}
