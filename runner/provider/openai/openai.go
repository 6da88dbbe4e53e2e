// Package openai is a provider.Provider for OpenAI's API and any
// OpenAI-compatible endpoint (llama.cpp, Ollama, vLLM, ...), built on
// github.com/openai/openai-go/v3: streaming Chat Completions with tools, or
// OpenAI's Responses API (Config.WireAPI; responses.go) with tools and
// reasoning summaries. Both report usage (a UsageKind event before Done).
//
// Text deltas are emitted as they arrive; tool calls, whose arguments arrive
// split across chunks, are accumulated per index and emitted complete when
// the response ends. Every failure (HTTP 429 or 500, a cut stream, a
// timeout, a malformed chunk) becomes a *provider.Error with code
// execution_failed: no response body, header or upstream message reaches
// the caller's error text. The client is built without the SDK's
// environment defaults, so OPENAI_* variables of this process are never
// picked up implicitly.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/auth"
	"github.com/magi-code/magi-code/runner/provider"
)

// Bounds on what one response may accumulate.
const (
	MaxToolCalls     = protocol.RunActivityIDs // per response
	MaxToolArgsBytes = 4 << 20                 // all tool-call arguments of one response
	// DefaultHeaderTimeout bounds the wait for response headers when
	// Config.HTTPClient is nil.
	DefaultHeaderTimeout = provider.DefaultHeaderTimeout
)

// Config configures the provider.
type Config struct {
	// BaseURL of the API, such as "https://api.openai.com/v1" or
	// "http://127.0.0.1:8080/v1".
	BaseURL string
	// Credentials supplies the bearer token at each call: an API key, or an
	// OAuth access token that it refreshes when expired (auth.Refresher).
	// nil sends APIKey.
	Credentials auth.Source
	// APIKey is sent as a bearer token when Credentials is nil; empty sends
	// none (local servers often need none).
	APIKey string
	// MaxTokens bounds each response ([providers.openai] max_tokens); 0
	// sends no bound. It is sent as max_completion_tokens when a reasoning
	// effort is sent (reasoning models refuse max_tokens), else as
	// max_tokens, which every OpenAI-compatible server reads.
	MaxTokens int64
	// HTTPClient is used for requests; nil means a client whose transport
	// times out waiting for headers after DefaultHeaderTimeout.
	HTTPClient *http.Client
	// WireAPI is the API spoken: WireChat (Chat Completions) or
	// WireResponses (the Responses API); "" is DefaultWire(BaseURL).
	WireAPI string
	// Logf receives diagnostics, which may quote upstream errors; nil
	// discards them. It must not write to stdout or stderr in serve.
	Logf func(format string, args ...any)
}

// The wire APIs ([providers.NAME] wire_api).
const (
	WireChat      = "chat"
	WireResponses = "responses"
	// OpenAIBaseURL is OpenAI's own endpoint.
	OpenAIBaseURL = "https://api.openai.com/v1"
)

// DefaultWire is the wire API of an endpoint whose wire_api is not set:
// the Responses API at OpenAI's own endpoint (its coding models answer
// only there), Chat Completions at any other, which every
// OpenAI-compatible server speaks.
func DefaultWire(baseURL string) string {
	if strings.TrimRight(baseURL, "/") == OpenAIBaseURL {
		return WireResponses
	}
	return WireChat
}

// Provider streams chat completions. It is safe for concurrent use; calls
// are serialized.
type Provider struct {
	// mu serializes Stream calls.
	mu        sync.Mutex
	svc       sdk.ChatCompletionService
	resp      responses.ResponseService
	wire      string
	creds     auth.Source // nil: the service's APIKey
	maxTokens int64
	logf      func(format string, args ...any)
}

// New returns a provider for cfg.
func New(cfg Config) *Provider {
	hc := provider.HTTPClient(cfg.HTTPClient)
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	// NewChatCompletionService applies only the options given here: no
	// environment defaults (unlike sdk.NewClient).
	opts := []option.RequestOption{
		option.WithHTTPClient(hc),
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		// No SDK retries: provider.Retrying retries, observably.
		option.WithMaxRetries(0),
	}
	wire := cfg.WireAPI
	if wire == "" {
		wire = DefaultWire(cfg.BaseURL)
	}
	return &Provider{
		svc: sdk.NewChatCompletionService(opts...), resp: responses.NewResponseService(opts...), wire: wire,
		creds: cfg.Credentials, maxTokens: cfg.MaxTokens, logf: logf,
	}
}

