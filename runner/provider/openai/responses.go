package openai

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider"
)

// The Responses API (wire_api = "responses"): the same conversation as
// input items (messages, function_call and function_call_output items),
// the system context as instructions, function tools. Text deltas are
// emitted as they arrive; function calls, whose arguments stream by item,
// complete when the response has; a reasoning summary part is emitted
// whole when it is done, with the stable SummaryID ITEM.INDEX (its
// reasoning item and summary index), so that a part the API repeats
// replaces the earlier one. Nothing is stored at the provider (store:
// false); the usage of response.completed is emitted before Done.

// errFailed reports a response.failed or error event.
var errFailed = errors.New("openai: the response failed")

// MaxSummaryBytes bounds the reasoning summaries of one response.
const MaxSummaryBytes = protocol.RunContentBytes

// streamResponses streams one Responses API call; see Stream.
func (p *Provider) streamResponses(ctx context.Context, req provider.Request, emit func(provider.StreamEvent) error, opts []option.RequestOption) error {
	tctx, conn := provider.TraceConn(ctx)
	stream := p.resp.NewStreaming(tctx, p.responsesParams(req), opts...)
	defer stream.Close()

	var r responseAcc
	for stream.Next() {
		ev := stream.Current()
		out, err := r.add(&ev)
		if err != nil {
			if pe := (*provider.Error)(nil); errors.As(err, &pe) {
				p.logf("openai: response failed (%s)", pe.Reason)
				return err
			}
			p.logf("openai: %v", err)
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
	if !r.finished {
		return provider.Broken(errCut)
	}
	return provider.EmitEnd(emit, r.complete(), r.usage, r.hasUsage, r.maxTokens)
}

// responseAcc accumulates one streamed response.
type responseAcc struct {
	finished  bool
	maxTokens bool // incomplete for max_output_tokens
	hasUsage  bool
	usage     provider.Usage
	// calls are the function calls in output order; byItem finds one by
	// its item ID.
	calls        []fnCall
	byItem       map[string]int
	argsBytes    int
	summaries    map[string]*strings.Builder
	summaryBytes int
}

type fnCall struct {
	itemID, callID, name string
	args                 strings.Builder
	final                bool // arguments.done gave the whole text
}

// add folds one event in and returns the event to emit (Kind 0: none).
func (r *responseAcc) add(ev *responses.ResponseStreamEventUnion) (provider.StreamEvent, error) {
	switch ev.Type {
	case "response.output_text.delta":
		if ev.Delta != "" {
			return provider.StreamEvent{Kind: provider.TextDelta, Text: ev.Delta}, nil
		}
	case "response.output_item.added", "response.output_item.done":
		if ev.Item.Type == "function_call" {
			c, err := r.call(ev.Item.ID)
			if err != nil {
				return provider.StreamEvent{}, err
			}
			c.callID = cmpOr(ev.Item.CallID, c.callID)
			c.name = cmpOr(ev.Item.Name, c.name)
			if ev.Type == "response.output_item.done" && !c.final && ev.Item.Arguments.OfString != "" {
				if err := r.setArgs(c, ev.Item.Arguments.OfString); err != nil {
					return provider.StreamEvent{}, err
				}
			}
		}
	case "response.function_call_arguments.delta":
		c, err := r.call(ev.ItemID)
		if err != nil {
			return provider.StreamEvent{}, err
		}
		if r.argsBytes += len(ev.Delta); r.argsBytes > MaxToolArgsBytes {
			return provider.StreamEvent{}, errTooLarge
		}
		c.args.WriteString(ev.Delta)
	case "response.function_call_arguments.done":
		c, err := r.call(ev.ItemID)
		if err != nil {
			return provider.StreamEvent{}, err
		}
		if err := r.setArgs(c, ev.Arguments); err != nil {
			return provider.StreamEvent{}, err
		}
	case "response.reasoning_summary_text.delta":
		id := summaryID(ev.ItemID, ev.SummaryIndex)
		if r.summaryBytes += len(ev.Delta); r.summaryBytes > MaxSummaryBytes {
			return provider.StreamEvent{}, errTooLarge
		}
		if r.summaries == nil {
			r.summaries = map[string]*strings.Builder{}
		}
		b := r.summaries[id]
		if b == nil {
			b = &strings.Builder{}
			r.summaries[id] = b
		}
		b.WriteString(ev.Delta)
	case "response.reasoning_summary_text.done":
		id := summaryID(ev.ItemID, ev.SummaryIndex)
		text := ev.Text
		if b := r.summaries[id]; text == "" && b != nil {
			text = b.String()
		}
		delete(r.summaries, id)
		if r.summaryBytes += len(text); r.summaryBytes > 2*MaxSummaryBytes {
			return provider.StreamEvent{}, errTooLarge
		}
		if strings.TrimSpace(text) != "" {
			return provider.StreamEvent{Kind: provider.ReasoningSummary, Text: text, SummaryID: id}, nil
		}
	case "response.completed", "response.incomplete":
		// incomplete: cut by max_output_tokens (told on Done) or a content
		// filter; what came is the answer, as a chat finish_reason "length"
		// is.
		r.finished = true
		r.maxTokens = ev.Type == "response.incomplete" && ev.Response.IncompleteDetails.Reason == "max_output_tokens"
		if ev.Response.JSON.Usage.Valid() {
			u := &ev.Response.Usage
			r.hasUsage = true
			r.usage = provider.Usage{
				InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
				CachedInputTokens: u.InputTokensDetails.CachedTokens, ReasoningTokens: u.OutputTokensDetails.ReasoningTokens,
			}
		}
	case "response.failed":
		e := &ev.Response.Error
		return provider.StreamEvent{}, provider.HTTPFailure(0, nil, "", string(e.Code), e.Message, errFailed)
	case "error":
		return provider.StreamEvent{}, provider.HTTPFailure(0, nil, "", ev.Code, ev.Message, errFailed)
	}
	return provider.StreamEvent{}, nil
}

// call returns the function call of item id, opening it (bounded by
// MaxToolCalls) when it is new.
func (r *responseAcc) call(id string) (*fnCall, error) {
	if i, ok := r.byItem[id]; ok {
		return &r.calls[i], nil
	}
	if len(r.calls) >= MaxToolCalls {
		return nil, errTooLarge
	}
	if r.byItem == nil {
		r.byItem = map[string]int{}
	}
	r.byItem[id] = len(r.calls)
	r.calls = append(r.calls, fnCall{itemID: id})
	return &r.calls[len(r.calls)-1], nil
}

// setArgs replaces a call's arguments with the whole text the API gave.
func (r *responseAcc) setArgs(c *fnCall, args string) error {
	r.argsBytes += len(args) - c.args.Len()
	if r.argsBytes > MaxToolArgsBytes {
		return errTooLarge
	}
	c.args.Reset()
	c.args.WriteString(args)
	c.final = true
	return nil
}

// complete returns the function calls in output order. A call without a
// call_id gets one from its position, as a local server may send none.
func (r *responseAcc) complete() []provider.ToolCall {
	out := make([]provider.ToolCall, 0, len(r.calls))
	for i := range r.calls {
		c := &r.calls[i]
		id := cmpOr(c.callID, "call_"+strconv.Itoa(i))
		out = append(out, provider.ToolCall{ID: id, Name: c.name, Arguments: provider.ToolArguments(c.args.String())})
	}
	return out
}

// summaryID is the stable ID of a summary part: its reasoning item's ID
// and the part's index, or "" (the runner picks one) when that does not
// fit the ID grammar.
func summaryID(item string, index int64) string {
	id := item + "." + strconv.FormatInt(index, 10)
	if !protocol.ValidID(id) {
		return ""
	}
	return id
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// responsesParams builds the request: the system context as instructions,
// the conversation as input items, the thinking level as reasoning effort
// with an automatic summary (only when a level is set: models without
// reasoning refuse the parameter), max_tokens as max_output_tokens.
func (p *Provider) responsesParams(req provider.Request) responses.ResponseNewParams {
	params := responses.ResponseNewParams{
		Model: shared.ResponsesModel(req.Model),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: inputItems(req.Messages)},
		Tools: responseTools(req.Tools),
		Store: sdk.Bool(false),
	}
	if len(req.System) > 0 {
		params.Instructions = sdk.String(strings.Join(req.System, "\n\n"))
	}
	if effort, ok := efforts[req.Thinking]; ok {
		params.Reasoning = shared.ReasoningParam{Effort: effort, Summary: shared.ReasoningSummaryAuto}
	}
	if p.maxTokens > 0 {
		params.MaxOutputTokens = sdk.Int(p.maxTokens)
	}
	return params
}

// inputItems maps the conversation to input items: messages by role, an
// assistant's tool calls as function_call items after its text, a tool
// result as a function_call_output item.
func inputItems(msgs []provider.Message) responses.ResponseInputParam {
	out := make(responses.ResponseInputParam, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case provider.RoleSystem:
			out = append(out, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleSystem))
		case provider.RoleUser:
			out = append(out, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleUser))
		case provider.RoleAssistant:
			if m.Text != "" || len(m.ToolCalls) == 0 {
				out = append(out, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range m.ToolCalls {
				out = append(out, responses.ResponseInputItemParamOfFunctionCall(string(c.Arguments), c.ID, c.Name))
			}
		case provider.RoleTool:
			item := responses.ResponseInputItemParamOfFunctionCallOutput(m.Text)
			item.OfFunctionCallOutput.CallID = sdk.String(m.ToolCallID)
			out = append(out, item)
		}
	}
	return out
}

// responseTools maps tool specs to function tools (not strict: our schemas
// have optional properties, which strict mode refuses).
func responseTools(specs []provider.ToolSpec) []responses.ToolUnionParam {
	if len(specs) == 0 {
		return nil
	}
	out := make([]responses.ToolUnionParam, 0, len(specs))
	for _, s := range specs {
		var params map[string]any
		if len(s.Schema) > 0 {
			_ = json.Unmarshal(s.Schema, &params) // our own schemas; nil on failure
		}
		t := responses.ToolParamOfFunction(s.Name, params, false)
		t.OfFunction.Description = sdk.String(s.Description)
		out = append(out, t)
	}
	return out
}
