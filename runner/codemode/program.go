package codemode

import (
	"context"
	_ "embed"
	"errors"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/dop251/goja"
	"github.com/sourcegraph/conc"

	"github.com/magi-code/magi-code/runner/tools"
)

// Causes of an interrupted program. Their text reaches the model.
var (
	errTimeLimit = errors.New("time limit reached")
	errHeapLimit = errors.New("memory limit reached")
)

//go:embed guard.js
var guardSource string

// guardProgram is compiled once and run in every program's runtime
// (compiled goja programs are runtime-independent).
var guardProgram = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile("guard.js", guardSource, true)
})

// removedGlobals are built-ins a program does not need: constructors that
// allocate large native buffers in one call, and goja's GoError (the
// constructor of errors wrapping Go errors; nothing here makes one, and its
// name says what runs the program).
var removedGlobals = []string{
	"GoError",
	"ArrayBuffer", "SharedArrayBuffer", "DataView",
	"Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
	"Int32Array", "Uint32Array", "Float32Array", "Float64Array",
	"BigInt64Array", "BigUint64Array",
}

// program is one Run: its runtime, its bounds and what it has printed. All
// fields are used only on the goroutine running Run, except vm.Interrupt
// (safe for concurrent use) and cancel.
type program struct {
	t      *Tool
	o      Options
	parent context.Context
	ctx    context.Context // parent + time limit + heap limit
	cancel context.CancelCauseFunc
	clock  deadline

	vm        *goja.Runtime
	errorCtor goja.Value // the original Error, before the program can change it

	out   output
	calls int
}

func newProgram(parent context.Context, t *Tool) *program {
	ctx, cancel := context.WithCancelCause(parent)
	return &program{t: t, o: t.opts, parent: parent, ctx: ctx, cancel: cancel,
		out: output{limit: t.opts.MaxOutputBytes}}
}

// run compiles and runs code, and returns the bounded result.
func (p *program) run(code string) tools.Result {
	defer p.cancel(nil)
	p.vm = goja.New()
	p.vm.SetMaxCallStackSize(p.o.MaxCallStackSize)

	// The time limit and the heap watchdog cancel p.ctx; ending p.ctx, for
	// whatever reason, interrupts the VM (and any pending tool call, which
	// runs under p.ctx).
	// The timer holds the program weakly: a stopped timer can stay in the
	// runtime's timer heap for a while, and it must not keep the VM (and
	// whatever a runaway allocated) alive after run returns.
	wp := weak.Make(p)
	p.clock.start(p.o.Timeout, func() {
		if p := wp.Value(); p != nil {
			p.stop(errTimeLimit)
		}
	})
	defer p.clock.stop()
	interrupted := make(chan struct{})
	stopInterrupt := context.AfterFunc(p.ctx, func() {
		p.vm.Interrupt(context.Cause(p.ctx))
		close(interrupted)
	})
	defer func() {
		if !stopInterrupt() { // it ran or runs: wait for it
			<-interrupted
		}
	}()
	done := make(chan struct{})
	var wg conc.WaitGroup
	wg.Go(func() { watchHeap(done, p.o.MaxHeapBytes, func() { p.stop(errHeapLimit) }) })
	defer wg.Wait()
	defer close(done) // runs before wg.Wait: the watchdog ends first

	if err := p.setup(); err != nil {
		return fail("sandbox setup failed", "setup failed")
	}
	// The code is the body of an async function: `return` works, and
	// line numbers in errors match the model's code.
	prog, err := goja.Compile("code.js", "(async function () {"+code+"\n})", false)
	if err != nil {
		return p.fail("syntax error: "+clipString(err.Error(), 1024), "syntax error")
	}
	fnValue, err := p.vm.RunProgram(prog)
	if err != nil {
		return p.vmError(err)
	}
	fn, ok := goja.AssertFunction(fnValue)
	if !ok {
		return p.fail("the code must be the body of a function", "invalid code")
	}
	// Promise jobs (await) run before fn returns: no async source exists.
	promiseValue, err := fn(goja.Undefined())
	if err != nil {
		return p.vmError(err)
	}
	// A limit that ended a pending tool call may not have interrupted the
	// VM: stop cancels p.ctx before it interrupts, the call's error can
	// settle the program first, and the interrupt then finds nothing left
	// to run. The program was still stopped by the limit, not by the
	// call's "cancelled".
	if res, ok := p.limitReached(); ok {
		return res
	}
	// Reading the result may run program code (getters, toJSON, toString):
	// do it inside the VM, where interrupts and exceptions are handled.
	var res tools.Result
	finish := func(goja.FunctionCall) goja.Value {
		res = p.settle(promiseValue)
		return goja.Undefined()
	}
	finishFn, _ := goja.AssertFunction(p.native("result", finish))
	if _, err := finishFn(goja.Undefined()); err != nil {
		return p.vmError(err)
	}
	if p.parent.Err() != nil {
		return p.fail("cancelled", "cancelled")
	}
	return res
}

