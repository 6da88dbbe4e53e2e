package codemode

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/magi-code/magi-code/runner/tools"
)

// intro is the first part of run_code's description; the declarations
// follow it.
const intro = `Run a JavaScript program that calls tools, and get back only what it prints and returns. ` +
	`Use it to loop over many tool calls or to filter large results in one step. ` +
	`The code is the body of an async function: use "return" to give back the result ` +
	`(a string as it is, any other value as JSON); console.log lines come first. ` +
	`Each tools.NAME(args) call is synchronous and returns the tool's text; a failed, denied or refused call throws ` +
	`an Error with name "ToolError", a "tool" and a "code" ("failed", "denied", "approval_failed", "limit", "cancelled", "invalid_arguments"), ` +
	`which the program may catch. There is no require, filesystem, network, process or environment access except through these tools. ` +
	`Limits: `

// description is intro, the concrete limits, then the declarations.
func description(o Options) string {
	limits := o.Timeout.String() + " per program, " + strconv.Itoa(o.MaxToolCalls) + " tool calls per program, " +
		strconv.FormatInt(o.MaxHeapBytes>>20, 10) + " MiB of memory, " + strconv.Itoa(o.MaxOutputBytes) +
		" bytes of output (cut with \"[output truncated]\"), " + strconv.Itoa(o.MaxStringBytes) + " bytes per string passed to or from a tool."
	return intro + limits + "\n\n```ts\n" + Declarations(o.Tools) + "```\n"
}

// Declarations returns the TypeScript-style declarations of the API a
// program sees: one method of `tools` per tool, typed from its JSON
// Schema, and console.log. Tools named run_code are left out.
func Declarations(ts []tools.Tool) string {
	var b strings.Builder
	b.WriteString("declare const tools: {\n")
	for _, t := range ts {
		if t == nil || t.Name() == Name {
			continue
		}
		declareTool(&b, t)
	}
	b.WriteString("};\n")
	b.WriteString("declare const console: { log(...values: unknown[]): void };\n")
	return b.String()
}

// Bounds on what one tool's declaration may take.
const (
	maxDocBytes    = 200 // one doc line
	maxSchemaDepth = 6   // deeper schemas are unknown
	maxEnum        = 32  // longer enums are their base type
	maxProps       = 64  // more properties: the rest are left to an index signature
)

func declareTool(b *strings.Builder, t tools.Tool) {
	var s schema
	if json.Unmarshal(t.Schema(), &s) != nil {
		s = schema{}
	}
	props := s.props()
	var doc []string
	if d := docLine(t.Description()); d != "" {
		doc = append(doc, d)
	}
	for _, p := range props {
		if d := docLine(p.schema.Description); d != "" {
			doc = append(doc, "@param args."+p.name+" "+d)
		}
	}
	switch len(doc) {
	case 0:
	case 1:
		b.WriteString("  /** " + doc[0] + " */\n")
	default:
		b.WriteString("  /**\n")
		for _, d := range doc {
			b.WriteString("   * " + d + "\n")
		}
		b.WriteString("   */\n")
	}
	param := "args"
	if len(s.Required) == 0 {
		param = "args?"
	}
	b.WriteString("  " + propName(t.Name()) + "(" + param + ": " + s.objectType(props, 0) + "): string;\n")
}

// schema is the part of a JSON Schema the declarations use.
type schema struct {
	Type                 json.RawMessage   `json:"type"`
	Enum                 []json.RawMessage `json:"enum"`
	Const                json.RawMessage   `json:"const"`
	AnyOf                []json.RawMessage `json:"anyOf"`
	OneOf                []json.RawMessage `json:"oneOf"`
	Items                json.RawMessage   `json:"items"`
	Properties           json.RawMessage   `json:"properties"`
	Required             []string          `json:"required"`
	AdditionalProperties json.RawMessage   `json:"additionalProperties"`
	Description          string            `json:"description"`
}

type prop struct {
	name   string
	schema schema
}

