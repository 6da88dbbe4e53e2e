package anthropic

import (
	"strconv"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/magi-code/magi-code/runner/provider"
)

// response accumulates one streamed message: content blocks by index.
type response struct {
	// summaries says whether this response's thinking blocks are provider
	// summaries (see summarizes).
	summaries bool
	started   bool
	stopped   bool
	maxTokens bool // stop_reason max_tokens
	// usage is what message_start and message_delta reported (hasUsage:
	// either did).
	usage        provider.Usage
	hasUsage     bool
	cacheCreated int64

	blocks     []block
	tools      int
	argsBytes  int
	thinkBytes int
	// thinkingBlocks are the response's thinking and redacted_thinking
	// blocks, in order, as the API wants them replayed.
	thinkingBlocks []sdk.ContentBlockParamUnion
}

// Block kinds we act on; every other block type (server tools, citations'
// sources, ...) is ignored.
const (
	blockOther = iota
	blockText
	blockToolUse
	blockThinking
	blockRedacted
)

type block struct {
	kind      int
	id, name  string
	startJSON string // input given whole in content_block_start
	args      strings.Builder
	sawDelta  bool
	thinking  strings.Builder
	signature string
	data      string // redacted_thinking payload
	closed    bool
}

// add folds one event in and returns the event to emit, if any (Kind 0
// means none).
func (r *response) add(ev *sdk.MessageStreamEventUnion) (provider.StreamEvent, error) {
	switch ev.Type {
	case "message_start":
		r.started = true
		if ev.JSON.Message.Valid() && ev.Message.JSON.Usage.Valid() {
			u := &ev.Message.Usage
			r.setUsage(u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens)
		}
	case "content_block_start":
		return r.blockStart(ev)
	case "content_block_delta":
		return r.blockDelta(ev)
	case "content_block_stop":
		return r.blockStop(ev)
	case "message_delta":
		// stop_reason: max_tokens is told on Done; the others (end_turn,
		// tool_use, ...) need no action: calls are emitted from their
		// blocks after message_stop.
		if ev.Delta.StopReason != "" {
			r.maxTokens = ev.Delta.StopReason == sdk.StopReasonMaxTokens
		}
		// Its usage is cumulative: its counts replace message_start's
		// where given (output_tokens always is).
		if ev.JSON.Usage.Valid() {
			u, prev := &ev.Usage, r.usage
			in, read, created := prev.InputTokens-prev.CachedInputTokens-r.cacheCreated, prev.CachedInputTokens, r.cacheCreated
			if u.JSON.InputTokens.Valid() {
				in = u.InputTokens
			}
			if u.JSON.CacheReadInputTokens.Valid() {
				read = u.CacheReadInputTokens
			}
			if u.JSON.CacheCreationInputTokens.Valid() {
				created = u.CacheCreationInputTokens
			}
			r.setUsage(in, read, created, u.OutputTokens)
		}
	case "message_stop":
		if !r.started {
			return provider.StreamEvent{}, errEvent
		}
		r.stopped = true
	}
	return provider.StreamEvent{}, nil
}

// setUsage records the usage of Anthropic's counts: input_tokens excludes
// the prompt read from or written to the cache, which provider.Usage's
// InputTokens includes.
func (r *response) setUsage(input, cacheRead, cacheCreated, output int64) {
	r.hasUsage, r.cacheCreated = true, cacheCreated
	r.usage = provider.Usage{InputTokens: input + cacheRead + cacheCreated, CachedInputTokens: cacheRead, OutputTokens: output}
}

// blockStart opens a content block: text (its first text, if any, is a
// delta), tool_use (counted against MaxToolCalls), thinking or redacted
// thinking (kept for the replay of a tool loop).
func (r *response) blockStart(ev *sdk.MessageStreamEventUnion) (provider.StreamEvent, error) {
	b, err := r.open(ev.Index)
	if err != nil {
		return provider.StreamEvent{}, err
	}
	cb := &ev.ContentBlock
	switch cb.Type {
	case "text":
		b.kind = blockText
		if cb.Text != "" {
			return provider.StreamEvent{Kind: provider.TextDelta, Text: cb.Text}, nil
		}
	case "tool_use":
		if r.tools++; r.tools > MaxToolCalls {
			return provider.StreamEvent{}, errTooLarge
		}
		b.kind, b.id, b.name = blockToolUse, cb.ID, cb.Name
		if raw := cb.JSON.Input.Raw(); raw != "" && raw != "null" {
			b.startJSON = raw
		}
	case "thinking":
		b.kind = blockThinking
		b.signature = cb.Signature
		if err := r.think(b, cb.Thinking, len(cb.Signature)); err != nil {
			return provider.StreamEvent{}, err
		}
	case "redacted_thinking":
		b.kind, b.data = blockRedacted, cb.Data
		if err := r.think(b, "", len(cb.Data)); err != nil {
			return provider.StreamEvent{}, err
		}
	}
	return provider.StreamEvent{}, nil
}