// errCut reports a stream that ended without a finish reason.
var errCut = errors.New("openai: stream ended before a finish reason")

// errTooLarge reports tool calls beyond the per-response bounds.
var errTooLarge = errors.New("openai: tool calls over the per-response bound")

// Stream sends req and streams the response. See provider.Provider.
func (p *Provider) Stream(ctx context.Context, req provider.Request, emit func(provider.StreamEvent) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	var opts []option.RequestOption
	if p.creds != nil {
		_, token, err := auth.Token(ctx, p.creds)
		if err != nil {
			return err
		}
		// An API key and an OAuth access token are both bearer tokens here.
		opts = append(opts, option.WithAPIKey(token))
	}
	if p.wire == WireResponses {
		return p.streamResponses(ctx, req, emit, opts)
	}
	tctx, conn := provider.TraceConn(ctx)
	stream := p.svc.NewStreaming(tctx, p.params(req), opts...)
	defer stream.Close()

	var acc callAccumulator
	var usage provider.Usage
	finished, hasUsage, maxTokens := false, false, false
	for stream.Next() {
		chunk := stream.Current()
		if chunk.JSON.Usage.Valid() {
			// stream_options.include_usage: the last chunk (no choices).
			hasUsage, usage = true, chatUsage(&chunk.Usage)
		}
		for i := range chunk.Choices {
			ch := &chunk.Choices[i]
			if ch.Index != 0 {
				continue // one choice is requested; ignore others
			}
			if ch.Delta.Content != "" {
				if err := emit(provider.StreamEvent{Kind: provider.TextDelta, Text: ch.Delta.Content}); err != nil {
					return err
				}
			}
			for j := range ch.Delta.ToolCalls {
				if err := acc.add(&ch.Delta.ToolCalls[j]); err != nil {
					return provider.Failed(err)
				}
			}
			if ch.FinishReason != "" {
				finished = true
				maxTokens = ch.FinishReason == "length"
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := stream.Err(); err != nil {
		return p.streamError(err, conn)
	}
	if !finished {
		// A connection closed cleanly mid-response looks like a normal
		// end to the SSE decoder: without a finish reason it was cut.
		return provider.Broken(errCut)
	}
	return provider.EmitEnd(emit, acc.calls(), usage, hasUsage, maxTokens)
}

// chatUsage maps Chat Completions usage: prompt_tokens counts the whole
// prompt, cached tokens included, as provider.Usage does.
func chatUsage(u *sdk.CompletionUsage) provider.Usage {
	return provider.Usage{
		InputTokens:       u.PromptTokens,
		OutputTokens:      u.CompletionTokens,
		CachedInputTokens: u.PromptTokensDetails.CachedTokens,
		ReasoningTokens:   u.CompletionTokensDetails.ReasoningTokens,
	}
}

// efforts maps the settings thinking levels to reasoning_effort; "off" and
// "" (the provider's default) send none.
var efforts = map[string]shared.ReasoningEffort{
	"minimal": shared.ReasoningEffortMinimal, "low": shared.ReasoningEffortLow,
	"medium": shared.ReasoningEffortMedium, "high": shared.ReasoningEffortHigh,
}

// params builds the request: the thinking level as reasoning_effort, and
// max_tokens as max_completion_tokens beside a reasoning effort (reasoning
// models refuse max_tokens), else as max_tokens.
func (p *Provider) params(req provider.Request) sdk.ChatCompletionNewParams {
	params := sdk.ChatCompletionNewParams{
		Model:    shared.ChatModel(req.Model),
		Messages: messages(req),
		Tools:    toolParams(req.Tools),
		// Usage in a last chunk. OpenAI, llama.cpp, Ollama, vLLM and LM
		// Studio take it; a server that does not ignores it or sends none.
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	effort, reasoning := efforts[req.Thinking]
	if reasoning {
		params.ReasoningEffort = effort
	}
	if p.maxTokens > 0 {
		if reasoning {
			params.MaxCompletionTokens = sdk.Int(p.maxTokens)
		} else {
			params.MaxTokens = sdk.Int(p.maxTokens)
		}
	}
	return params
}

// callAccumulator joins tool-call fragments by their index.
type callAccumulator struct {
	parts     []callPart
	argsBytes int
}

type callPart struct {
	seen bool
	id   string
	name string
	args strings.Builder
}

func (a *callAccumulator) add(tc *sdk.ChatCompletionChunkChoiceDeltaToolCall) error {
	if tc.Index < 0 || tc.Index >= MaxToolCalls {
		return errTooLarge
	}
	a.argsBytes += len(tc.Function.Arguments)
	if a.argsBytes > MaxToolArgsBytes {
		return errTooLarge
	}
	for int(tc.Index) >= len(a.parts) {
		a.parts = append(a.parts, callPart{})
	}
	p := &a.parts[tc.Index]
	p.seen = true
	if tc.ID != "" {
		p.id = tc.ID
	}
	if tc.Function.Name != "" {
		// Names arrive whole in practice; some servers repeat them.
		p.name = tc.Function.Name
	}
	p.args.WriteString(tc.Function.Arguments)
	return nil
}

// calls returns the complete calls in index order.
func (a *callAccumulator) calls() []provider.ToolCall {
	var out []provider.ToolCall
	for i := range a.parts {
		p := &a.parts[i]
		if !p.seen {
			continue
		}
		id := p.id
		if id == "" {
			id = "call_" + strconv.Itoa(i) // some local servers send none
		}
		out = append(out, provider.ToolCall{ID: id, Name: p.name, Arguments: provider.ToolArguments(p.args.String())})
	}
	return out
}

// messages maps the conversation to chat messages. The system context goes
// first as one message, its parts in order: some local chat templates accept
// only one system message.
func messages(req provider.Request) []sdk.ChatCompletionMessageParamUnion {
	out := make([]sdk.ChatCompletionMessageParamUnion, 0, len(req.Messages)+1)
	if len(req.System) > 0 {
		out = append(out, sdk.SystemMessage(strings.Join(req.System, "\n\n")))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case provider.RoleSystem:
			out = append(out, sdk.SystemMessage(m.Text))
		case provider.RoleUser:
			out = append(out, sdk.UserMessage(m.Text))
		case provider.RoleAssistant:
			var a sdk.ChatCompletionAssistantMessageParam
			if m.Text != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = sdk.String(m.Text)
			}
			for _, c := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
						ID: c.ID,
						Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{
							Name:      c.Name,
							Arguments: string(c.Arguments),
						},
					},
				})
			}
			out = append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case provider.RoleTool:
			out = append(out, sdk.ToolMessage(m.Text, m.ToolCallID))
		}
	}
	return out
}

