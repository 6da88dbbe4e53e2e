package codemode

import (
	"encoding/json"
	"strconv"

	"github.com/dop251/goja"

	"github.com/magi-code/magi-code/runner/approval"
	"github.com/magi-code/magi-code/runner/tools"
)

// ToolError codes, the `code` property of the Error a tool call throws.
const (
	CodeFailed           = "failed"            // the tool returned an error result
	CodeDenied           = "denied"            // approval denied, expired or refused
	CodeApprovalFailed   = "approval_failed"   // the approval request could not be made
	CodeLimit            = "limit"             // tool-call bound, or activity refused
	CodeCancelled        = "cancelled"         // the program is being stopped
	CodeInvalidArguments = "invalid_arguments" // arguments not encodable within bounds
)

// callFunc returns the native function tools.NAME for tl. It runs on the
// VM goroutine; it throws (panics with a JavaScript Error) on every
// failure, and the program may catch that.
func (p *program) callFunc(tl tools.Tool) func(goja.FunctionCall) goja.Value {
	name := tl.Name()
	return func(call goja.FunctionCall) goja.Value {
		if p.ctx.Err() != nil {
			panic(p.toolError(name, CodeCancelled, name+": cancelled"))
		}
		if p.calls >= p.o.MaxToolCalls {
			panic(p.toolError(name, CodeLimit, "tool-call limit reached ("+strconv.Itoa(p.o.MaxToolCalls)+" per program)"))
		}
		args, msg := p.encodeArgs(call.Argument(0))
		if msg != "" {
			panic(p.toolError(name, CodeInvalidArguments, name+": "+msg))
		}
		p.calls++

		id := ""
		if p.o.Activity != nil {
			var err error
			if id, err = p.o.Activity.Start(name, name+": started (from code)"); err != nil {
				panic(p.toolError(name, CodeLimit, name+": activity limit reached"))
			}
		}
		finish := func(summary string, failed bool) {
			if p.o.Activity == nil {
				return
			}
			if err := p.o.Activity.Finish(id, name, summary, failed); err != nil {
				panic(p.toolError(name, CodeLimit, name+": activity could not be reported"))
			}
		}

		// Protections: a call the tool itself flags (a destructive shell
		// command) asks even under approval = "auto", as in direct mode.
		forced, why := false, ""
		if f, ok := tl.(tools.ForceApprover); ok {
			forced, why = f.ForceApproval(args)
		}
		ctx := p.ctx
		if forced || (tl.Mutating() && p.o.Approval != ApprovalAuto) {
			d, err := p.approve(tl, args, why)
			switch {
			case p.ctx.Err() != nil:
				finish(name+": cancelled", true)
				panic(p.toolError(name, CodeCancelled, name+": cancelled"))
			case err != nil:
				finish(name+": approval failed", true)
				panic(p.toolError(name, CodeApprovalFailed, name+": approval failed"))
			case d != approval.Allowed:
				// Who decided, as for a direct call (approval.Outcome).
				_, summary := approval.Outcome(name, d, why)
				finish(summary, true)
				panic(p.toolError(name, CodeDenied, summary))
			}
			// Allowed: as for a direct call, a read outside the working
			// directory that asked may now run (tools.WithApproved).
			ctx = tools.WithApproved(ctx, name, args)
		}

		res := tl.Run(ctx, args)
		if p.ctx.Err() != nil {
			finish(name+": cancelled", true)
			panic(p.toolError(name, CodeCancelled, name+": cancelled"))
		}
		finish(res.Summary, res.IsError)
		text := clipString(res.Text, p.o.MaxStringBytes)
		if res.IsError {
			panic(p.toolError(name, CodeFailed, text))
		}
		return p.vm.ToValue(text)
	}
}

// approve asks the Approver (nil: refused, nobody can allow the call) with
// the wall clock paused.
func (p *program) approve(tl tools.Tool, args json.RawMessage, why string) (approval.Decision, error) {
	if p.o.Approver == nil {
		return approval.Refused, nil
	}
	p.clock.pause()
	defer p.clock.resume()
	// The summary says the call comes from code; Describe is bounded
	// (tools.DescribeBytes) and the caller redacts it before display.
	summary := "from code: " + tl.Describe(args)
	if why != "" {
		summary += " (" + why + ")"
	}
	return p.o.Approver.Approve(p.ctx, tl.Name(), summary)
}

// toolError builds the Error a failed call throws: name "ToolError",
// message, tool, code. It uses the Error constructor saved before the
// program ran, so a program cannot change what it gets.
func (p *program) toolError(tool, code, message string) *goja.Object {
	obj, err := p.vm.New(p.errorCtor, p.vm.ToValue(message))
	if err != nil {
		obj = p.vm.NewObject()
		_ = obj.Set("message", message)
	}
	_ = obj.Set("name", "ToolError")
	_ = obj.Set("tool", tool)
	_ = obj.Set("code", code)
	return obj
}

// encodeArgs encodes a call's argument object as JSON within the API
// bounds, or returns a short message saying which bound it broke.
// Undefined means {}.
func (p *program) encodeArgs(v goja.Value) (json.RawMessage, string) {
	if v == nil || goja.IsUndefined(v) {
		return json.RawMessage("{}"), ""
	}
	o, ok := v.(*goja.Object)
	if !ok || isArray(o) {
		return nil, "arguments must be an object"
	}
	e := encoder{strict: true, limit: p.o.MaxStringBytes, maxStr: p.o.MaxStringBytes, maxArr: p.o.MaxArrayLen}
	e.value(v, 0)
	if e.err != "" {
		return nil, e.err
	}
	return json.RawMessage(e.buf), ""
}

// consoleLog is console.log: one line, values separated by spaces, strings
// as they are and other values as JSON, within the output bound.
func (p *program) consoleLog(call goja.FunctionCall) goja.Value {
	if p.out.full() {
		return goja.Undefined()
	}
	p.out.newLine()
	for i, v := range call.Arguments {
		if i > 0 {
			p.out.appendRaw(" ")
		}
		p.out.value(v)
	}
	return goja.Undefined()
}
