// Package anthropic is a provider.Provider for the Anthropic Messages API,
// built on github.com/anthropics/anthropic-sdk-go: streaming messages with
// system prompts, tools (tool_use / tool_result), text and thinking.
//
// Text deltas are emitted as they arrive. Tool calls, whose input JSON
// arrives split across input_json_delta events, are accumulated per content
// block and emitted complete once the message has stopped. Thinking is never
// passed on as raw chain-of-thought (spec): a thinking block is emitted, whole
// at its content_block_stop, as a ReasoningSummary only when the provider
// returns summaries for it (see summarizes: Claude 4 and later models asked
// for display "summarized"); raw thinking of older or foreign models and
// redacted_thinking blocks are dropped. All thinking blocks of a response
// that asked for tools are kept in memory (bounded) and replayed, signature
// intact, before the matching tool_use blocks, as the API requires while a
// tool loop runs; they never reach history or the wire.
//
// The credential comes from an auth.Source at each call, so an expired OAuth
// access token is refreshed at turn time. API keys go in x-api-key, OAuth
// tokens in Authorization: Bearer.
//
// Every failure (HTTP 429, 529 overloaded, 5xx, a cut stream, an SSE error
// event, a malformed event) becomes a *provider.Error with code
// execution_failed; a rejected credential (401, 403) and a failed refresh are
// provider_unavailable. No response body, header or upstream message reaches
// the caller's error text. The service is built without the SDK's
// environment defaults, so ANTHROPIC_* variables and SDK profiles of this
// process are never picked up implicitly.
package anthropic

import (
	"context"
	"errors"
	"net/http"
	"sync"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/auth"
	"github.com/magi-code/magi-code/runner/provider"
)

// Bounds and defaults.
const (
	MaxToolCalls     = protocol.RunActivityIDs // per response
	MaxToolArgsBytes = 4 << 20                 // all tool inputs of one response
	// MaxThinkingBytes bounds the thinking text and signatures of one
	// response (kept for summaries and replay).
	MaxThinkingBytes = protocol.RunContentBytes
	// MaxKeptResponses bounds how many responses' thinking blocks are kept
	// for replay.
	MaxKeptResponses = 64
	// DefaultMaxTokens is max_tokens when Config.MaxTokens is 0.
	DefaultMaxTokens = 8192
	// DefaultHeaderTimeout bounds the wait for response headers when
	// Config.HTTPClient is nil.
	DefaultHeaderTimeout = provider.DefaultHeaderTimeout
	// oauthBeta is the beta flag the API requires with OAuth bearer tokens.
	oauthBeta = "oauth-2025-04-20"
)

// Config configures the provider.
type Config struct {
	// BaseURL of the API, such as "https://api.anthropic.com".
	BaseURL string
	// Credentials supplies the API key or OAuth token at each call.
	Credentials auth.Source
	// Model is used when a Request names none.
	Model string
	// MaxTokens is max_tokens; 0 means DefaultMaxTokens. It is raised above
	// the thinking budget when one applies.
	MaxTokens int64
	// HTTPClient is used for requests; nil means a client whose transport
	// times out waiting for headers after DefaultHeaderTimeout.
	HTTPClient *http.Client
	// Logf receives diagnostics, which may quote upstream errors; nil
	// discards them. It must not write to stdout or stderr in serve.
	Logf func(format string, args ...any)
}

// Provider streams Anthropic messages. It is safe for concurrent use; calls
// are serialized.
type Provider struct {
	creds     auth.Source
	model     string
	maxTokens int64
	logf      func(format string, args ...any)

	// mu serializes Stream calls and guards the fields below.
	mu  sync.Mutex
	svc sdk.MessageService
	// kept holds, by tool_use ID, the thinking blocks that preceded that
	// tool call in its response; keptOrder lists first IDs per response,
	// oldest first, for eviction.
	kept      map[string][]sdk.ContentBlockParamUnion
	keptOrder [][]string
}

