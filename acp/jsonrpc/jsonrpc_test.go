package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		line   string
		kind   Kind
		id     string // the echoed id's JSON text
		method string
		code   int // Parse's refusal, 0 when accepted
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, KindRequest, "1", "initialize", 0},
		{`{"jsonrpc":"2.0","id":"a\u0062","method":"m"}`, KindRequest, `"ab"`, "m", 0},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}`, KindNotification, "", "session/cancel", 0},
		{`{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"cancelled"}}}`, KindResponse, "7", "", 0},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"x"}}`, KindResponse, "7", "", 0},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, KindResponse, "null", "", 0},
		{` {"jsonrpc":"2.0","id":-3,"method":"m"} `, KindRequest, "-3", "m", 0},

		// Not JSON: -32700, id null.
		{`garbage`, 0, "null", "", CodeParseError},
		{`{"jsonrpc":"2.0","id":1,"method":"m"`, 0, "null", "", CodeParseError},
		{`{"jsonrpc":"2.0","id":1,"method":"m"} {}`, 0, "null", "", CodeParseError},
		{"\xff", 0, "null", "", CodeParseError},
		// JSON, not JSON-RPC: -32600, with the id when it could be read.
		{`[1,2]`, 0, "null", "", CodeInvalidRequest},
		{`"x"`, 0, "null", "", CodeInvalidRequest},
		{`{"id":1,"method":"m"}`, 0, "1", "", CodeInvalidRequest},
		{`{"jsonrpc":"1.0","id":1,"method":"m"}`, 0, "1", "", CodeInvalidRequest},
		{`{"jsonrpc":2,"id":1,"method":"m"}`, 0, "null", "", CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"method":5}`, 0, "1", "", CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"method":""}`, 0, "1", "", CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1.5,"method":"m"}`, 0, "null", "", CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":{},"method":"m"}`, 0, "null", "", CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":true,"method":"m"}`, 0, "null", "", CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":null,"method":"m"}`, 0, "null", "", CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":3}`, 0, "1", "", CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1}`, 0, "1", "", CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":""}}`, 0, "1", "", CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":null,"result":1}`, 0, "null", "", CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 257) + `","method":"m"}`, 0, "null", "", CodeInvalidRequest},
	} {
		m, err := Parse([]byte(tc.line))
		if tc.code != 0 {
			if err == nil || err.Code != tc.code || err.ID.String() != tc.id {
				t.Errorf("Parse(%.60q) = %+v, %+v; want code %d id %s", tc.line, m, err, tc.code, tc.id)
			}
			continue
		}
		if err != nil || m.Kind != tc.kind || m.ID.String() != tc.id || m.Method != tc.method {
			t.Errorf("Parse(%.60q) = %+v, %+v; want kind %d id %q method %q", tc.line, m, err, tc.kind, tc.id, tc.method)
		}
	}
}

// TestErrorsEchoNothing: an error frame holds the code's fixed message and
// the stable code, never anything of the input.
func TestErrorsEchoNothing(t *testing.T) {
	const secret = "sk-live-echo-me"
	for _, code := range []int{CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeInternalError, CodeRequestCancelled} {
		f := string(AppendError(nil, NumberID(3), code, protocol.CodeUnsupportedMethod))
		if strings.Contains(f, secret) || !strings.HasSuffix(f, "}\n") || strings.Count(f, "\n") != 1 {
			t.Errorf("code %d: %q", code, f)
		}
		var v struct {
			JSONRPC string `json:"jsonrpc"`
			ID      int    `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
				Data    struct {
					Code string `json:"code"`
				} `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(f), &v); err != nil || v.JSONRPC != "2.0" || v.ID != 3 || v.Error.Code != code ||
			v.Error.Message == "" || v.Error.Data.Code != "unsupported_method" {
			t.Errorf("code %d: %q: %+v %v", code, f, v, err)
		}
	}
	if f := string(AppendError(nil, Null, CodeParseError, "")); f != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`+"\n" {
		t.Errorf("parse error frame %q", f)
	}
}

