package codemode

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/tools"
)

func TestDeclarationTypes(t *testing.T) {
	cases := []struct {
		name, schema, want string
	}{
		{"required string", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
			`x(args: { path: string }): string;`},
		{"optional args", `{"type":"object","properties":{"n":{"type":"integer"},"f":{"type":"number"}}}`,
			`x(args?: { n?: number; f?: number }): string;`},
		{"schema order kept", `{"type":"object","properties":{"z":{"type":"boolean"},"a":{"type":"null"}},"required":["a","z"]}`,
			`x(args: { z: boolean; a: null }): string;`},
		{"enum", `{"type":"object","properties":{"mode":{"type":"string","enum":["a","b"]}},"required":["mode"]}`,
			`x(args: { mode: "a" | "b" }): string;`},
		{"const", `{"type":"object","properties":{"v":{"const":3}},"required":["v"]}`,
			`x(args: { v: 3 }): string;`},
		{"type list", `{"type":"object","properties":{"v":{"type":["string","null"]}},"required":["v"]}`,
			`x(args: { v: string | null }): string;`},
		{"anyOf in array", `{"type":"object","properties":{"v":{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"integer"}]}}},"required":["v"]}`,
			`x(args: { v: (string | number)[] }): string;`},
		{"nested anyOf", `{"type":"object","properties":{"v":{"anyOf":[{"anyOf":[{"type":"boolean"},{"type":"string"}]},{"type":"boolean"},{"oneOf":[{"type":"string"},{"type":"null"}]}]}},"required":["v"]}`,
			`x(args: { v: boolean | string | null }): string;`},
		{"enum repeated", `{"type":"object","properties":{"v":{"enum":["a","b","a"]}},"required":["v"]}`,
			`x(args: { v: "a" | "b" }): string;`},
		{"one member in array", `{"type":"object","properties":{"v":{"type":"array","items":{"anyOf":[{"type":"boolean"},{"anyOf":[{"type":"boolean"}]}]}}},"required":["v"]}`,
			`x(args: { v: boolean[] }): string;`},
		{"object with a union in array", `{"type":"object","properties":{"v":{"type":"array","items":{"type":"object","properties":{"a":{"type":["string","null"]}},"additionalProperties":false}}},"required":["v"]}`,
			`x(args: { v: { a?: string | null }[] }): string;`},
		{"array without items", `{"type":"object","properties":{"v":{"type":"array"}},"required":["v"]}`,
			`x(args: { v: unknown[] }): string;`},
		{"nested object", `{"type":"object","properties":{"o":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}},"required":["o"]}`,
			`x(args: { o: { k: string } }): string;`},
		{"map", `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}},"required":["env"]}`,
			`x(args: { env: { [key: string]: string } }): string;`},
		{"free object", `{"type":"object","properties":{"o":{"type":"object"}},"required":["o"]}`,
			`x(args: { o: { [key: string]: unknown } }): string;`},
		{"closed empty object", `{"type":"object","properties":{},"additionalProperties":false}`,
			`x(args?: {}): string;`},
		{"no type", `{"type":"object","properties":{"v":{}},"required":["v"]}`,
			`x(args: { v: unknown }): string;`},
		{"odd property name", `{"type":"object","properties":{"my-key":{"type":"string"}},"required":["my-key"]}`,
			`x(args: { "my-key": string }): string;`},
		{"invalid schema", `not json`,
			`x(args?: { [key: string]: unknown }): string;`},
		{"too deep", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"array","items":{"type":"array","items":{"type":"array","items":{"type":"array","items":{"type":"array","items":{"type":"array","items":{"type":"string"}}}}}}}}},"required":["a"]}`,
			`x(args: { a: unknown[][][][][][] }): string;`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Declarations([]tools.Tool{&fakeTool{name: "x", schema: c.schema}})
			if !strings.Contains(got, "  "+c.want+"\n") {
				t.Errorf("Declarations(%s) =\n%s\nwant a line %q", c.schema, got, c.want)
			}
		})
	}
}

func TestDeclarationsShape(t *testing.T) {
	mcp := &fakeTool{name: "mcp__srv__search", schema: `{"type":"object","properties":{"q":{"type":"string","description":"query */ text\nsecond line"}},"required":["q"]}`}
	odd := &fakeTool{name: "my.tool"}
	got := Declarations([]tools.Tool{mcp, odd, New(Options{})})
	want := "declare const tools: {\n" +
		"  /**\n" +
		"   * fake mcp__srv__search\n" +
		"   * @param args.q query * / text\n" +
		"   */\n" +
		"  mcp__srv__search(args: { q: string }): string;\n" +
		"  /** fake my.tool */\n" +
		"  \"my.tool\"(args?: { [key: string]: unknown }): string;\n" +
		"};\n" +
		"declare const console: { log(...values: unknown[]): void };\n"
	if got != want {
		t.Errorf("Declarations =\n%s\nwant\n%s", got, want)
	}
	// The quoted name is callable as declared.
	tl := New(Options{Tools: []tools.Tool{mcp, odd}})
	if res := run(t, tl, `return tools["my.tool"]({}) + " " + tools.mcp__srv__search({q: "a"})`); res.Text != `ok {} ok {"q":"a"}` {
		t.Errorf("calls: %+v", res)
	}
	if d := tl.Description(); !strings.HasPrefix(d, intro) || !strings.Contains(d, "```ts\n"+Declarations([]tools.Tool{mcp, odd})+"```") {
		t.Errorf("description does not carry the declarations:\n%s", d)
	}
}
