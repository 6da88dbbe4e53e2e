// Package schemacheck validates frames of magi-code.local-agent v1 against
// protocol.Schema, the JSON Schema that docs/protocol.md names as its
// normative companion. It is for tests, the conformance kit and client
// authors, never for the serving path: the validator is compiled on first
// use, once per process, and package initialization does nothing.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/magi-code/magi-code/protocol"
)

// location is the URL the schema is registered under; $defs entries are
// compiled as location#/$defs/NAME.
const location = "https://github.com/magi-code/magi-code/protocol/schema.json"

var (
	// mu guards compiled, compiler and compileErr.
	mu         sync.Mutex
	compiler   *jsonschema.Compiler
	compiled   map[string]*jsonschema.Schema // by fragment; made on first use
	compileErr error
)

// schema returns the compiled schema at fragment ("" for the root).
func schema(fragment string) (*jsonschema.Schema, error) {
	mu.Lock()
	defer mu.Unlock()
	if s, ok := compiled[fragment]; ok {
		return s, nil
	}
	if compiled == nil {
		compiled = map[string]*jsonschema.Schema{}
	}
	if compiler == nil && compileErr == nil {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(protocol.Schema))
		if err == nil {
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			if err = c.AddResource(location, doc); err == nil {
				compiler = c
			}
		}
		compileErr = err
	}
	if compileErr != nil {
		return nil, fmt.Errorf("schemacheck: loading the schema: %w", compileErr)
	}
	s, err := compiler.Compile(location + fragment)
	if err != nil {
		return nil, fmt.Errorf("schemacheck: compiling %s: %w", location+fragment, err)
	}
	compiled[fragment] = s
	return s, nil
}

// Validate checks one frame (a JSON object, with or without its LF)
// against the schema: it must be a request, response or event frame of
// version 1. It validates the one $defs branch of the root that the
// frame's own discriminator names (type, then event, method or the keys of
// result), which is equivalent to the root because the branches exclude
// each other (the schema's tests check that), and some 30 times faster than
// trying every branch; a frame that names no branch is validated against
// the root, whose error then says why. It is safe for concurrent use.
func Validate(frame []byte) error {
	if def := branch(frame); def != "" {
		return ValidateDef(def, frame)
	}
	return ValidateRoot(frame)
}

// ValidateRoot checks frame against the root of the schema, trying every
// branch of its oneOf.
func ValidateRoot(frame []byte) error { return validate("", frame) }

// branch names the $defs entry of the root that frame claims to be, or "".
func branch(frame []byte) string {
	var f struct {
		Type   *string                    `json:"type"`
		Event  string                     `json:"event"`
		Method string                     `json:"method"`
		Result map[string]json.RawMessage `json:"result"`
		Error  json.RawMessage            `json:"error"`
	}
	if json.Unmarshal(frame, &f) != nil {
		return ""
	}
	switch {
	case f.Type == nil && f.Method != "":
		return "request." + f.Method
	case f.Type == nil:
		return ""
	case *f.Type == "event" && f.Event != "":
		return "event." + f.Event
	case *f.Type != "response":
		return ""
	case f.Error != nil:
		return "response.error"
	}
	has := func(k string) bool { _, ok := f.Result[k]; return ok }
	switch {
	case has("capabilities"):
		return "response.initialize"
	case has("readiness"):
		return "response.status"
	case has("state"):
		return "response.shutdown"
	case has("entries"):
		return "response.history.page"
	case has("session_id"):
		return "response.session"
	case has("accepted"):
		return "response.turn.start"
	case has("cancellation_requested"):
		return "response.turn.cancel"
	case has("recorded"):
		return "response.approval.answer"
	}
	return ""
}

// ValidateDef checks frame against the schema's $defs entry name only
// (for example "event.run.finished" or "result.status").
func ValidateDef(name string, frame []byte) error { return validate("#/$defs/"+name, frame) }

func validate(fragment string, frame []byte) error {
	s, err := schema(fragment)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(bytes.TrimSuffix(frame, []byte{'\n'})))
	if err != nil {
		return fmt.Errorf("schemacheck: not one JSON value: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("schemacheck: %w", err)
	}
	return nil
}
