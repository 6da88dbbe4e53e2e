package validate

import (
	"unicode/utf8"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// field is one of the five envelope members.
type field int

const (
	fieldProtocol field = iota
	fieldVersion
	fieldID
	fieldMethod
	fieldParams
	numFields
	fieldUnknown = numFields
)

var fieldNames = [numFields]string{"protocol", "version", "id", "method", "params"}

// longestField is the length of "protocol": a decoded key longer than this
// is unknown.
const longestField = 8

func lookupField(key []byte) field {
	for f, name := range fieldNames {
		if string(key) == name {
			return field(f)
		}
	}
	return fieldUnknown
}

// envelope is what one pass over the top-level object finds.
type envelope struct {
	values  [numFields][]byte // raw value of each member, whitespace trimmed
	counts  [numFields]int
	unknown bool
}

// Parse validates one line (LF already removed) and returns the request, or
// the code to answer it with. It never recurses and never builds a value
// tree: depth is checked by a byte scan before any other work, and the rest
// is one pass of a non-recursive scanner.
//
// Checks run in this order, and the first failure answers:
//  1. a line that is empty or only JSON whitespace: invalid_frame;
//     longer than protocol.MaxInputFrameBytes: frame_too_large (framing
//     normally catches this first);
//  2. nesting deeper than protocol.MaxJSONDepth (32) containers: invalid_frame;
//  3. invalid UTF-8: invalid_request;
//  4. invalid JSON, a lone surrogate escape anywhere, a second value or
//     trailing bytes, a top level that is not an object: invalid_request
//     (when a lone surrogate escape is the only fault, the ID is still
//     read, see below);
//  5. a duplicate envelope member (compared after decoding escapes):
//     invalid_request;
//  6. a present protocol that is not the string "magi-code.local-agent", or
//     a present version that is not the number token exactly 1:
//     protocol_mismatch (before 7, so that a future version's envelope is
//     answered as a mismatch, not as a malformed request);
//  7. a missing or unknown member: invalid_request;
//  8. an id or method that is not a string of 1-64 bytes of [A-Za-z0-9._-]
//     after decoding escapes: invalid_request.
//
// req.ID is set whenever checks 1-3 passed, the line is one JSON object
// apart from lone surrogate escapes outside its "id" value, and the object
// has exactly one "id" member whose value is a valid ID, even when
// code != "": the response then carries that ID. Otherwise req.ID is ""
// (the response uses id=null).
// req.Method and req.Params are set only when code == "". req.Params holds
// the raw params value (any JSON value; dispatch rejects a non-object) and
// aliases line: it is valid only as long as line is. No other input byte is
// returned. Parse allocates at most once (the ID string; a known method
// name is shared, not copied).
func Parse(line []byte) (req wire.Request, code protocol.Code) {
	if onlySpace(line) {
		// docs/protocol.md, Choices: a line that is empty, or only JSON whitespace, is invalid_frame.
		return req, protocol.CodeInvalidFrame
	}
	if len(line) > protocol.MaxInputFrameBytes {
		return req, protocol.CodeFrameTooLarge
	}
	// docs/protocol.md, Frames: JSON nesting is bounded to 32 containers; "invalid_frame
	// (depth/framing structure)". Checked before anything else reads the
	// structure.
	if tooDeep(line, protocol.MaxJSONDepth) {
		return req, protocol.CodeInvalidFrame
	}
	if !utf8.Valid(line) {
		return req, protocol.CodeInvalidRequest
	}
	env, ok := readEnvelope(line, false)
	if !ok {
		// docs/protocol.md, Responses: "Invalid/unrecoverable request identity uses id=null;
		// otherwise id equals request ID." A lone surrogate escape in
		// params (or any other member) leaves the identity readable; only
		// one inside the id itself makes it unrecoverable.
		req.ID = recoverID(line)
		return req, protocol.CodeInvalidRequest
	}
	id, idOK := "", false
	if env.counts[fieldID] == 1 {
		// docs/protocol.md, Responses: "Invalid/unrecoverable request identity uses id=null;
		// otherwise id equals request ID."
		id, idOK = nameValue(env.values[fieldID], false)
		req.ID = id
	}
	for _, n := range env.counts {
		if n > 1 {
			// docs/protocol.md, Requests: "unknown/duplicate top-level fields rejected".
			return req, protocol.CodeInvalidRequest
		}
	}
	if env.counts[fieldProtocol] == 1 && !isProtocol(env.values[fieldProtocol]) ||
		env.counts[fieldVersion] == 1 && string(env.values[fieldVersion]) != "1" {
		// docs/protocol.md, Choices: any other value or type of protocol or version is
		// protocol_mismatch, then close.
		return req, protocol.CodeProtocolMismatch
	}
	if env.unknown {
		return req, protocol.CodeInvalidRequest
	}
	for _, n := range env.counts {
		if n == 0 {
			// docs/protocol.md, Choices: a missing field is invalid_request (the envelope is exact).
			return req, protocol.CodeInvalidRequest
		}
	}
	if !idOK {
		return req, protocol.CodeInvalidRequest
	}
	method, ok := nameValue(env.values[fieldMethod], true)
	if !ok {
		return req, protocol.CodeInvalidRequest
	}
	req.Method = method
	req.Params = env.values[fieldParams]
	return req, ""
}

// recoverID returns the request ID of a line that readEnvelope refused, when
// the refusal was only for lone surrogate escapes outside the "id" value:
// the line is one JSON object once those are allowed, with exactly one "id"
// member that is a valid ID on its own (no lone surrogate in it). Otherwise
// it returns "". It runs only on refused lines, off the accepted path.
func recoverID(line []byte) string {
	env, ok := readEnvelope(line, true)
	if !ok || env.counts[fieldID] != 1 {
		return ""
	}
	value := env.values[fieldID]
	if len(value) < 2 || value[0] != '"' {
		return ""
	}
	if end, _, strict := scanString(value, 0, false); !strict || end != len(value) {
		return "" // a lone surrogate inside the id: unrecoverable
	}
	id, ok := nameValue(value, false)
	if !ok {
		return ""
	}
	return id
}

// readEnvelope scans line as exactly one JSON object, surrounded by
// optional whitespace, and records its members. It fails on any syntax
// error, lone surrogate escape (unless lax) or trailing byte.
func readEnvelope(line []byte, lax bool) (env envelope, ok bool) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return env, false // Not an object; syntax does not matter then.
	}
	ok = eachMember(line, i, lax, func(key []byte, escaped bool, value []byte) bool {
		f := fieldUnknown
		if !escaped {
			f = lookupField(key)
		} else if len(key) <= 6*longestField {
			var buf [longestField]byte
			if d, fits := decodeShort(buf[:], key); fits {
				f = lookupField(d)
			}
		}
		if f == fieldUnknown {
			env.unknown = true
			return true
		}
		env.values[f] = value
		env.counts[f]++
		return true
	}, &i)
	if !ok {
		return env, false
	}
	// docs/protocol.md, Frames: one JSON object per line; a second value or trailing bytes is
	// invalid_request.
	return env, skipSpace(line, i) == len(line)
}

