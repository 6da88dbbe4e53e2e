package dispatch

import (
	"unicode"
	"unicode/utf8"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/validate"
)

// Params of the implemented operations, decoded strictly: unknown or
// duplicate members, wrong types and out-of-grammar identifiers are
// invalid_params.
type (
	InitializeParams struct{ RequiredCapabilities []string }
	OpenParams       struct{ SessionID string }
	PageParams       struct {
		SessionID, Revision string
		Cursor              string // "" when null or omitted
	}
	TurnParams   struct{ SessionID, Prompt string }
	CancelParams struct{ SessionID, RunID string }
	AnswerParams struct {
		SessionID, RunID, ApprovalID string
		Allow                        bool
		// ForSession: "scope":"session" (the optional approval.session
		// capability): allow, and grant this exact call for the rest of
		// the session.
		ForSession bool
	}
)

// field is one expected member: decode stores the value and reports success.
type field struct {
	name     string
	optional bool
	decode   func(value []byte) bool
}

// decodeObject decodes raw as an object with exactly the given members.
func decodeObject(raw []byte, fields ...field) bool {
	var seen uint8 // fields are few; one bit each
	ok := validate.Members(raw, func(key string, value []byte) bool {
		for i, f := range fields {
			if f.name == key {
				seen |= 1 << i
				return f.decode(value)
			}
		}
		return false // unknown member
	})
	if !ok {
		return false
	}
	for i, f := range fields {
		if !f.optional && seen&(1<<i) == 0 {
			return false
		}
	}
	return true
}

func str(dst *string, grammar func(string) bool) func([]byte) bool {
	return func(value []byte) bool {
		s, ok := validate.String(value)
		if !ok || (grammar != nil && !grammar(s)) {
			return false
		}
		*dst = s
		return true
	}
}

// SessionID reports whether s follows the session ID grammar.
func SessionID(s string) bool { return protocol.ValidSessionID(s) }

// Prompt reports whether s is an admissible prompt: at most 16,384 UTF-8
// bytes and not blank (every rune white space per unicode.IsSpace).
func Prompt(s string) bool {
	if len(s) > protocol.MaxPromptBytes || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return true
		}
	}
	return false
}

func emptyParams(raw []byte) bool { return decodeObject(raw) }

func decodeInitialize(raw []byte) (p InitializeParams, ok bool) {
	ok = decodeObject(raw, field{name: "required_capabilities", decode: func(v []byte) bool {
		caps, ok := validate.Strings(v, protocol.MaxRequiredCapabilities)
		if !ok {
			return false
		}
		for _, c := range caps {
			if !validate.Name(c) {
				return false
			}
		}
		p.RequiredCapabilities = caps
		return true
	}})
	return p, ok
}

func decodeOpen(raw []byte) (p OpenParams, ok bool) {
	ok = decodeObject(raw, field{name: "session_id", decode: str(&p.SessionID, SessionID)})
	return p, ok
}

func decodePage(raw []byte) (p PageParams, ok bool) {
	ok = decodeObject(raw,
		field{name: "session_id", decode: str(&p.SessionID, SessionID)},
		field{name: "revision", decode: str(&p.Revision, validate.Name)},
		field{name: "cursor", optional: true, decode: func(v []byte) bool {
			if validate.IsNull(v) {
				return true
			}
			return str(&p.Cursor, validate.Name)(v)
		}},
	)
	return p, ok
}

func decodeTurn(raw []byte) (p TurnParams, ok bool) {
	ok = decodeObject(raw,
		field{name: "session_id", decode: str(&p.SessionID, SessionID)},
		field{name: "prompt", decode: str(&p.Prompt, Prompt)},
	)
	return p, ok
}

func decodeCancel(raw []byte) (p CancelParams, ok bool) {
	ok = decodeObject(raw,
		field{name: "session_id", decode: str(&p.SessionID, SessionID)},
		field{name: "run_id", decode: str(&p.RunID, validate.Name)},
	)
	return p, ok
}

// decodeAnswer decodes approval.answer's params. scoped: the client
// required the approval.session capability, so the optional "scope"
// member ("once" or "session") is known; without it "scope" is an unknown
// member, as in version 1. "session" needs "allow": true.
func decodeAnswer(raw []byte, scoped bool) (p AnswerParams, ok bool) {
	fields := []field{
		{name: "session_id", decode: str(&p.SessionID, SessionID)},
		{name: "run_id", decode: str(&p.RunID, validate.Name)},
		{name: "approval_id", decode: str(&p.ApprovalID, validate.Name)},
		{name: "allow", decode: func(v []byte) bool {
			b, ok := validate.Bool(v)
			p.Allow = b
			return ok
		}},
	}
	if scoped {
		fields = append(fields, field{name: "scope", optional: true, decode: func(v []byte) bool {
			s, ok := validate.String(v)
			p.ForSession = s == protocol.ScopeSession
			return ok && (s == protocol.ScopeOnce || s == protocol.ScopeSession)
		}})
	}
	ok = decodeObject(raw, fields...) && (p.Allow || !p.ForSession)
	return p, ok
}
