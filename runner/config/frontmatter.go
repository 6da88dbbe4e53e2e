package config

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"
)

// splitFrontMatter separates a leading "---" block from the Markdown body.
// has is false when the document does not start with "---"; an opening
// delimiter without a closing one is an error. The front matter's first
// line is line 2 of the file.
func splitFrontMatter(doc []byte) (fm string, body []byte, has bool, err error) {
	doc = bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf"))
	first, rest, _ := bytes.Cut(doc, []byte("\n"))
	if string(bytes.TrimRight(first, " \t\r")) != "---" {
		return "", doc, false, nil
	}
	for off := 0; off <= len(rest); {
		line, _, _ := bytes.Cut(rest[off:], []byte("\n"))
		next := off + len(line) + 1
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			if next > len(rest) {
				next = len(rest)
			}
			return string(rest[:off]), rest[next:], true, nil
		}
		off = next
	}
	return "", nil, true, &lineError{line: 1, msg: "front matter: no closing --- line"}
}

// fmFirstLine is the file line of the front matter's first line (after the
// opening "---").
const fmFirstLine = 2

// lineError is a problem at a line of a file (0: the file as a whole). Its
// text is for people: config show and the diagnostic log.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("line %d: %s", e.line, e.msg)
	}
	return e.msg
}

// lineOf is the line an error names (0 when none).
func lineOf(err error) int {
	var le *lineError
	if errors.As(err, &le) {
		return le.line
	}
	return 0
}

// frontMatter is a document's parsed front matter: its top-level keys.
// Values are read on demand by text and list, so that keys written for
// other agents (metadata:, license:, allowed-tools:, hooks:...) may hold
// any YAML and are ignored unless asked for.
type frontMatter struct {
	keys map[string]*yaml.Node
	last int // the file line of the closing "---"
}

// parseFrontMatter parses fm, the text between the "---" lines, as YAML
// (go.yaml.in/yaml: block and flow styles, folded and literal scalars,
// anchors, comments). It must be a mapping (or empty); duplicate top-level
// keys are an error. Errors name the file line.
func parseFrontMatter(fm string) (frontMatter, error) {
	out := frontMatter{keys: map[string]*yaml.Node{}, last: fmFirstLine + strings.Count(fm, "\n")}
	fileLine := out.fileLine
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(fm), &doc); err != nil {
		var pe *yaml.ParserError
		if errors.As(err, &pe) {
			return out, &lineError{line: fileLine(pe.Line), msg: "front matter is not valid YAML: " + pe.Message}
		}
		return out, &lineError{line: fmFirstLine - 1, msg: "front matter is not valid YAML"}
	}
	if doc.Kind == 0 { // empty, or only comments
		return out, nil
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return out, nil
	}
	if root.Kind != yaml.MappingNode {
		return out, &lineError{line: fileLine(root.Line), msg: "front matter is not a set of key: value lines"}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return out, &lineError{line: fileLine(k.Line), msg: "front matter key is not a plain name"}
		}
		if _, dup := out.keys[k.Value]; dup {
			return out, &lineError{line: fileLine(k.Line), msg: fmt.Sprintf("front matter key %q appears twice", bounded(k.Value))}
		}
		out.keys[k.Value] = v
	}
	return out, nil
}

// fileLine turns a line YAML names in the front matter (1-based) into a
// line of the file as "\n" counts them. YAML also breaks lines at a lone
// "\r" (and libyaml at U+0085, U+2028, U+2029), so its count can run past
// the front matter: such a line is named as the closing "---" line.
func (f frontMatter) fileLine(l int) int {
	if l <= 0 {
		return fmFirstLine
	}
	return min(l+fmFirstLine-1, f.last)
}

// bounded cuts a name quoted in a message to 64 bytes.
func bounded(s string) string {
	if len(s) > 64 {
		return strings.ToValidUTF8(s[:64], "") + "..."
	}
	return s
}

// deref follows an alias node (one level: an alias never names an alias).
func deref(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// text is key's value as a string: any scalar (a number or a date too, as
// written), "" when absent or null. A list or a mapping is an error.
func (f frontMatter) text(key string) (string, error) {
	n := deref(f.keys[key])
	switch {
	case n == nil:
		return "", nil
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return "", nil
	case n.Kind == yaml.ScalarNode:
		return n.Value, nil
	}
	return "", &lineError{line: f.fileLine(n.Line), msg: fmt.Sprintf("%s: not a string", key)}
}

// list is key's value as a list of strings: a YAML list of scalars, or one
// string of comma-separated items ("Read, Grep"); nil when absent or null.
func (f frontMatter) list(key string) ([]string, error) {
	n := deref(f.keys[key])
	if n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	var out []string
	switch n.Kind {
	case yaml.ScalarNode:
		for _, s := range strings.Split(n.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	case yaml.SequenceNode:
		out = []string{}
		for _, item := range n.Content {
			item = deref(item)
			if item.Kind != yaml.ScalarNode {
				return nil, &lineError{line: f.fileLine(item.Line), msg: fmt.Sprintf("%s: an item is not a string", key)}
			}
			out = append(out, item.Value)
		}
		return out, nil
	}
	return nil, &lineError{line: f.fileLine(n.Line), msg: fmt.Sprintf("%s: not a list", key)}
}
