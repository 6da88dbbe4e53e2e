package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// decode parses one JSON value, numbers kept as json.Number.
func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// canonical is v encoded back to JSON, without HTML escaping.
func canonical(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// placeholder reports whether s is "$name" and returns name.
func placeholder(s string) (string, bool) {
	if len(s) < 2 || s[0] != '$' {
		return "", false
	}
	for _, c := range s[1:] {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "", false
		}
	}
	return s[1:], true
}

// bindings maps placeholder names to the canonical JSON of their values.
type bindings map[string]string

func (b bindings) clone() bindings {
	c := make(bindings, len(b))
	for k, v := range b {
		c[k] = v
	}
	return c
}

// match reports where got differs from want ("" when it matches), binding
// placeholders of want into b (only complete matches should keep b).
func match(want, got any, path string, b bindings) string {
	if s, ok := want.(string); ok {
		if name, ok := placeholder(s); ok {
			if name == "_" {
				return ""
			}
			c := canonical(got)
			if prev, bound := b[name]; bound && prev != c {
				return fmt.Sprintf("%s: %s, but $%s is %s", pathOr(path), c, name, prev)
			}
			b[name] = c
			return ""
		}
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %s, want an object", pathOr(path), short(got))
		}
		for _, k := range sortedKeys(w) {
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("%s: missing field %q", pathOr(path), k)
			}
			if d := match(w[k], gv, path+"."+k, b); d != "" {
				return d
			}
		}
		for _, k := range sortedKeys(g) {
			if _, ok := w[k]; !ok {
				return fmt.Sprintf("%s: unexpected field %q", pathOr(path), k)
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: %s, want %d elements", pathOr(path), short(got), len(w))
		}
		for i := range w {
			if d := match(w[i], g[i], fmt.Sprintf("%s[%d]", path, i), b); d != "" {
				return d
			}
		}
		return ""
	}
	if canonical(want) != canonical(got) {
		return fmt.Sprintf("%s: %s, want %s", pathOr(path), short(got), canonical(want))
	}
	return ""
}

func pathOr(p string) string {
	if p == "" {
		return "frame"
	}
	return p
}

func short(v any) string {
	s := canonical(v)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// substitute replaces each "$name" string in line by its bound value.
func substitute(line string, b bindings) (string, error) {
	var out strings.Builder
	for {
		i := strings.Index(line, `"$`)
		if i < 0 {
			out.WriteString(line)
			return out.String(), nil
		}
		j := strings.IndexByte(line[i+1:], '"')
		if j < 0 {
			out.WriteString(line)
			return out.String(), nil
		}
		lit := line[i+1 : i+1+j]
		name, ok := placeholder(lit)
		if !ok {
			out.WriteString(line[:i+2+j])
			line = line[i+2+j:]
			continue
		}
		v, bound := b[name]
		if !bound {
			return "", fmt.Errorf("$%s is not bound yet", name)
		}
		out.WriteString(line[:i])
		out.WriteString(v)
		line = line[i+2+j:]
	}
}
