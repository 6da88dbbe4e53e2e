// Package codemode is Code Mode: the run_code tool, which runs a short
// JavaScript program (github.com/dop251/goja, a pure-Go ECMAScript engine)
// against a typed API of the tools it was given, so that a loop over many
// tool calls costs one model round trip and only the program's result goes
// back into the context.
//
// # The sandbox
//
// Every Run gets a fresh goja.Runtime. The program sees the ECMAScript
// built-ins (minus ArrayBuffer, SharedArrayBuffer, DataView and the typed
// arrays), a frozen `tools` object with one synchronous method per tool in
// Options.Tools, and `console.log`. There is no require, no filesystem,
// network, process or environment access except through those tools. The
// code is the body of an async function: `return` gives the result, and
// `await` works (tools are synchronous, so it changes nothing).
//
// tools.NAME(args) takes one object of arguments (encoded to JSON, checked
// against MaxStringBytes, MaxArrayLen and a depth of 32) and returns the
// tool's result text as a string. A failed call, a denied or expired
// approval, a refused activity, the tool-call bound and cancellation throw
// an Error with name "ToolError", a `tool` property and a `code` property:
// "failed" (message = the tool's error text), "denied", "approval_failed",
// "limit", "cancelled" or "invalid_arguments". The program may catch
// them; an uncaught exception becomes the run_code error result (with what
// was printed before it).
//
// What comes back to the model is the console.log output (one line per
// call, values separated by spaces, non-strings as JSON) followed by the
// returned value (a string as is, anything else as JSON; nothing for
// undefined), bounded by MaxOutputBytes and cut with tools.TruncatedMarker.
//
// # Limits
//
//   - Wall clock: Timeout per program (default 30 s), not counting the time
//     spent waiting for the user to answer an approval (a 60 s approval must
//     not kill a 30 s program). On expiry the VM is interrupted
//     (Runtime.Interrupt) and a pending tool call's ctx is cancelled.
//   - ctx (turn.cancel): the same interruption; Run returns promptly with an
//     error result "cancelled" and the caller sees ctx.Err().
//   - MaxToolCalls tool calls per program.
//   - Memory: strings and arrays are checked where they cross the API
//     (tool arguments, tool results, console.log, the returned value); a
//     watchdog samples the live heap (runtime/metrics) every few
//     milliseconds and interrupts the program once it grew by more than
//     MaxHeapBytes above the lowest sample since the program started (so
//     a previous program's garbage, not yet swept, is not counted as
//     room), after which Run collects the program's heap and returns it
//     to the operating system before it returns; the call stack is bounded (MaxCallStackSize); and the
//     built-ins that amplify memory inside one native call (repeat,
//     padStart, padEnd, join, fill, Array.from) refuse results over
//     MaxInternalLen elements. This is a guard rail, not an OS sandbox (the
//     docs/protocol.md, Launch: "Backend tools are not an OS sandbox"): Go cannot stop one
//     native allocation half way, so the watchdog acts between JavaScript
//     instructions.
//
// An infinite loop or a runaway allocation ends that program with an error
// result the model sees; the process goes on.
//
// # Permissions and activity
//
// Code Mode's permissions are its own: only Options.Tools are callable
// (whatever the direct tool policy allows), and a mutating call asks the
// Approver unless Options.Approval is "auto", with a summary that starts
// with "from code: ". Each call inside a program is one activity reported
// through Options.Activity, which may refuse it (the run's 4096 activity
// identities): the call then throws and never runs. The program itself is
// the run_code activity the agent loop already reports.
//
// Run starts two short-lived goroutines per program (the heap watchdog and
// a context.AfterFunc that interrupts the VM) and waits for both before it
// returns.
package codemode
