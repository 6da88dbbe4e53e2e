package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/protocol"
)

// JSON-RPC 2.0 error codes, and ACP's.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeRequestCancelled is ACP's answer to a request the peer
	// cancelled with $/cancel_request.
	CodeRequestCancelled = -32800
	// CodeAuthRequired is ACP's "authentication required".
	CodeAuthRequired = -32000
	// CodeResourceNotFound is ACP's "resource not found" (session/load of
	// an unknown session).
	CodeResourceNotFound = -32002
)

// Kind is what a parsed line is.
type Kind uint8

// Kinds of messages.
const (
	KindRequest      Kind = iota + 1 // method and id
	KindNotification                 // method, no id
	KindResponse                     // id and result or error, no method
)

// Message is one parsed JSON-RPC message. Its slices alias the parsed line:
// valid until the line's buffer is reused.
type Message struct {
	Kind   Kind
	ID     ID
	Method string
	Params json.RawMessage // nil when absent
	Result json.RawMessage // response only
	Error  *WireError      // response only
}

// ID is a request id: the exact JSON text of a string or a number. The
// zero ID is absent (a notification); Null is the id null.
type ID struct {
	raw string
}

// Null is the id of an answer to a message whose id could not be read.
var Null = ID{raw: "null"}

// IsZero reports an absent id.
func (id ID) IsZero() bool { return id.raw == "" }

// String is the id's JSON text (also a map key).
func (id ID) String() string { return id.raw }

// NumberID is the id of a request the agent sends (numbers, from 1).
func NumberID(n uint64) ID { return ID{raw: strconv.FormatUint(n, 10)} }

// WireError is the error object of a response the peer sent.
type WireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error is what Parse refuses a line with: the JSON-RPC code and the id to
// answer with (Null when none could be read).
type Error struct {
	Code int
	ID   ID
}

// envelope is the shape a line is decoded into before it is checked.
type envelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// Parse reads one line. It answers -32700 for a line that is not one JSON
// value, and -32600 for JSON that is not a JSON-RPC 2.0 request,
// notification or response, with the id when it could be read.
func Parse(line []byte) (Message, *Error) {
	if !json.Valid(line) {
		return Message{}, &Error{Code: CodeParseError, ID: Null}
	}
	var env envelope
	trimmed := bytes.TrimLeft(line, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(line, &env) != nil {
		return Message{}, &Error{Code: CodeInvalidRequest, ID: Null}
	}
	id, idOK := parseID(env.ID)
	bad := &Error{Code: CodeInvalidRequest, ID: Null}
	if idOK && !id.IsZero() {
		bad.ID = id
	}
	if !idOK || env.JSONRPC == nil || *env.JSONRPC != "2.0" {
		return Message{}, bad
	}
	if env.Method != nil {
		var method string
		if json.Unmarshal(env.Method, &method) != nil || method == "" || id == Null || env.Result != nil || env.Error != nil {
			return Message{}, bad
		}
		if env.Params != nil && !isObjectOrArray(env.Params) && !isNull(env.Params) {
			return Message{}, bad
		}
		m := Message{Kind: KindRequest, ID: id, Method: method, Params: env.Params}
		if id.IsZero() {
			m.Kind = KindNotification
		}
		return m, nil
	}
	// A response: an id (null only for an error answer), and exactly one
	// of result and error.
	if id.IsZero() || (env.Result == nil) == (env.Error == nil) {
		return Message{}, bad
	}
	m := Message{Kind: KindResponse, ID: id, Result: env.Result}
	if env.Error != nil {
		var we WireError
		if json.Unmarshal(env.Error, &we) != nil {
			return Message{}, bad
		}
		m.Error = &we
	} else if id == Null {
		return Message{}, bad
	}
	return m, nil
}

// Peek reads what it can of the start of a line too long to parse whole
// (its first bytes): the id, when it comes before any value that does not
// fit, and whether the line is a request (a method key) or a response (a
// result or error key). ok is false when neither id nor kind could be
// read. Only the first peekBytes are looked at: an id comes first in
// what clients write.
func Peek(prefix []byte) (id ID, kind Kind, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(prefix[:min(len(prefix), peekBytes)]))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ID{}, 0, false
	}
	for id.IsZero() || kind == 0 {
		t, err := dec.Token()
		key, isKey := t.(string)
		if err != nil || !isKey {
			break
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			// The value does not end within the prefix; a method or
			// result key still tells the kind.
			kind = kindOfKey(key, kind)
			break
		}
		switch key {
		case "id":
			if got, valid := parseID(raw); valid && got != Null {
				id = got
			}
		default:
			kind = kindOfKey(key, kind)
		}
	}
	if kind == 0 && !id.IsZero() {
		kind = KindRequest // a notification has no id; a response says so before
	}
	return id, kind, !id.IsZero() || kind != 0
}