// toolParams maps tool specs to function tools.
func toolParams(specs []provider.ToolSpec) []sdk.ChatCompletionToolUnionParam {
	if len(specs) == 0 {
		return nil
	}
	out := make([]sdk.ChatCompletionToolUnionParam, 0, len(specs))
	for _, s := range specs {
		var params shared.FunctionParameters
		if len(s.Schema) > 0 {
			_ = json.Unmarshal(s.Schema, &params) // our own schemas; nil on failure
		}
		out = append(out, sdk.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        s.Name,
			Description: sdk.String(s.Description),
			Parameters:  params,
		}))
	}
	return out
}

// streamError maps a failed request or stream to a safe code and a reason
// (provider.HTTPFailure), as the Anthropic provider does: a rejected
// credential (401, 403) is provider_unavailable, anything else
// execution_failed. The log line names the status and the reason only,
// never the upstream body or message.
func (p *Provider) streamError(err error, conn *provider.ConnTrace) error {
	var ae *sdk.Error
	if errors.As(err, &ae) {
		pe := provider.HTTPFailure(ae.StatusCode, provider.HeaderOf(ae.Response), ae.Type, ae.Code, ae.Message, err)
		p.logf("openai: HTTP %d (%s)", ae.StatusCode, pe.Reason)
		return pe
	}
	pe := provider.HTTPFailure(0, nil, "", "", "", err)
	pe.Stale = conn.Stale()
	p.logf("openai: stream failed: %T (%s, stale connection %t)", err, pe.Reason, pe.Stale)
	return pe
}