// eachMember scans the object that opens at b[*pos] == '{', calling fn with
// each member's raw key (without quotes, escapes not decoded), whether the
// key holds escapes, and the raw value. It stops early when fn returns
// false. On success *pos is the index after the closing brace. lax is as
// for scanString.
func eachMember(b []byte, start int, lax bool, fn func(key []byte, escaped bool, value []byte) bool, pos *int) bool {
	i := skipSpace(b, start+1)
	if i < len(b) && b[i] == '}' {
		*pos = i + 1
		return true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end, escaped, ok := scanString(b, i, lax)
		if !ok {
			return false
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		valueEnd, ok := scanValue(b, i, lax)
		if !ok {
			return false
		}
		if !fn(key, escaped, b[i:valueEnd]) {
			return false
		}
		i = skipSpace(b, valueEnd)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			*pos = i + 1
			return true
		default:
			return false
		}
	}
}

// isProtocol reports whether value is a JSON string that decodes to
// protocol.ProtocolName.
func isProtocol(value []byte) bool {
	if len(value) < 2 || value[0] != '"' {
		return false
	}
	var buf [len(protocol.ProtocolName)]byte
	d, ok := decodeShort(buf[:], value[1:len(value)-1])
	return ok && string(d) == protocol.ProtocolName
}

// nameValue decodes value as a JSON string obeying the name grammar. When
// method is true, a known method name returns the shared constant instead of
// a new string.
func nameValue(value []byte, method bool) (string, bool) {
	if len(value) < 2 || value[0] != '"' {
		return "", false
	}
	var buf [protocol.MaxIDBytes]byte
	d, ok := decodeShort(buf[:], value[1:len(value)-1])
	if !ok || !nameBytes(d) {
		return "", false
	}
	if method {
		for _, m := range protocol.Methods {
			if string(d) == m {
				return m, true
			}
		}
	}
	return string(d), true
}
