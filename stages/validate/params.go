package validate

import (
	"unsafe"

	"github.com/magi-code/magi-code/protocol"
)

// Strict readers for params values, for dispatch. Each takes raw JSON that
// Parse already accepted (valid UTF-8, valid syntax, depth checked) and is
// also safe on any other input: it answers false rather than panicking.

// Name reports whether s is a valid request ID, method, capability or
// cursor: the ID grammar of package protocol.
func Name(s string) bool { return protocol.ValidID(s) }

func nameBytes(b []byte) bool { return protocol.ValidIDBytes(b) }

// trim removes JSON whitespace around a raw value.
func trim(b []byte) []byte {
	i := skipSpace(b, 0)
	j := len(b)
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// smallObject is the number of members up to which duplicate keys are found
// by comparing with each earlier key; larger objects use a map.
const smallObject = 8

// Members calls fn for each member of the JSON object raw, in order, with
// the key decoded and the raw value bytes (whitespace trimmed). It returns
// false if raw is not exactly one object, has a duplicate key (after
// decoding escapes) or is malformed, or if fn returns false; fn may have
// been called for earlier members before a later duplicate is found, so
// callers act on the members only when Members returns true.
func Members(raw []byte, fn func(key string, value []byte) bool) bool {
	raw = trim(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var small [smallObject]string
	seen := small[:0]
	var many map[string]struct{}
	end := 0
	ok := eachMember(raw, 0, false, func(rawKey []byte, escaped bool, value []byte) bool {
		var key string
		if escaped {
			key = string(decodeString(make([]byte, 0, len(rawKey)), rawKey))
		} else {
			key = string(rawKey)
		}
		if many != nil {
			if _, dup := many[key]; dup {
				return false
			}
			many[key] = struct{}{}
		} else {
			for _, k := range seen {
				if k == key {
					return false
				}
			}
			if len(seen) < smallObject {
				seen = append(seen, key)
			} else {
				many = make(map[string]struct{}, 2*smallObject)
				for _, k := range seen {
					many[k] = struct{}{}
				}
				many[key] = struct{}{}
			}
		}
		return fn(key, value)
	}, &end)
	return ok && end == len(raw)
}

// String decodes value as a JSON string. It returns false for any other
// value or a malformed string (including a lone surrogate escape).
func String(value []byte) (string, bool) {
	value = trim(value)
	if len(value) < 2 || value[0] != '"' {
		return "", false
	}
	end, escaped, ok := scanString(value, 0, false)
	if !ok || end != len(value) {
		return "", false
	}
	content := value[1 : len(value)-1]
	if !validUTF8(content) {
		return "", false
	}
	if !escaped {
		return string(content), true
	}
	// Escapes only ever shrink: decoding fits in len(content) bytes, and
	// checked escapes decode to valid UTF-8.
	// The buffer is never referenced again, so it becomes the string's
	// memory: one allocation for a decoded prompt, not two.
	d := decodeString(make([]byte, 0, len(content)), content)
	if len(d) == 0 {
		return "", true
	}
	return unsafe.String(&d[0], len(d)), true
}

// Bool decodes value as a JSON boolean.
func Bool(value []byte) (v, ok bool) {
	switch string(trim(value)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// IsNull reports whether value is the JSON literal null.
func IsNull(value []byte) bool { return string(trim(value)) == "null" }

// Strings decodes value as a JSON array of at most max strings. It returns
// false for any other value, an element that is not a string, or more than
// max elements.
func Strings(value []byte, max int) ([]string, bool) {
	value = trim(value)
	if len(value) < 2 || value[0] != '[' {
		return nil, false
	}
	i := skipSpace(value, 1)
	if i < len(value) && value[i] == ']' {
		if i+1 != len(value) {
			return nil, false
		}
		return []string{}, true
	}
	var out []string
	for {
		if len(out) == max || i >= len(value) || value[i] != '"' {
			return nil, false
		}
		end, _, ok := scanString(value, i, false)
		if !ok {
			return nil, false
		}
		s, ok := String(value[i:end])
		if !ok {
			return nil, false
		}
		out = append(out, s)
		i = skipSpace(value, end)
		if i >= len(value) {
			return nil, false
		}
		switch value[i] {
		case ',':
			i = skipSpace(value, i+1)
		case ']':
			if i+1 != len(value) {
				return nil, false
			}
			return out, true
		default:
			return nil, false
		}
	}
}
