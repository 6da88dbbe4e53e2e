// Package schemacheck validates frames of magi-code.local-agent v1 against
// protocol.Schema, the JSON Schema that docs/protocol.md names as its
// normative companion. It is for tests, the conformance kit and client
// authors, never for the serving path: the validator is compiled on first
// use, once per process, and package initialization does nothing.
//
// It validates with github.com/google/jsonschema-go (JSON Schema 2020-12),
// which the binary links anyway through mcp-go and which costs almost
// nothing at start; a validator that compiles its meta-schemas during
// package initialization would cost every launch of the binary, serve
// included, several milliseconds (see docs/benchmarks.md).
package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/magi-code/magi-code/protocol"
)

// location is the URL the schema is registered under; $defs entries are
// resolved as location#/$defs/NAME.
const location = "https://github.com/magi-code/magi-code/protocol/schema.json"

var (
	// mu guards compiled.
	mu       sync.Mutex
	compiled map[string]*jsonschema.Resolved // by fragment; made on first use
)

// schema returns the resolved schema at fragment ("" for the root).
func schema(fragment string) (*jsonschema.Resolved, error) {
	mu.Lock()
	defer mu.Unlock()
	if s, ok := compiled[fragment]; ok {
		return s, nil
	}
	// Each fragment gets its own copy of the document: the root's oneOf is
	// replaced by a $ref to the fragment, so the copy validates exactly
	// that $defs entry, with every $ref inside it resolved in the same
	// document.
	var doc jsonschema.Schema
	if err := json.Unmarshal([]byte(protocol.Schema), &doc); err != nil {
		return nil, fmt.Errorf("schemacheck: loading the schema: %w", err)
	}
	if fragment != "" {
		doc.OneOf = nil
		doc.Ref = fragment
	}
	s, err := doc.Resolve(&jsonschema.ResolveOptions{BaseURI: location})
	if err != nil {
		return nil, fmt.Errorf("schemacheck: compiling %s: %w", location+fragment, err)
	}
	if compiled == nil {
		compiled = map[string]*jsonschema.Resolved{}
	}
	compiled[fragment] = s
	return s, nil
}

// Validate checks one frame (a JSON object, with or without its LF)
// against the schema: it must be a request, response or event frame of
// version 1. It validates the one $defs branch of the root that the
// frame's own discriminator names (type, then event, method or the keys of
// result), which is equivalent to the root because the branches exclude
// each other (the schema's tests check that), and many times faster than
// trying every branch; a frame that names no branch is validated against
// the root, whose error then says why. It is safe for concurrent use.
func Validate(frame []byte) error {
	v, err := parse(frame)
	if err != nil {
		return err
	}
	fragment := ""
	if def := branch(v); def != "" {
		fragment = "#/$defs/" + def
	}
	return check(fragment, v)
}

// ValidateRoot checks frame against the root of the schema, trying every
// branch of its oneOf.
func ValidateRoot(frame []byte) error { return validate("", frame) }

// ValidateDef checks frame against the schema's $defs entry name only
// (for example "event.run.finished" or "result.status").
func ValidateDef(name string, frame []byte) error { return validate("#/$defs/"+name, frame) }

// branch names the $defs entry of the root that the decoded frame v
// claims to be, or "".
func branch(v any) string {
	f, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	typ, hasType := f["type"].(string)
	event, _ := f["event"].(string)
	method, _ := f["method"].(string)
	switch {
	case !hasType && f["type"] == nil && method != "":
		return "request." + method
	case typ == "event" && event != "":
		return "event." + event
	case typ != "response":
		return ""
	case f["error"] != nil:
		return "response.error"
	}
	result, _ := f["result"].(map[string]any)
	for _, k := range [...]struct{ key, def string }{
		{"capabilities", "response.initialize"},
		{"readiness", "response.status"},
		{"state", "response.shutdown"},
		{"entries", "response.history.page"},
		{"session_id", "response.session"},
		{"accepted", "response.turn.start"},
		{"cancellation_requested", "response.turn.cancel"},
		{"recorded", "response.approval.answer"},
	} {
		if _, ok := result[k.key]; ok {
			return k.def
		}
	}
	return ""
}

// errTrailing reports bytes after the frame's one JSON value.
var errTrailing = errors.New("more than one JSON value")

// parse decodes the frame into the generic form the validator walks
// (numbers as float64: the schema's integers all fit in 2^53).
func parse(frame []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSuffix(frame, []byte{'\n'})))
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, next := dec.Token(); next != io.EOF {
			err = errTrailing
		}
	}
	if err != nil {
		return nil, fmt.Errorf("schemacheck: not one JSON value: %w", err)
	}
	return v, nil
}

func check(fragment string, v any) error {
	s, err := schema(fragment)
	if err != nil {
		return err
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("schemacheck: %w", err)
	}
	return nil
}

func validate(fragment string, frame []byte) error {
	v, err := parse(frame)
	if err != nil {
		return err
	}
	return check(fragment, v)
}
