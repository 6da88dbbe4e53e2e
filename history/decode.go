package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/magi-code/magi-code/internal/jsonenc"
)

// errMalformed reports a stored line that is not a valid record. Its text
// never reaches the wire: the store turns it into session_invalid.
var errMalformed = errors.New("history: malformed record")

// decoder is the state a streaming read reuses from line to line.
type decoder struct {
	in  interner
	buf []byte // decoding buffer for strings with escapes
}

// interner reuses the last string of each short, repetitive field (session,
// run, message and activity IDs, enums), so that a streaming read does not
// allocate them once per line.
type interner [fieldCount]string

func (in *interner) get(f field, v []byte) string {
	if in == nil {
		return string(v)
	}
	switch f {
	case fSessionID, fRunID, fMessageID, fActivityID, fKind, fState, fName, fOutcome, fCode, fCallID:
		if in[f] != string(v) {
			in[f] = string(v)
		}
		return in[f]
	}
	return string(v)
}

// parseRecord decodes one stored line (without its LF) into r. The accepted
// language is deliberately small and strict: one flat JSON object whose
// values are strings, booleans, null or (version) a small integer; valid
// UTF-8; no duplicate, unknown or misplaced keys; JSON whitespace (CR
// included) around tokens. encoding/json would silently accept duplicate
// keys, case-folded keys and invalid UTF-8, so it is not used here.
//
// lean skips copying the replay-only bodies
// (tool_call arguments, tool_result and internal_input text) when the type
// precedes them, as it does in every line AppendRecord writes. They are still
// fully validated. The projection reads leanly; Replay does not.
func parseRecord(line []byte, r *Record, lean bool, d *decoder) error {
	*r = Record{}
	if !utf8.Valid(line) {
		return errMalformed
	}
	var in *interner
	p := parser{b: line}
	if d != nil {
		in, p.buf = &d.in, d.buf
		defer func() { d.buf = p.buf }()
	}
	seen, ok := p.object(r, lean, in)
	if !ok {
		if id, unknown := unknownRecord(line); unknown {
			*r = Record{SessionID: id}
			return errUnknownType
		}
		return errMalformed
	}
	return checkFields(r, seen)
}

// errUnknownType reports a line that is a record of a type this build does
// not know (a later build's): a JSON object whose "type" is a string in the
// ID grammar that names no type here. The reader skips it (see scan).
var errUnknownType = errors.New("history: record of an unknown type")

// unknownRecord reports whether line is a record of an unknown type, and
// its session ID: one JSON object (valid JSON, any values, keys never
// duplicated) holding a string "type" in the ID grammar that is not a type
// of this build, and a string "session_id". Anything else that the strict
// decoder refused stays malformed. Its cost is bounded by the line, which
// the reader's bounds already bound.
func unknownRecord(line []byte) (sessionID string, ok bool) {
	if !json.Valid(line) {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	var typ, id *string
	keys := map[string]struct{}{}
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			return "", false
		}
		if _, dup := keys[key]; dup {
			return "", false
		}
		keys[key] = struct{}{}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return "", false
		}
		switch key {
		case "type", "session_id":
			var s string
			if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
				return "", false
			}
			if key == "type" {
				typ = &s
			} else {
				id = &s
			}
		}
	}
	if typ == nil || id == nil || !ValidID(*typ) || typeFromName([]byte(*typ)) != 0 {
		return "", false
	}
	return *id, true
}

// object reads the line's one flat object into r and returns the fields
// that held a non-null value. The whole line must be that object.
func (p *parser) object(r *Record, lean bool, in *interner) (seen fieldSet, ok bool) {
	var keys fieldSet // every key read (duplicates)
	p.space()
	if !p.eat('{') {
		return 0, false
	}
	p.space()
	if p.eat('}') {
		return 0, false // no type
	}
	for {
		p.space()
		key, ok := p.str(p.buf[:0])
		if !ok {
			return 0, false
		}
		f, known := fieldFromName(key)
		if !known || keys&(1<<f) != 0 {
			return 0, false
		}
		keys |= 1 << f
		p.space()
		if !p.eat(':') {
			return 0, false
		}
		p.space()
		null, ok := p.value(f, r, lean, in)
		if !ok {
			return 0, false
		}
		if !null {
			seen |= 1 << f // null is absence
		}
		p.space()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			break
		}
		return 0, false
	}
	p.space()
	return seen, p.i == len(p.b)
}

// value reads the value of field f into r: a string, a boolean, null (the
// field is absent; never for type, session_id or version) or, for version
// only, a small integer.
func (p *parser) value(f field, r *Record, lean bool, in *interner) (null, ok bool) {
	switch c := p.peek(); {
	case c == '"':
		sval, ok := p.str(p.buf[:0])
		if !ok {
			return false, false
		}
		if lean && (f == fText || f == fArguments) && replayOnly(r.Type) {
			return false, true // validated, not copied
		}
		return false, r.setString(f, sval, in)
	case c == 't' || c == 'f':
		v, ok := p.boolean()
		return false, ok && r.setBool(f, v)
	case c == 'n':
		return true, p.lit("null") && f != fType && f != fSessionID && f != fVersion
	case c >= '0' && c <= '9':
		if f != fVersion {
			n, ok := p.digits(15)
			return false, ok && r.setCount(f, n)
		}
		n, ok := p.digits(6)
		r.Version = int(n)
		return false, ok
	}
	return false, false
}

