// Package provider is the streaming model-provider abstraction of the agent
// runner: plain Go messages in, a sequence of stream events out. Concrete
// providers live in subpackages (fixtureprov: offline scripted replay;
// openai: any OpenAI-compatible chat-completions endpoint).
//
// Providers never see frames or protocol types; their failures carry only a
// safe protocol.Code (see Error), never response bodies or upstream messages.
package provider

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/magi-code/magi-code/protocol"
)

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one conversation message, as the runner persists and replays
// it. Assistant messages may carry ToolCalls; tool messages answer one call
// through ToolCallID (and name the tool in ToolName).
type Message struct {
	Role       string
	Text       string
	ToolCalls  []ToolCall
	ToolCallID string
	ToolName   string
}

// ToolCall is a model's request to run a tool. Arguments is a JSON object.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// ToolSpec describes a tool offered to the model. Schema is a JSON Schema
// object for the arguments.
type ToolSpec struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// Request is one provider call: system context (in its documented order),
// the conversation so far, and the tools on offer.
type Request struct {
	Model string
	// Thinking is the thinking level of this call, as in settings: off,
	// minimal, low, medium, high, or "" for the provider's default (nothing
	// sent). Each provider maps it to what its API takes.
	Thinking string
	System   []string
	Messages []Message
	Tools    []ToolSpec
}

// Kind tells what a StreamEvent carries.
type Kind uint8

// Stream event kinds.
const (
	TextDelta        Kind = iota + 1 // Text: an assistant text delta
	ReasoningSummary                 // Text, SummaryID (may be empty): a provider reasoning summary
	ToolCallKind                     // Call: a complete tool call
	Done                             // the response ended normally (MaxTokens: at its output token limit)
	UsageKind                        // Usage: the response's token counts, at most once, before Done
)

// Usage is what a provider reported a response cost, in tokens. A field the
// provider did not report is 0. InputTokens counts the whole prompt, cached
// part included (CachedInputTokens is the part read from the provider's
// cache); OutputTokens counts the reply, reasoning included
// (ReasoningTokens is that part).
type Usage struct {
	InputTokens       int64
	OutputTokens      int64
	CachedInputTokens int64
	ReasoningTokens   int64
}

// Add returns the sum of u and v, field by field.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + v.InputTokens,
		OutputTokens:      u.OutputTokens + v.OutputTokens,
		CachedInputTokens: u.CachedInputTokens + v.CachedInputTokens,
		ReasoningTokens:   u.ReasoningTokens + v.ReasoningTokens,
	}
}

// StreamEvent is one item of a streaming response. It is passed by value and
// holds no pointers the provider keeps writing to.
type StreamEvent struct {
	Kind      Kind
	Text      string
	Call      ToolCall
	SummaryID string
	Usage     Usage
	// MaxTokens, on Done, says the provider ended the response because it
	// reached its output token limit (OpenAI chat finish_reason "length",
	// Responses incomplete for max_output_tokens, Anthropic stop_reason
	// "max_tokens"): the text and calls that came are all there is.
	MaxTokens bool
}

// Provider streams one model response per call.
//
// Stream blocks until the response ends, calling emit in order from the
// calling goroutine. If emit returns an error, Stream stops and returns that
// error (unchanged). When ctx ends, Stream stops promptly and returns an
// error for which ctx.Err() is non-nil at the caller. Any other failure is
// an *Error with a safe code. Implementations are safe for use by one run at
// a time; the ones in this module also guard their state with a mutex.
type Provider interface {
	Stream(ctx context.Context, req Request, emit func(StreamEvent) error) error
}

// Error is a provider failure with a safe protocol code and, when it could
// be told, its Reason (what a person reads). Error() returns only the code;
// the cause (which may quote upstream bodies or paths) is kept for
// errors.Is/As and injected logs, never for the wire.
type Error struct {
	Code   protocol.Code
	Reason Reason
	Err    error
	// Status is the HTTP status of the failed answer, 0 when there was
	// none (or the failure came after it); Retry holds its retry headers.
	// Retrying reads both.
	Status int
	Retry  RetryHint
	// Stale says the call went out on a kept-alive connection that
	// answered nothing (ConnTrace): a fresh connection is tried at once.
	Stale bool
}

func (e *Error) Error() string { return "provider: " + string(e.Code) }

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// ErrorCode reports the safe code.
func (e *Error) ErrorCode() protocol.Code { return e.Code }

// Failed returns an *Error with code execution_failed and cause err.
func Failed(err error) *Error { return &Error{Code: protocol.CodeExecutionFailed, Err: err} }

// Broken returns an *Error with code execution_failed, reason
// ReasonBadResponse and cause err: an answer that did not parse or was cut.
func Broken(err error) *Error {
	return &Error{Code: protocol.CodeExecutionFailed, Reason: ReasonBadResponse, Err: err}
}

// HTTPFailure returns the *Error of a call that got an HTTP error answer
// (its status and headers h) or none (status 0, h nil):
// provider_unavailable for a rejected credential (401, 403),
// execution_failed otherwise, with the reason Classify tells and the
// answer's retry headers.
func HTTPFailure(status int, h http.Header, apiType, apiCode, message string, err error) *Error {
	code := protocol.CodeExecutionFailed
	if status == 401 || status == 403 {
		code = protocol.CodeProviderUnavailable
	}
	return &Error{Code: code, Reason: Classify(status, apiType, apiCode, message, err), Err: err, Status: status, Retry: HintOf(h)}
}

// EmitEnd emits the end of a response that finished normally, in the
// order the Provider contract gives: its complete tool calls, its usage
// when the provider reported one (reported), then Done, which says whether
// the output token limit ended the response (maxTokens).
func EmitEnd(emit func(StreamEvent) error, calls []ToolCall, usage Usage, reported, maxTokens bool) error {
	for _, call := range calls {
		if err := emit(StreamEvent{Kind: ToolCallKind, Call: call}); err != nil {
			return err
		}
	}
	if reported {
		if err := emit(StreamEvent{Kind: UsageKind, Usage: usage}); err != nil {
			return err
		}
	}
	return emit(StreamEvent{Kind: Done, MaxTokens: maxTokens})
}
