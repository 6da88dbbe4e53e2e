// Package fixtureprov is the offline fixture provider (docs/configuration.md, The fixture provider): a real
// provider.Provider that replays a parsed fixture.Script, deterministically.
//
// Each Stream call consumes the next scripted response, whatever happens to
// it (cancellation included). Steps: text (with repeat N: N deltas of the
// same string, no allocation per delta), reasoning_summary, tool_call (IDs
// "call_1", "call_2", ... per provider instance), sleep_ms (cancellable),
// error CODE (the stream fails with a safe code), usage (a UsageKind
// event with the given token counts) and stop "max_tokens" (Done says the
// output token limit ended the response). When the script is
// exhausted, or there is none, the reply is one delta "echo: " followed by
// the last user prompt of the request.
package fixtureprov

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/fixture"
	"github.com/magi-code/magi-code/runner/provider"
)

// EchoPrefix starts the reply of an exhausted or absent script.
const EchoPrefix = "echo: "

// ctxCheckEvery bounds how many repeated deltas pass between two checks of
// ctx: often enough to stop a flood promptly, rarely enough to stay cheap.
const ctxCheckEvery = 256

// Provider replays a fixture script. It is safe for concurrent use, though
// the runner calls it one run at a time.
type Provider struct {
	// mu guards the fields below.
	mu       sync.Mutex
	script   *fixture.Script
	next     int // index of the next response to replay
	lastCall int // last tool-call number handed out
}

// New returns a provider replaying script; a nil script always echoes.
func New(script *fixture.Script) *Provider {
	return &Provider{script: script}
}

// take consumes the next response; ok is false once the script is exhausted.
// It also reserves tool-call numbers for every tool_call step of the response.
func (p *Provider) take() (resp fixture.Response, firstCall int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.script == nil || p.next >= len(p.script.Responses) {
		return fixture.Response{}, 0, false
	}
	resp = p.script.Responses[p.next]
	p.next++
	firstCall = p.lastCall + 1
	for _, st := range resp.Steps {
		if st.ToolCall != nil {
			p.lastCall++
		}
	}
	return resp, firstCall, true
}

// Stream replays the next response. See provider.Provider.
//
// docs/protocol.md, Choices: "Every provider call of the runner consumes the next fixture
// response": a call consumes its response even when ctx has already ended
// (then it streams nothing), so a script's positions never depend on how a
// cancellation raced with the call.
func (p *Provider) Stream(ctx context.Context, req provider.Request, emit func(provider.StreamEvent) error) error {
	resp, callN, ok := p.take()
	if err := ctx.Err(); err != nil {
		return err
	}
	if !ok {
		if err := emit(provider.StreamEvent{Kind: provider.TextDelta, Text: EchoPrefix + lastUserPrompt(req.Messages)}); err != nil {
			return err
		}
		return emit(provider.StreamEvent{Kind: provider.Done})
	}
	maxTokens := false
	for i := range resp.Steps {
		st := &resp.Steps[i]
		var err error
		switch {
		case st.Stop != nil:
			maxTokens = *st.Stop == fixture.StopMaxTokens
		case st.Text != nil:
			err = streamText(ctx, *st.Text, max(st.Repeat, 1), emit)
		case st.ReasoningSummary != nil:
			err = emit(provider.StreamEvent{Kind: provider.ReasoningSummary, Text: *st.ReasoningSummary})
		case st.ToolCall != nil:
			call := provider.ToolCall{
				ID:        "call_" + strconv.Itoa(callN),
				Name:      st.ToolCall.Name,
				Arguments: st.ToolCall.Arguments,
			}
			callN++
			err = emit(provider.StreamEvent{Kind: provider.ToolCallKind, Call: call})
		case st.SleepMs != nil:
			err = sleep(ctx, time.Duration(*st.SleepMs)*time.Millisecond)
		case st.Error != nil:
			err = scriptError(*st.Error)
		case st.Usage != nil:
			u := st.Usage
			err = emit(provider.StreamEvent{Kind: provider.UsageKind, Usage: provider.Usage{
				InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
				CachedInputTokens: u.CachedInputTokens, ReasoningTokens: u.ReasoningTokens,
			}})
		}
		if err != nil {
			return err
		}
	}
	return emit(provider.StreamEvent{Kind: provider.Done, MaxTokens: maxTokens})
}

// streamText emits text n times. The event is built once: the loop does not
// allocate.
func streamText(ctx context.Context, text string, n int, emit func(provider.StreamEvent) error) error {
	ev := provider.StreamEvent{Kind: provider.TextDelta, Text: text}
	for i := 0; i < n; i++ {
		if i%ctxCheckEvery == ctxCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := emit(ev); err != nil {
			return err
		}
	}
	return nil
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// scriptError is the failure of a script's {"error": CODE} step. A
// provider.Reason name fails as a real provider does for that reason
// (unauthorized with provider_unavailable, any other with execution_failed);
// otherwise CODE is the code (scriptCode), without a reason.
func scriptError(code string) *provider.Error {
	if r, ok := provider.ReasonNamed(code); ok {
		if r == provider.ReasonUnauthorized {
			return &provider.Error{Code: protocol.CodeProviderUnavailable, Reason: r}
		}
		return &provider.Error{Code: protocol.CodeExecutionFailed, Reason: r}
	}
	return &provider.Error{Code: scriptCode(code)}
}

// scriptCode maps a script's error CODE to a safe code: the turn failure
// codes pass through, anything else (script text is not trusted on the wire)
// becomes execution_failed.
func scriptCode(code string) protocol.Code {
	switch c := protocol.Code(code); c {
	case protocol.CodeExecutionFailed, protocol.CodeContentLimit, protocol.CodeOutputUnavailable,
		protocol.CodePersistenceFailed, protocol.CodeProviderUnavailable:
		return c
	}
	return protocol.CodeExecutionFailed
}

// lastUserPrompt returns the text of the last user message, or "".
func lastUserPrompt(msgs []provider.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == provider.RoleUser {
			return msgs[i].Text
		}
	}
	return ""
}