// blockDelta adds to the open block of its kind: text is a delta, tool
// arguments accumulate (bounded by MaxToolArgsBytes), thinking and its
// signature are kept.
func (r *response) blockDelta(ev *sdk.MessageStreamEventUnion) (provider.StreamEvent, error) {
	b, err := r.at(ev.Index)
	if err != nil {
		return provider.StreamEvent{}, err
	}
	d := &ev.Delta
	switch {
	case d.Type == "text_delta" && b.kind == blockText:
		if d.Text != "" {
			return provider.StreamEvent{Kind: provider.TextDelta, Text: d.Text}, nil
		}
	case d.Type == "input_json_delta" && b.kind == blockToolUse:
		r.argsBytes += len(d.PartialJSON)
		if r.argsBytes > MaxToolArgsBytes {
			return provider.StreamEvent{}, errTooLarge
		}
		b.sawDelta = true
		b.args.WriteString(d.PartialJSON)
	case d.Type == "thinking_delta" && b.kind == blockThinking:
		if err := r.think(b, d.Thinking, 0); err != nil {
			return provider.StreamEvent{}, err
		}
	case d.Type == "signature_delta" && b.kind == blockThinking:
		b.signature += d.Signature
		if err := r.think(b, "", len(d.Signature)); err != nil {
			return provider.StreamEvent{}, err
		}
	}
	return provider.StreamEvent{}, nil
}

// blockStop closes a block; a completed thinking block is kept for the
// replay and, when the model's thinking blocks are provider summaries
// (r.summaries), emitted whole.
func (r *response) blockStop(ev *sdk.MessageStreamEventUnion) (provider.StreamEvent, error) {
	b, err := r.at(ev.Index)
	if err != nil {
		return provider.StreamEvent{}, err
	}
	b.closed = true
	switch b.kind {
	case blockThinking:
		r.thinkingBlocks = append(r.thinkingBlocks, sdk.NewThinkingBlock(b.signature, b.thinking.String()))
		// docs/protocol.md, Run events: no raw chain-of-thought. Only a
		// provider summary passes, whole, once its block is complete.
		if r.summaries && strings.TrimSpace(b.thinking.String()) != "" {
			return provider.StreamEvent{Kind: provider.ReasoningSummary, Text: b.thinking.String()}, nil
		}
	case blockRedacted:
		r.thinkingBlocks = append(r.thinkingBlocks, sdk.NewRedactedThinkingBlock(b.data))
	}
	return provider.StreamEvent{}, nil
}

// think accounts thinking text and signature bytes against the bound.
func (r *response) think(b *block, text string, extra int) error {
	r.thinkBytes += len(text) + extra
	if r.thinkBytes > MaxThinkingBytes {
		return errTooLarge
	}
	b.thinking.WriteString(text)
	return nil
}

// open returns the new block at index i. Blocks arrive in index order.
func (r *response) open(i int64) (*block, error) {
	if !r.started || i != int64(len(r.blocks)) || i >= MaxToolCalls*4 {
		return nil, errEvent
	}
	r.blocks = append(r.blocks, block{})
	return &r.blocks[i], nil
}

// at returns the open block at index i.
func (r *response) at(i int64) (*block, error) {
	if i < 0 || i >= int64(len(r.blocks)) || r.blocks[i].closed {
		return nil, errEvent
	}
	return &r.blocks[i], nil
}

// calls returns the complete tool calls in block order.
func (r *response) calls() []provider.ToolCall {
	var out []provider.ToolCall
	for i := range r.blocks {
		b := &r.blocks[i]
		if b.kind != blockToolUse {
			continue
		}
		id := b.id
		if id == "" {
			id = "toolu_" + strconv.Itoa(i) // compatible servers may send none
		}
		args := b.args.String()
		if !b.sawDelta {
			args = b.startJSON
		}
		out = append(out, provider.ToolCall{ID: id, Name: b.name, Arguments: provider.ToolArguments(args)})
	}
	return out
}
