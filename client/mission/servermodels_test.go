package mission

import (
	"context"
	"strings"
	"testing"
)

// TestPickerServerModels: opening the /model picker asks ServerModels
// (never before); the server's models are listed first once they arrive,
// the current one selected; closing the picker cancels the request, and
// an answer for a closed picker changes nothing.
func TestPickerServerModels(t *testing.T) {
	asked := 0
	var ctxs []context.Context
	opts := Options{
		Models: func() []ModelChoice { return []ModelChoice{{Provider: "openai", ID: "gpt-x"}} },
		ServerModels: func(ctx context.Context) ([]ModelChoice, error) {
			asked++
			ctxs = append(ctxs, ctx)
			return []ModelChoice{{Provider: "ollama", ID: "llama3.2"}, {Provider: "ollama", ID: "fixture-model"}}, nil
		},
	}
	m, _, _ := started(t, opts)
	if asked != 0 {
		t.Fatal("the server was asked before the picker opened")
	}
	m.provider, m.model = "ollama", "fixture-model"
	cmd := m.modelPicker()
	if cmd == nil || m.picker == nil {
		t.Fatal("no request for the server's models")
	}
	if !strings.Contains(view(m), "asking the server") {
		t.Fatalf("the picker does not say it waits:\n%s", view(m))
	}
	m.Update(cmd())
	if asked != 1 || ctxs[0].Err() == nil {
		t.Fatalf("asked %d times; the request's context is not ended after the answer", asked)
	}
	var got []string
	for _, it := range m.picker.items {
		got = append(got, strings.Join(it.value, " "))
	}
	if strings.Join(got, ",") != "ollama llama3.2,ollama fixture-model,openai gpt-x" || m.picker.sel != 1 {
		t.Fatalf("items %q, selected %d", got, m.picker.sel)
	}
	if strings.Contains(view(m), "asking the server") {
		t.Fatalf("still waiting:\n%s", view(m))
	}

	// Closed before the answer: the request is cancelled, the answer dropped.
	cmd = m.modelPicker()
	p := m.picker
	key(m, "esc")
	if m.picker != nil || ctxs[0] == nil || p.cancel == nil {
		t.Fatal("the picker did not close")
	}
	msg := cmd()
	if ctxs[1].Err() == nil {
		t.Fatal("closing the picker did not cancel the request")
	}
	m.Update(msg)
	if m.picker != nil {
		t.Fatal("a late answer reopened the picker")
	}

	// A failure is said in the title; the catalog's models stay.
	m.opts.ServerModels = func(context.Context) ([]ModelChoice, error) { return nil, context.DeadlineExceeded }
	cmd = m.modelPicker()
	m.Update(cmd())
	if len(m.picker.items) != 1 || !strings.Contains(m.picker.title, "did not list its models") {
		t.Fatalf("after a failure: %d items\n%s", len(m.picker.items), view(m))
	}
}