// stop ends the program with cause: it cancels p.ctx (and so a pending
// tool call) and interrupts the VM directly, without waiting for the
// AfterFunc goroutine. Safe for concurrent use.
func (p *program) stop(cause error) {
	p.cancel(cause)
	p.vm.Interrupt(cause)
}

// setup installs tools, console and the guards, and removes the globals a
// program must not have.
func (p *program) setup() error {
	vm := p.vm
	global := vm.GlobalObject()
	for _, name := range removedGlobals {
		if err := global.Delete(name); err != nil {
			return err
		}
	}
	p.errorCtor = global.Get("Error")
	toolsObj := vm.NewObject()
	for _, tl := range p.o.Tools {
		if tl == nil || p.t.names[tl.Name()] != tl {
			continue
		}
		if err := toolsObj.Set(tl.Name(), p.native(tl.Name(), p.callFunc(tl))); err != nil {
			return err
		}
	}
	console := vm.NewObject()
	if err := console.Set("log", p.native("log", p.consoleLog)); err != nil {
		return err
	}
	if err := vm.Set("tools", toolsObj); err != nil {
		return err
	}
	if err := vm.Set("console", console); err != nil {
		return err
	}
	guard, err := vm.RunProgram(guardProgram())
	if err != nil {
		return err
	}
	install, ok := goja.AssertFunction(guard)
	if !ok {
		return errors.New("guard is not a function")
	}
	_, err = install(goja.Undefined(), vm.ToValue(p.o.MaxInternalLen), toolsObj, console)
	return err
}

