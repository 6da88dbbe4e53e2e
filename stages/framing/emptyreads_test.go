package framing

import (
	"io"
	"testing"
)

// emptyThen returns (0, nil) empty times in a row, then data once, then
// io.EOF.
type emptyThen struct {
	empty int
	data  string
}

func (r *emptyThen) Read(p []byte) (int, error) {
	if r.empty > 0 {
		r.empty--
		return 0, nil
	}
	if r.data == "" {
		return 0, io.EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestReaderToleratesEmptyReads: a reader may return (0, nil) now and then
// (io.Reader allows it): up to 99 in a row are read through, and 100 give
// up with io.ErrNoProgress, as bufio does.
func TestReaderToleratesEmptyReads(t *testing.T) {
	for _, c := range []struct {
		empty int
		err   error
	}{
		{1, nil},
		{maxEmptyReads - 1, nil},
		{maxEmptyReads, io.ErrNoProgress},
	} {
		line, code, err := NewReader(&emptyThen{empty: c.empty, data: "{}\n"}).Next()
		if c.err != nil {
			if err != c.err {
				t.Errorf("after %d empty reads: Next = %q, %v, %v; want %v", c.empty, line, code, err, c.err)
			}
			continue
		}
		if err != nil || code != "" || string(line) != "{}" {
			t.Errorf("after %d empty reads: Next = %q, %v, %v; want the line {}", c.empty, line, code, err)
		}
	}
}