// props returns the properties in schema order (a map would lose it).
func (s *schema) props() []prop {
	if len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []prop
	for dec.More() && len(out) < maxProps {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return out
		}
		var ps schema
		_ = json.Unmarshal(raw, &ps)
		out = append(out, prop{name: name, schema: ps})
	}
	return out
}

// types returns the schema's "type", a string or a list of strings.
func (s *schema) types() []string {
	if len(s.Type) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(s.Type, &many)
	return many
}

// ts returns the TypeScript type of s.
func (s *schema) ts(depth int) string { return strings.Join(s.union(depth), " | ") }

// union returns the members of the TypeScript union type of s, each once:
// the alternatives of a nested anyOf join the outer union instead of
// repeating its members.
func (s *schema) union(depth int) []string {
	if depth > maxSchemaDepth {
		return []string{"unknown"}
	}
	if len(s.Const) > 0 {
		if lit, ok := literal(s.Const); ok {
			return []string{lit}
		}
	}
	if n := len(s.Enum); n > 0 && n <= maxEnum {
		lits := make([]string, 0, n)
		for _, e := range s.Enum {
			lit, ok := literal(e)
			if !ok {
				lits = nil
				break
			}
			lits = appendUnique(lits, lit)
		}
		if lits != nil {
			return lits
		}
	}
	if alts := append(slices.Clone(s.AnyOf), s.OneOf...); len(alts) > 0 {
		parts := make([]string, 0, len(alts))
		for _, raw := range alts {
			var a schema
			if json.Unmarshal(raw, &a) != nil {
				return []string{"unknown"}
			}
			for _, member := range a.union(depth + 1) {
				parts = appendUnique(parts, member)
			}
		}
		return parts
	}
	ts := s.types()
	if len(ts) == 0 {
		if len(s.Properties) > 0 {
			ts = []string{"object"}
		} else {
			return []string{"unknown"}
		}
	}
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		parts = appendUnique(parts, s.typeNamed(t, depth))
	}
	return parts
}

func (s *schema) typeNamed(t string, depth int) string {
	switch t {
	case "string", "boolean", "null":
		return t
	case "number", "integer":
		return "number"
	case "array":
		var items schema
		if len(s.Items) == 0 || json.Unmarshal(s.Items, &items) != nil {
			return "unknown[]"
		}
		members := items.union(depth + 1)
		elem := strings.Join(members, " | ")
		if len(members) > 1 {
			elem = "(" + elem + ")"
		}
		return elem + "[]"
	case "object":
		return s.objectType(s.props(), depth)
	}
	return "unknown"
}

// objectType renders an object type: its properties (optional unless
// required), and an index signature for additionalProperties or when none
// are declared.
func (s *schema) objectType(props []prop, depth int) string {
	var parts []string
	for _, p := range props {
		opt := "?"
		if slices.Contains(s.Required, p.name) {
			opt = ""
		}
		parts = append(parts, propName(p.name)+opt+": "+p.schema.ts(depth+1))
	}
	switch extra := bytes.TrimSpace(s.AdditionalProperties); {
	case string(extra) == "false":
	case len(extra) > 0 && extra[0] == '{':
		var a schema
		if json.Unmarshal(extra, &a) == nil {
			parts = append(parts, "[key: string]: "+a.ts(depth+1))
		}
	case len(props) == 0:
		parts = append(parts, "[key: string]: unknown")
	}
	if len(parts) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

// literal returns a JSON scalar as a TypeScript literal type.
func literal(raw json.RawMessage) (string, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch v.(type) {
	case string, float64, bool, nil:
		out, err := json.Marshal(v)
		return string(out), err == nil
	}
	return "", false
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

var identifier = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`) })

// propName is name as a property name: bare if it is an identifier,
// quoted otherwise.
func propName(name string) string {
	if identifier().MatchString(name) {
		return name
	}
	out, _ := json.Marshal(name)
	return string(out)
}

// docLine is the first line of a description, bounded, safe inside a
// block comment.
func docLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	s = strings.ReplaceAll(strings.TrimSpace(s), "*/", "* /")
	if len(s) > maxDocBytes {
		s = string(appendCut(nil, s, maxDocBytes-3)) + "..."
	}
	return s
}