// native returns f as a JavaScript function called name. goja names a
// native function after its Go function (package path and receiver, such
// as "github.com/.../codemode.(*program).callFunc.func1"), and that name
// shows in f.name, String(f) and every stack frame taken while f runs (a
// getter or Proxy trap that a tool call's argument encoding triggers).
// Renaming it keeps Go internals out of what the program can observe.
func (p *program) native(name string, f func(goja.FunctionCall) goja.Value) *goja.Object {
	fn := p.vm.ToValue(f).(*goja.Object)
	// ECMAScript: a function's name property is non-writable, non-enumerable,
	// configurable.
	if err := fn.DefineDataProperty("name", p.vm.ToValue(name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
		panic("codemode: renaming a native function: " + err.Error()) // a fresh function's name is configurable
	}
	return fn
}

// settle turns the program's promise into the result. It runs inside the VM.
func (p *program) settle(v goja.Value) tools.Result {
	promise, ok := v.Export().(*goja.Promise)
	if !ok {
		return p.fail("the program did not run as a function", "invalid code")
	}
	switch promise.State() {
	case goja.PromiseStateFulfilled:
		if r := promise.Result(); r != nil && !goja.IsUndefined(r) {
			p.out.newLine()
			p.out.value(r)
		}
		return tools.Result{Text: p.out.text(), Summary: Name + ": " + plural(p.calls, "tool call")}
	case goja.PromiseStateRejected:
		return p.fail("uncaught exception: "+p.describeError(promise.Result()), "uncaught exception")
	}
	return p.fail("the program awaited something that never settles", "never settled")
}

// vmError turns an error returned by the VM into the result.
func (p *program) vmError(err error) tools.Result {
	var interrupted *goja.InterruptedError
	var overflow *goja.StackOverflowError
	var exception *goja.Exception
	switch {
	case p.parent.Err() != nil:
		return p.fail("cancelled", "cancelled")
	case errors.As(err, &interrupted):
		if res, ok := p.limitReached(); ok {
			return res
		}
		return p.fail("interrupted", "interrupted")
	case errors.As(err, &overflow):
		return p.fail("call stack too deep (limit "+strconv.Itoa(p.o.MaxCallStackSize)+")", "stack overflow")
	case errors.As(err, &exception):
		// Formatting the value may run program code: do it in the VM.
		var text string
		describe, _ := goja.AssertFunction(p.native("describe", func(goja.FunctionCall) goja.Value {
			text = p.describeError(exception.Value())
			return goja.Undefined()
		}))
		if _, derr := describe(goja.Undefined()); derr != nil || text == "" {
			text = "exception"
		}
		return p.fail("uncaught exception: "+text, "uncaught exception")
	}
	return p.fail("program failed", "failed")
}

// limitReached returns the result of a program that the time or memory
// limit stopped, if one did.
func (p *program) limitReached() (tools.Result, bool) {
	switch cause := context.Cause(p.ctx); {
	case errors.Is(cause, errTimeLimit):
		return p.fail("time limit reached ("+p.o.Timeout.String()+")", "time limit"), true
	case errors.Is(cause, errHeapLimit):
		return p.fail("memory limit reached ("+strconv.FormatInt(p.o.MaxHeapBytes>>20, 10)+" MiB)", "memory limit"), true
	}
	return tools.Result{}, false
}

// describeError returns the stack (or text) of a thrown value, bounded.
// It runs inside the VM and may throw.
func (p *program) describeError(v goja.Value) string {
	if v == nil {
		return "undefined"
	}
	if o, ok := v.(*goja.Object); ok {
		if stack := o.Get("stack"); stack != nil && !goja.IsUndefined(stack) {
			if s, ok := stack.Export().(string); ok && s != "" {
				return clipString(dropNativeFrames(s), 2048)
			}
		}
	}
	if s, ok := v.(goja.String); ok && s.Length() > 2048 {
		return clipString(s.Substring(0, 2048).String(), 2048)
	}
	return clipString(v.String(), 2048)
}

// dropNativeFrames removes stack lines of Go functions (tools.NAME and
// console.log): they name our Go code and tell the model nothing.
func dropNativeFrames(stack string) string {
	if len(stack) > 1<<16 {
		stack = stack[:1<<16]
	}
	lines := strings.Split(stack, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasSuffix(strings.TrimSpace(l), "(native)") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// fail is an error result: what was printed, then the error line.
func (p *program) fail(text, what string) tools.Result {
	p.out.line(Name + ": " + text)
	return tools.Result{Text: p.out.text(), IsError: true, Summary: Name + ": " + what}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// deadline is the program's wall-clock limit. It can pause while the user
// is asked for approval: the limit bounds the program, not the user.
type deadline struct {
	timer *time.Timer
	left  time.Duration
	since time.Time
	fired bool // the timer fired (or was found fired at a pause)
}

func (d *deadline) start(limit time.Duration, expire func()) {
	d.left, d.since = limit, time.Now()
	d.timer = time.AfterFunc(limit, expire)
}

func (d *deadline) pause() {
	if !d.timer.Stop() {
		d.fired = true
		return
	}
	d.left -= time.Since(d.since)
}

func (d *deadline) resume() {
	if d.fired {
		return
	}
	d.since = time.Now()
	d.timer.Reset(max(d.left, 0))
}

func (d *deadline) stop() { d.timer.Stop() }

// heapMetric is the bytes of heap objects, live or not yet swept; reading
// it does not stop the world.
const heapMetric = "/memory/classes/heap/objects:bytes"

// watchHeap samples the heap every watchdogInterval until done closes, and
// calls trip once (then returns) when it grew by more than budget bytes
// (heapGuard). The heap is the process's: allocation by other goroutines
// counts too, so the budget is a guard rail, not an account.
func watchHeap(done <-chan struct{}, budget int64, trip func()) {
	sample := []metrics.Sample{{Name: heapMetric}}
	read := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	g := heapGuard{low: read(), budget: budget}
	tick := time.NewTicker(watchdogInterval)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			if g.over(read()) {
				trip()
				return
			}
		}
	}
}

// heapGuard decides when a program's heap growth passed its budget. Growth
// is measured from the lowest sample since the program started, not from
// the first: the metric counts dead objects not yet swept, so a program
// that starts while a previous program's garbage (gigabytes, after a
// runaway) is still counted would otherwise be allowed that much again
// once the collector frees it.
type heapGuard struct{ low, budget int64 }

func (g *heapGuard) over(heap int64) bool {
	g.low = min(g.low, heap)
	return heap-g.low > g.budget
}
