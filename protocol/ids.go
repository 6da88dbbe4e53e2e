package protocol

// The two identifier grammars of v1, written once (docs/protocol.md, "IDs").
//
// ID: request IDs, method and capability names, revisions, cursors, run,
// message and approval IDs: 1-64 ASCII bytes of [A-Za-z0-9._-].
// Session ID: 1-64 ASCII bytes of [A-Za-z0-9_-] (no dot).

// idByte and sessionByte are the byte classes of the two grammars.
var idByte, sessionByte = func() (id, session [256]bool) {
	for c := 0; c < 256; c++ {
		alnum := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		session[c] = alnum || c == '_' || c == '-'
		id[c] = session[c] || c == '.'
	}
	return id, session
}()

// ValidID reports whether s follows the ID grammar [A-Za-z0-9._-]{1,64}.
func ValidID(s string) bool { return valid(s, &idByte) }

// ValidSessionID reports whether s follows the session ID grammar
// [A-Za-z0-9_-]{1,64}.
func ValidSessionID(s string) bool { return valid(s, &sessionByte) }

// ValidIDBytes is ValidID for a byte slice, without a conversion.
func ValidIDBytes(b []byte) bool {
	if len(b) == 0 || len(b) > MaxIDBytes {
		return false
	}
	for _, c := range b {
		if !idByte[c] {
			return false
		}
	}
	return true
}

func valid(s string, class *[256]bool) bool {
	if len(s) == 0 || len(s) > MaxIDBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !class[s[i]] {
			return false
		}
	}
	return true
}
