package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/magi-code/magi-code/runner/approval"
	"github.com/magi-code/magi-code/runner/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeTool is a tool whose Run is a function.
type fakeTool struct {
	name     string
	schema   string
	mutating bool
	run      func(ctx context.Context, args json.RawMessage) tools.Result

	mu    sync.Mutex
	calls int
}

func (f *fakeTool) Name() string        { return f.name }
func (f *fakeTool) Description() string { return "fake " + f.name }
func (f *fakeTool) Schema() json.RawMessage {
	if f.schema == "" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return json.RawMessage(f.schema)
}
func (f *fakeTool) Mutating() bool                       { return f.mutating }
func (f *fakeTool) Describe(args json.RawMessage) string { return f.name + " " + string(args) }
func (f *fakeTool) Run(ctx context.Context, args json.RawMessage) tools.Result {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if f.run != nil {
		return f.run(ctx, args)
	}
	return tools.Result{Text: "ok " + string(args), Summary: f.name + ": ok"}
}

func (f *fakeTool) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// recorder is an Activity that records every report and can refuse
// starts past a bound.
type recorder struct {
	mu      sync.Mutex
	limit   int // 0: no bound
	started []string
	ended   []string // "id name summary failed"
}

var errRefused = errors.New("activity bound")

func (r *recorder) Start(name, summary string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.limit > 0 && len(r.started) >= r.limit {
		return "", errRefused
	}
	r.started = append(r.started, name+" "+summary)
	return "act-" + strconv.Itoa(len(r.started)), nil
}

func (r *recorder) Finish(id, name, summary string, failed bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = append(r.ended, id+" "+name+" "+summary+" "+strconv.FormatBool(failed))
	return nil
}

// approver answers with a fixed decision and records what it was asked.
type approver struct {
	allow bool
	err   error
	wait  func(ctx context.Context) // runs before answering, if set

	mu    sync.Mutex
	asked []string
}

func (a *approver) Approve(ctx context.Context, name, summary string) (approval.Decision, error) {
	a.mu.Lock()
	a.asked = append(a.asked, name+"|"+summary)
	a.mu.Unlock()
	if a.wait != nil {
		a.wait(ctx)
	}
	if a.allow {
		return approval.Allowed, a.err
	}
	return approval.Denied, a.err
}

// run runs code with t.
func run(t testing.TB, tl *Tool, code string) tools.Result {
	t.Helper()
	return runCtx(context.Background(), t, tl, code)
}

func runCtx(ctx context.Context, t testing.TB, tl *Tool, code string) tools.Result {
	t.Helper()
	args, err := json.Marshal(map[string]string{"code": code})
	if err != nil {
		t.Fatal(err)
	}
	return tl.Run(ctx, args)
}
