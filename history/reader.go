package history

import (
	"bufio"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"hash"
	"io"
	"strconv"

	"github.com/magi-code/magi-code/protocol"
)

// readBufferBytes is the bufio buffer of the streaming reader; longer lines
// are assembled in one reused line buffer.
const readBufferBytes = 64 << 10

// scanned is what a streaming read of a session file found.
type scanned struct {
	header *Record // nil for an empty file (or one holding only a torn line)
	valid  int64   // bytes of complete, LF-terminated lines
	torn   bool    // trailing bytes without LF: ignored, trimmed before the next append
	lines  int
	prefix hash.Hash // SHA-256 over the valid prefix; appends continue it
	sum    [sha256.Size]byte
}

// scan streams r, a session file of sessionID, line by line, and calls visit
// for every record after the header. It never holds more than one line: r is
// capped one byte past StoredHistoryBytes, and the line count is checked as
// lines arrive. Codes: history_limit past 64 MiB or 100,000 lines;
// session_invalid for a read error, a complete line that does not parse, a
// first record that is not this session's header, or a record of another
// session. visit returns "" to go on or a code to stop with. lean: see
// parseRecord.
func scan(r io.Reader, sessionID string, lean bool, visit func(*Record) protocol.Code) (scanned, protocol.Code) {
	return scanFrom(r, sessionID, lean, nil, 0, 0, visit)
}

// scanFrom is scan of the rest of a file whose first done bytes, lines
// lines and header were read before: r starts at offset done. The bounds
// count from the file's start; lines and valid in the result count only
// what r held, and prefix hashes only that.
func scanFrom(r io.Reader, sessionID string, lean bool, header *Record, done int64, lines int, visit func(*Record) protocol.Code) (scanned, protocol.Code) {
	s := scanned{prefix: sha256.New(), header: header}
	if done > protocol.StoredHistoryBytes {
		return s, protocol.CodeHistoryLimit
	}
	br := bufio.NewReaderSize(io.LimitReader(r, protocol.StoredHistoryBytes+1-done), readBufferBytes)
	var long []byte // assembles lines longer than the bufio buffer
	var rec Record
	var dec decoder
	total := done
	for {
		chunk, err := br.ReadSlice('\n')
		total += int64(len(chunk))
		// docs/protocol.md, Bounds: "Stored history read: 64 MiB original JSONL bytes".
		if total > protocol.StoredHistoryBytes {
			return s, protocol.CodeHistoryLimit
		}
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if len(long) > 0 {
			long = append(long, chunk...)
			line = long
		}
		if err != nil && err != io.EOF {
			return s, protocol.CodeSessionInvalid
		}
		if len(line) == 0 {
			break // clean EOF
		}
		s.lines++
		// docs/protocol.md, Bounds: "at most 100,000 lines".
		if lines+s.lines > protocol.StoredHistoryLines {
			return s, protocol.CodeHistoryLimit
		}
		if err == io.EOF {
			// docs/protocol.md, Choices: a last line without LF (a crash mid-append) is not
			// malformed; it is ignored and reported as torn.
			s.torn = true
			s.sum = sumWith(s.prefix, line)
			return s, ""
		}
		s.prefix.Write(line)
		s.valid += int64(len(line))
		long = long[:0]
		err = parseRecord(line[:len(line)-1], &rec, lean, &dec)
		if err == errUnknownType && s.header != nil && rec.SessionID == sessionID {
			// docs/protocol.md, Choices: a record of a type a later build
			// added is skipped, not session_invalid; it still counts
			// toward the stored-history bounds.
			continue
		}
		if err != nil || rec.SessionID != sessionID {
			return s, protocol.CodeSessionInvalid
		}
		if s.header == nil {
			if rec.Type != TypeHeader {
				return s, protocol.CodeSessionInvalid
			}
			h := rec
			s.header = &h
			continue
		}
		if rec.Type == TypeHeader {
			return s, protocol.CodeSessionInvalid
		}
		if code := visit(&rec); code != "" {
			return s, code
		}
	}
	copy(s.sum[:], s.prefix.Sum(nil))
	return s, ""
}

// sumWith returns the SHA-256 of what h has seen plus tail, leaving h as it was.
func sumWith(h hash.Hash, tail []byte) (sum [sha256.Size]byte) {
	state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic("history: sha256 state not marshalable")
	}
	c := sha256.New()
	if err := c.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
		panic("history: sha256 state not unmarshalable")
	}
	c.Write(tail)
	copy(sum[:], c.Sum(nil))
	return sum
}

// revisionOf names a projection: the store-wide replay generation plus a
// content fingerprint. At most 1+20+1+32 = 54 bytes of [A-Za-z0-9-].
func revisionOf(gen uint64, sum [sha256.Size]byte) string {
	var b [64]byte
	out := append(b[:0], 'v')
	out = strconv.AppendUint(out, gen, 10)
	out = append(out, '-')
	out = hex.AppendEncode(out, sum[:16])
	return string(out)
}
