package hooks

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Input is the JSON document a hook reads on stdin. Fields that do not
// apply to the event are left out:
//
//	{"event":"pre_tool_use","invocation":"local_agent","cwd":"/w","tool":"shell","arguments":{"command":"ls"}}
//	{"event":"post_tool_use","invocation":"local_agent","cwd":"/w","tool":"shell","arguments":{...},"result":"...","is_error":false}
//	{"event":"stop","invocation":"mission_control","cwd":"/w","outcome":"completed"}
//
// invocation is what started the turn: local_agent under serve --stdio (a
// frontend's child), mission_control in the terminal app; a subagent's tool
// calls carry the invocation of the turn that delegated to it.
// arguments is the call's JSON arguments as the model sent them when they
// are valid JSON of at most InputFieldBytes; otherwise it is a string (the
// first InputFieldBytes of them, valid UTF-8) and arguments_truncated is
// true. result is cut to at most InputFieldBytes on a rune boundary, with
// result_truncated true when cut. outcome is completed or failed (the
// agent runs no stop hook for a cancelled turn).
type Input struct {
	Event              string          `json:"event"`
	Invocation         string          `json:"invocation"`
	Cwd                string          `json:"cwd"`
	Tool               string          `json:"tool,omitempty"`
	Arguments          json.RawMessage `json:"arguments,omitempty"`
	ArgumentsTruncated bool            `json:"arguments_truncated,omitempty"`
	Result             *string         `json:"result,omitempty"`
	ResultTruncated    bool            `json:"result_truncated,omitempty"`
	IsError            *bool           `json:"is_error,omitempty"`
	Outcome            string          `json:"outcome,omitempty"`
}

// encodeInput builds the stdin document of one event. result is nil except
// for post_tool_use.
func encodeInput(event, invocation, cwd, tool string, args json.RawMessage, result *string, isError bool, outcome string) []byte {
	in := Input{Event: event, Invocation: invocation, Cwd: cwd, Tool: tool, Outcome: outcome}
	if event != Stop {
		in.Arguments, in.ArgumentsTruncated = boundArgs(args)
	}
	if result != nil {
		s, cut := cutUTF8(*result, InputFieldBytes)
		in.Result, in.ResultTruncated = &s, cut
		in.IsError = &isError
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		// Unreachable: every field is either a string or checked JSON.
		panic("hooks: encoding input: " + err.Error())
	}
	return buf.Bytes()
}

// boundArgs returns args when it is valid JSON within InputFieldBytes, else
// a JSON string of its first InputFieldBytes (true). Empty args are {}.
func boundArgs(args json.RawMessage) (json.RawMessage, bool) {
	if len(bytes.TrimSpace(args)) == 0 {
		return json.RawMessage(`{}`), false
	}
	if len(args) <= InputFieldBytes && json.Valid(args) {
		return args, false
	}
	s, _ := cutUTF8(string(args), InputFieldBytes)
	b, _ := json.Marshal(s) // a valid UTF-8 string always marshals
	return b, true
}

// cutUTF8 returns s made valid UTF-8 and cut to at most max bytes on a rune
// boundary, and whether anything was cut.
func cutUTF8(s string, max int) (string, bool) {
	s, cut := cutAt(s, max)
	if !utf8.ValidString(s) {
		// Each invalid byte becomes a 3-byte U+FFFD: cut again.
		var more bool
		s, more = cutAt(strings.ToValidUTF8(s, "\uFFFD"), max)
		cut = cut || more
	}
	return s, cut
}

// cutAt cuts s to at most max bytes, backing up to a rune start.
func cutAt(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