// checkFields checks the fields a record holds against its type: type and
// session_id always, the type's required fields, none it does not allow.
func checkFields(r *Record, seen fieldSet) error {
	if seen&(1<<fType) == 0 || seen&(1<<fSessionID) == 0 || r.Type == 0 {
		return errMalformed
	}
	rest := seen &^ set(fType, fSessionID)
	if rest&^allowedFields[r.Type] != 0 || requiredFields[r.Type]&^rest != 0 {
		return errMalformed
	}
	if r.Type == TypeAssistant {
		r.HasText = seen&(1<<fText) != 0
	}
	if r.Validate() != nil {
		return errMalformed
	}
	return nil
}

func replayOnly(t Type) bool {
	return t == TypeToolCall || t == TypeToolResult || t == TypeInternalInput
}

func (r *Record) setString(f field, v []byte, in *interner) bool {
	if f == fType {
		r.Type = typeFromName(v)
		return r.Type != 0
	}
	s := in.get(f, v)
	switch f {
	case fSessionID:
		r.SessionID = s
	case fCwd:
		r.Cwd = s
	case fProvider:
		r.Provider = s
	case fModel:
		r.Model = s
	case fThinking:
		r.Thinking = s
	case fCreatedAt:
		r.CreatedAt = s
	case fRunID:
		r.RunID = s
	case fMessageID:
		r.MessageID = s
	case fID:
		r.ID = s
	case fText:
		r.Text = s
	case fActivityID:
		r.ActivityID = s
	case fKind:
		r.Kind = s
	case fState:
		r.State = s
	case fName:
		r.Name = s
	case fSummary:
		r.Summary = s
	case fCode:
		r.Code = s
	case fOutcome:
		r.Outcome = s
	case fErrorCode:
		r.ErrorCode = s
	case fCallID:
		r.CallID = s
	case fArguments:
		r.Arguments = s
	case fCeiling:
		r.Ceiling = s
	case fScope:
		r.Scope = s
	case fMode:
		r.Mode = s
	default:
		return false
	}
	return true
}

// setCount sets a usage token count; other fields take no number.
func (r *Record) setCount(f field, n int64) bool {
	switch f {
	case fInputTokens:
		r.InputTokens = n
	case fOutputTokens:
		r.OutputTokens = n
	case fCachedInputTokens:
		r.CachedInputTokens = n
	case fReasoningTokens:
		r.ReasoningTokens = n
	default:
		return false
	}
	return true
}

func (r *Record) setBool(f field, v bool) bool {
	switch f {
	case fPartial:
		r.Partial = v
	case fProviderSummary:
		r.ProviderSummary = v
	case fIsError:
		r.IsError = v
	default:
		return false
	}
	return true
}

type parser struct {
	b []byte
	i int
	// buf is reused for strings with escapes; callers copy what they keep.
	buf []byte
}

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *parser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

func (p *parser) boolean() (bool, bool) {
	if p.lit("true") {
		return true, true
	}
	return false, p.lit("false")
}

// digits parses an unsigned integer of at most max digits, without sign,
// fraction, exponent or leading zero.
func (p *parser) digits(max int) (int64, bool) {
	start, n := p.i, int64(0)
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		n = n*10 + int64(p.b[p.i]-'0')
		p.i++
		if p.i-start > max {
			return 0, false
		}
	}
	if p.i-start > 1 && p.b[start] == '0' {
		return 0, false
	}
	if c := p.peek(); c == '.' || c == 'e' || c == 'E' {
		return 0, false
	}
	return n, true
}

// str parses a JSON string at p.i. Without escapes it returns a subslice of
// the line (no copy); with escapes it decodes into dst. Raw control bytes and
// lone surrogates are rejected. The line is already valid UTF-8. The result
// is valid only until the next call (it may live in p.buf).
func (p *parser) str(dst []byte) ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	start := p.i
	// Fast path: the closing quote and the first backslash by IndexByte
	// (vectorized), then one tight loop for raw control bytes.
	q := bytes.IndexByte(p.b[start:], '"')
	if q < 0 {
		return nil, false
	}
	span := p.b[start : start+q]
	if bs := bytes.IndexByte(span, '\\'); bs >= 0 {
		span = span[:bs]
	}
	for _, c := range span {
		if c < 0x20 {
			return nil, false
		}
	}
	p.i = start + len(span)
	if p.i == start+q {
		p.i++
		return span, true
	}
	dst = append(dst, p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			p.buf = dst[:0] // keep the grown buffer for the next string
			return dst, true
		case c < 0x20:
			return nil, false
		case c != '\\':
			// copy a run of plain bytes
			j := p.i
			for j < len(p.b) && p.b[j] != '"' && p.b[j] != '\\' && p.b[j] >= 0x20 {
				j++
			}
			dst = append(dst, p.b[p.i:j]...)
			p.i = j
			continue
		}
		var n int
		var ok bool
		if dst, n, ok = jsonenc.Unescape(dst, p.b[p.i:]); !ok {
			return nil, false
		}
		p.i += n
	}
	return nil, false
}
