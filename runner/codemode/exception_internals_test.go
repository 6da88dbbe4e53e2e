package codemode

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/tools"
)

// Security review: exceptions a program can observe must not carry Go
// internals. goja names native frames after the Go function, so a stack
// taken inside a tool call (a Proxy trap, a getter) shows the Go package
// path and receiver type of the bridge, and the GoError constructor is a
// global. Low severity: the text reaches the model (and its provider), not
// the wire.
func TestExceptionsCarryGoInternals(t *testing.T) {
	tl := New(Options{Tools: []tools.Tool{&fakeTool{name: "echo"}}})
	for _, code := range []string{
		`try { tools.echo(new Proxy({}, {ownKeys() { throw new Error("x") }})) } catch (e) { return e.stack }`,
		`try { tools.echo({get a() { return new Error("y").stack }}) } catch (e) { return String(e) }`,
		`return typeof GoError`,
		// Native functions are named for the program, not after Go.
		`return String(tools.echo) + tools.echo.name + String(console.log) + console.log.name`,
		`console.log({get a() { return new Error("c").stack }})`,
		`try { tools.echo({get a() { throw new Error("z") }}) } catch (e) { return e.stack }`,
		`return Object.getOwnPropertyNames(globalThis).join()`,
	} {
		r := run(t, tl, code)
		if strings.Contains(r.Text, "github.com/") || strings.Contains(r.Text, "(*program)") || r.Text == "function" || strings.Contains(r.Text, "GoError") {
			t.Errorf("program %q sees Go internals: %q", code, r.Text)
		}
	}
}