func TestEncoders(t *testing.T) {
	id := mustID(t, `"r<1>"`)
	for _, tc := range []struct{ got, want string }{
		{string(AppendResult(nil, id, []byte(`{"a":1}`))), `{"jsonrpc":"2.0","id":"r<1>","result":{"a":1}}` + "\n"},
		{string(AppendNotification(nil, "session/update", []byte(`{}`))), `{"jsonrpc":"2.0","method":"session/update","params":{}}` + "\n"},
		{string(AppendRequest(nil, NumberID(12), "fs/read_text_file", []byte(`{}`))), `{"jsonrpc":"2.0","id":12,"method":"fs/read_text_file","params":{}}` + "\n"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func mustID(t *testing.T, raw string) ID {
	t.Helper()
	m, err := Parse([]byte(`{"jsonrpc":"2.0","id":` + raw + `,"method":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// FuzzParse: whatever the line, Parse answers without panicking; an
// accepted message's id re-parses to itself, and a refusal's id is null or
// readable; the frames built from it are one line of valid JSON.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`,
		`garbage`, `[]`, `{"id":"\ud800"}`, `{"jsonrpc":"2.0","id":1e3,"method":"m"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, perr := Parse(line)
		var id ID
		if perr != nil {
			id = perr.ID
			if perr.Code != CodeParseError && perr.Code != CodeInvalidRequest {
				t.Fatalf("refusal code %d", perr.Code)
			}
		} else {
			id = m.ID
			if m.Kind == KindRequest || m.Kind == KindNotification {
				if m.Method == "" {
					t.Fatal("request without a method")
				}
			}
		}
		if id.IsZero() {
			return
		}
		frame := AppendError(nil, id, CodeInvalidRequest, protocol.CodeInvalidRequest)
		if !json.Valid(frame[:len(frame)-1]) || strings.Count(string(frame), "\n") != 1 {
			t.Fatalf("frame %q", frame)
		}
		if id != Null {
			back, err := Parse([]byte(`{"jsonrpc":"2.0","id":` + id.String() + `,"method":"m"}`))
			if err != nil || back.ID != id {
				t.Fatalf("id %s re-parses to %+v %+v", id.String(), back.ID, err)
			}
		}
	})
}

// TestPeek: the id and kind of a line's first bytes, read as far as its
// values end: the id when it comes before the value that is cut, the kind
// from a method, params, result or error key.
func TestPeek(t *testing.T) {
	cut := strings.Repeat("x", 100)
	for _, tt := range []struct {
		prefix, id string
		kind       Kind
		ok         bool
	}{
		{`{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"p":"` + cut, "5", KindRequest, true},
		{`{"id":"a\u0062","params":{"p":"` + cut, `"ab"`, KindRequest, true},
		{`{"jsonrpc":"2.0","id":9,"result":{"content":"` + cut, "9", KindResponse, true},
		{`{"id":9,"error":{"message":"` + cut, "9", KindResponse, true},
		{`{"jsonrpc":"2.0","id":4,"jsonrpc2":"` + cut, "4", KindRequest, true},
		{`{"jsonrpc":"2.0","method":"session/prompt","params":{"p":"` + cut, "", KindRequest, true},
		{`{"jsonrpc":"2.0","result":{"p":"` + cut, "", KindResponse, true},
		{`{"jsonrpc":"2.0","id":null,"method":"m","params":"` + cut, "", KindRequest, true},
		{`{"id":1.5,"params":"` + cut, "", KindRequest, true},
		{`{"id":"` + strings.Repeat("i", maxIDBytes+1) + `","method":"m","params":"` + cut, "", KindRequest, true},
		{`{"jsonrpc":"` + cut, "", 0, false},
		{cut, "", 0, false},
		{`[{"id":1,"method":"m","params":"` + cut, "", 0, false},
		{``, "", 0, false},
		{`{"x":1,` + strings.Repeat(`"k":1,`, peekBytes/6) + `"id":1,"method":"m"}`, "", 0, false},
	} {
		id, kind, ok := Peek([]byte(tt.prefix))
		if id.String() != tt.id || kind != tt.kind || ok != tt.ok {
			t.Errorf("Peek(%.60q) = %q, %d, %v; want %q, %d, %v", tt.prefix, id.String(), kind, ok, tt.id, tt.kind, tt.ok)
		}
	}
}

func FuzzPeek(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":5,"method":"m","params":{"p":"xx`))
	f.Add([]byte(`{"id":"s","result":[1,{"a":`))
	f.Fuzz(func(t *testing.T, b []byte) {
		id, kind, ok := Peek(b)
		if ok != (!id.IsZero() || kind != 0) || id == Null || len(id.String()) > 2+6*maxIDBytes {
			t.Errorf("Peek(%q) = %q, %d, %v", b, id.String(), kind, ok)
		}
	})
}