func kindOfKey(key string, kind Kind) Kind {
	switch key {
	case "method", "params":
		return KindRequest
	case "result", "error":
		return KindResponse
	}
	return kind
}

// peekBytes bounds what Peek reads.
const peekBytes = 64 << 10

// parseID reads an id: absent (zero), null, a string or a number. A
// number is kept as its text, which must be an integer of at most 19
// digits, and a string at most 256 bytes: ids are echoed, never grown.
func parseID(raw json.RawMessage) (ID, bool) {
	if raw == nil {
		return ID{}, true
	}
	switch raw[0] {
	case 'n':
		return Null, true
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil || len(s) > maxIDBytes {
			return ID{}, false
		}
		// Re-encode: the echo is our canonical spelling of the same string.
		return ID{raw: string(jsonenc.AppendString(nil, s))}, true
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return ID{raw: strconv.FormatInt(n, 10)}, true
	}
	return ID{}, false
}

// maxIDBytes bounds a string id.
const maxIDBytes = 256

func isObjectOrArray(raw json.RawMessage) bool { return raw[0] == '{' || raw[0] == '[' }
func isNull(raw json.RawMessage) bool          { return raw[0] == 'n' }

// The fixed message of each JSON-RPC code: errors never carry input.
func messageOf(code int) string {
	switch code {
	case CodeParseError:
		return "Parse error"
	case CodeInvalidRequest:
		return "Invalid request"
	case CodeMethodNotFound:
		return "Method not found"
	case CodeInvalidParams:
		return "Invalid params"
	case CodeRequestCancelled:
		return "Request cancelled"
	case CodeAuthRequired:
		return "Authentication required"
	case CodeResourceNotFound:
		return "Resource not found"
	}
	return "Internal error"
}

const head = `{"jsonrpc":"2.0",`

// AppendResult appends the response frame {"jsonrpc","id","result"} and
// its LF; result is a complete JSON value.
func AppendResult(dst []byte, id ID, result []byte) []byte {
	dst = append(dst, head...)
	dst = append(dst, `"id":`...)
	dst = append(dst, id.raw...)
	dst = append(dst, `,"result":`...)
	dst = append(dst, result...)
	return append(dst, "}\n"...)
}

// AppendError appends an error response frame and its LF: code's fixed
// message, and magi-code's stable code in data.code when not empty.
func AppendError(dst []byte, id ID, code int, stable protocol.Code) []byte {
	dst = append(dst, head...)
	dst = append(dst, `"id":`...)
	dst = append(dst, id.raw...)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	dst = append(dst, `,"message":`...)
	dst = jsonenc.AppendString(dst, messageOf(code))
	if stable != "" {
		dst = append(dst, `,"data":{"code":`...)
		dst = jsonenc.AppendString(dst, string(stable))
		dst = append(dst, '}')
	}
	return append(dst, "}}\n"...)
}

// AppendNotification appends a notification frame and its LF; params is
// a complete JSON object.
func AppendNotification(dst []byte, method string, params []byte) []byte {
	dst = append(dst, head...)
	dst = append(dst, `"method":`...)
	dst = jsonenc.AppendString(dst, method)
	dst = append(dst, `,"params":`...)
	dst = append(dst, params...)
	return append(dst, "}\n"...)
}

// AppendRequest appends a request frame and its LF.
func AppendRequest(dst []byte, id ID, method string, params []byte) []byte {
	dst = append(dst, head...)
	dst = append(dst, `"id":`...)
	dst = append(dst, id.raw...)
	dst = append(dst, `,"method":`...)
	dst = jsonenc.AppendString(dst, method)
	dst = append(dst, `,"params":`...)
	dst = append(dst, params...)
	return append(dst, "}\n"...)
}