// New returns a provider for cfg. It performs no I/O.
func New(cfg Config) *Provider {
	hc := provider.HTTPClient(cfg.HTTPClient)
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	maxTokens := cfg.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	creds := cfg.Credentials
	if creds == nil {
		creds = auth.NewStatic(auth.APIKey, "")
	}
	// NewMessageService applies only the options given here: no
	// environment defaults, profiles or credential chain (unlike
	// sdk.NewClient).
	svc := sdk.NewMessageService(
		option.WithHTTPClient(hc),
		option.WithBaseURL(cfg.BaseURL),
		// No SDK retries: provider.Retrying retries, observably.
		option.WithMaxRetries(0),
	)
	return &Provider{
		creds: creds, model: cfg.Model, maxTokens: maxTokens, logf: logf,
		svc: svc, kept: map[string][]sdk.ContentBlockParamUnion{},
	}
}

var (
	errCut      = errors.New("anthropic: stream ended before message_stop")
	errTooLarge = errors.New("anthropic: response over the per-response bounds")
	errEvent    = errors.New("anthropic: malformed stream event")
)

// Stream sends req and streams the response. See provider.Provider.
func (p *Provider) Stream(ctx context.Context, req provider.Request, emit func(provider.StreamEvent) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	kind, token, err := auth.Token(ctx, p.creds)
	if err != nil {
		return err
	}
	model := req.Model
	if model == "" {
		model = p.model
	}
	params := p.params(model, req)
	opts := []option.RequestOption{option.WithHeader("x-api-key", token)}
	if kind == auth.OAuth {
		opts = []option.RequestOption{
			option.WithHeader("authorization", "Bearer "+token),
			option.WithHeaderAdd("anthropic-beta", oauthBeta),
		}
	}
	tctx, conn := provider.TraceConn(ctx)
	stream := p.svc.NewStreaming(tctx, params, opts...)
	defer stream.Close()

	r := response{summaries: summarizes(model) && thinkingOn(req.Thinking)}
	for stream.Next() {
		ev := stream.Current()
		out, err := r.add(&ev)
		if err != nil {
			p.logf("anthropic: %v", err)
			if errors.Is(err, errEvent) {
				return provider.Broken(err)
			}
			return provider.Failed(err)
		}
		if out.Kind != 0 {
			if err := emit(out); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := stream.Err(); err != nil {
		return p.streamError(err, conn)
	}
	if !r.stopped {
		// A connection closed cleanly mid-response looks like a normal end
		// to the SSE decoder: without message_stop it was cut.
		p.logf("anthropic: %v", errCut)
		return provider.Broken(errCut)
	}
	calls := r.calls()
	p.keepLocked(r.thinkingBlocks, calls)
	return provider.EmitEnd(emit, calls, r.usage, r.hasUsage, r.maxTokens)
}

// streamError maps a failed request or stream to a safe code and a reason
// (provider.HTTPFailure). The log line names the status, the request ID
// and the reason, never the body or message.
func (p *Provider) streamError(err error, conn *provider.ConnTrace) error {
	var ae *sdk.Error
	if errors.As(err, &ae) {
		pe := provider.HTTPFailure(ae.StatusCode, provider.HeaderOf(ae.Response), string(ae.Type()), "", ae.Message, err)
		p.logf("anthropic: HTTP %d (request %s, %s)", ae.StatusCode, ae.RequestID, pe.Reason)
		return pe
	}
	pe := provider.HTTPFailure(0, nil, "", "", "", err)
	pe.Stale = conn.Stale()
	p.logf("anthropic: stream failed: %T (%s, stale connection %t)", err, pe.Reason, pe.Stale)
	return pe
}

// keepLocked remembers the response's thinking blocks under each of its
// tool calls' IDs, for replay while the tool loop runs.
func (p *Provider) keepLocked(blocks []sdk.ContentBlockParamUnion, calls []provider.ToolCall) {
	if len(blocks) == 0 || len(calls) == 0 {
		return
	}
	ids := make([]string, 0, len(calls))
	for _, c := range calls {
		p.kept[c.ID] = blocks
		ids = append(ids, c.ID)
	}
	p.keptOrder = append(p.keptOrder, ids)
	for len(p.keptOrder) > MaxKeptResponses {
		for _, id := range p.keptOrder[0] {
			delete(p.kept, id)
		}
		p.keptOrder = p.keptOrder[1:]
	}
}
