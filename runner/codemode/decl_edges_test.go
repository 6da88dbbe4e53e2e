package codemode

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/tools"
)

// declOf is the declaration line of a tool x whose schema has the one
// required property v of schema prop.
func declOf(t *testing.T, prop string) string {
	t.Helper()
	schema := `{"type":"object","properties":{"v":` + prop + `},"required":["v"]}`
	return Declarations([]tools.Tool{&fakeTool{name: "x", schema: schema}})
}

// The bounds of a declaration, each exactly at and one past its limit: an
// enum of maxEnum members is a union of literals, one more is its base
// type; maxProps properties are listed, the next is left to an index
// signature; unions and maps nested past maxSchemaDepth are unknown.
func TestDeclarationBounds(t *testing.T) {
	enum := func(n int) string {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = fmt.Sprintf("%q", fmt.Sprintf("e%d", i))
		}
		return `{"type":"string","enum":[` + strings.Join(vals, ",") + `]}`
	}
	if got := declOf(t, enum(maxEnum)); !strings.Contains(got, `"e0" | "e1"`) || !strings.Contains(got, fmt.Sprintf(`"e%d"`, maxEnum-1)) {
		t.Errorf("an enum of %d: %s; want a union of its literals", maxEnum, got)
	}
	if got := declOf(t, enum(maxEnum+1)); !strings.Contains(got, "v: string }") {
		t.Errorf("an enum of %d: %s; want string", maxEnum+1, got)
	}

	props := make([]string, maxProps+1)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%02d":{"type":"string"}`, i)
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	got := Declarations([]tools.Tool{&fakeTool{name: "x", schema: schema}})
	if !strings.Contains(got, fmt.Sprintf("p%02d?: string", maxProps-1)) || strings.Contains(got, fmt.Sprintf("p%02d?", maxProps)) {
		t.Errorf("%d properties: %s; want the first %d listed and the last not", maxProps+1, got, maxProps)
	}

	nest := func(wrap func(string) string) string {
		s := `{"type":"string"}`
		for range maxSchemaDepth + 2 {
			s = wrap(s)
		}
		return s
	}
	anyOf := nest(func(s string) string { return `{"anyOf":[` + s + `,{"type":"boolean"}]}` })
	if got := declOf(t, anyOf); !strings.Contains(got, "v: unknown |") {
		t.Errorf("unions nested %d deep: %s; want unknown at the bottom", maxSchemaDepth+2, got)
	}
	maps := nest(func(s string) string { return `{"type":"object","additionalProperties":` + s + `}` })
	if got := declOf(t, maps); !strings.Contains(got, "]: unknown }") || strings.Contains(got, "]: string") {
		t.Errorf("maps nested %d deep: %s; want unknown at the bottom", maxSchemaDepth+2, got)
	}
	if !json.Valid([]byte(anyOf)) || !json.Valid([]byte(maps)) {
		t.Fatal("setup: invalid schema")
	}
}

// A doc line of exactly maxDocBytes stays whole; a longer one is cut and
// ends in "...".
func TestDocLineBound(t *testing.T) {
	exact := strings.Repeat("d", maxDocBytes)
	if got := docLine(exact); got != exact {
		t.Errorf("docLine(%d bytes) = %q; want it whole", maxDocBytes, got)
	}
	if got := docLine(exact + "e"); len(got) != maxDocBytes || !strings.HasSuffix(got, "...") {
		t.Errorf("docLine(%d bytes) = %q; want %d bytes ending in ...", maxDocBytes+1, got, maxDocBytes)
	}
}
