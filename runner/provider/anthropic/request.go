package anthropic

import (
	"encoding/json"
	"strconv"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/magi-code/magi-code/runner/provider"
)

// Thinking budgets (budget_tokens) of the settings levels, for models that
// take a budget. The API's minimum is 1024.
var budgets = map[string]int64{"minimal": 1024, "low": 4096, "medium": 10240, "high": 24576}

// Efforts of the settings levels, for models with adaptive thinking.
var efforts = map[string]sdk.OutputConfigEffort{
	"minimal": sdk.OutputConfigEffortLow, "low": sdk.OutputConfigEffortLow,
	"medium": sdk.OutputConfigEffortMedium, "high": sdk.OutputConfigEffortHigh,
}

// thinkingOn reports whether a settings level asks for thinking.
func thinkingOn(level string) bool { _, ok := budgets[level]; return ok }

// family classifies a model id for thinking.
type family struct {
	claude   bool // a Claude model
	known    bool // its version was parsed
	major    int
	minor    int
	adaptive bool // takes thinking.type=adaptive rather than a budget
}

// classify parses Claude model ids of both namings: "claude-3-7-sonnet-…"
// and "claude-sonnet-4-5-…" (also behind a prefix such as
// "anthropic.claude-…"). Unknown Claude versions (previews, new families)
// count as current models.
func classify(model string) family {
	i := strings.Index(model, "claude-")
	if i < 0 {
		return family{}
	}
	f := family{claude: true}
	parts := strings.Split(model[i+len("claude-"):], "-")
	num := func(s string) (int, bool) {
		if len(s) == 0 || len(s) > 2 {
			return 0, false // dates are 8 digits
		}
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	k := 0
	if _, ok := num(parts[0]); !ok {
		k = 1 // new naming: family name first
	}
	if k < len(parts) {
		if n, ok := num(parts[k]); ok {
			f.known, f.major = true, n
			if k+1 < len(parts) {
				if m, ok := num(parts[k+1]); ok {
					f.minor = m
				}
			}
		}
	}
	// Budget thinking up to Claude 4.5; adaptive from 4.6 on (the SDK
	// itself warns on stderr when claude-opus-4-6 gets a budget).
	f.adaptive = !f.known || f.major > 4 || (f.major == 4 && f.minor >= 6)
	return f
}

// summarizes reports whether the model's thinking blocks are summaries when
// display "summarized" is asked for: Claude 4 and later return summarized
// thinking; Claude 3.7 and models of other vendors behind an
// Anthropic-compatible endpoint return their raw thinking, which is dropped.
func summarizes(model string) bool {
	f := classify(model)
	return f.claude && (!f.known || f.major >= 4)
}

// params builds the request.
func (p *Provider) params(model string, req provider.Request) sdk.MessageNewParams {
	system, msgs := p.messagesLocked(req)
	params := sdk.MessageNewParams{
		Model:     sdk.Model(model),
		MaxTokens: p.maxTokens,
		System:    system,
		Messages:  msgs,
		Tools:     toolParams(req.Tools),
	}
	f := classify(model)
	switch {
	case req.Thinking == "off":
		d := sdk.NewThinkingConfigDisabledParam()
		params.Thinking = sdk.ThinkingConfigParamUnion{OfDisabled: &d}
	case !thinkingOn(req.Thinking):
		// "": the provider's default; send nothing.
	case f.claude && f.adaptive:
		params.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{
			Display: sdk.ThinkingConfigAdaptiveDisplaySummarized,
		}}
		params.OutputConfig.Effort = efforts[req.Thinking]
	default:
		budget := budgets[req.Thinking]
		enabled := &sdk.ThinkingConfigEnabledParam{BudgetTokens: budget}
		if summarizes(model) {
			enabled.Display = sdk.ThinkingConfigEnabledDisplaySummarized
		}
		params.Thinking = sdk.ThinkingConfigParamUnion{OfEnabled: enabled}
		// The API wants budget_tokens < max_tokens.
		if params.MaxTokens <= budget {
			params.MaxTokens = budget + p.maxTokens
		}
	}
	return params
}

// messagesLocked maps the conversation. The system context becomes system
// blocks in order, as do system messages of the conversation (the Messages
// API has no system role). Tool results become tool_result blocks of a user
// message; consecutive messages of one role are merged, as the API expects
// alternation. Empty text blocks, which the API rejects, are left out, and
// so is a message left with no block. Thinking blocks kept from the
// response that asked for a replayed tool call go first in its message.
func (p *Provider) messagesLocked(req provider.Request) ([]sdk.TextBlockParam, []sdk.MessageParam) {
	var system []sdk.TextBlockParam
	for _, s := range req.System {
		if s != "" {
			system = append(system, sdk.TextBlockParam{Text: s})
		}
	}
	type turn struct {
		assistant bool
		blocks    []sdk.ContentBlockParamUnion
	}
	var turns []turn
	add := func(assistant bool, blocks ...sdk.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(turns); n > 0 && turns[n-1].assistant == assistant {
			turns[n-1].blocks = append(turns[n-1].blocks, blocks...)
			return
		}
		turns = append(turns, turn{assistant, blocks})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case provider.RoleSystem:
			if m.Text != "" {
				system = append(system, sdk.TextBlockParam{Text: m.Text})
			}
		case provider.RoleUser:
			if m.Text != "" {
				add(false, sdk.NewTextBlock(m.Text))
			}
		case provider.RoleTool:
			tr := sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID}
			if m.Text != "" {
				tr.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: m.Text}}}
			}
			add(false, sdk.ContentBlockParamUnion{OfToolResult: &tr})
		case provider.RoleAssistant:
			var blocks []sdk.ContentBlockParamUnion
			for _, c := range m.ToolCalls {
				if kept, ok := p.kept[c.ID]; ok {
					blocks = append(blocks, kept...)
					break
				}
			}
			if m.Text != "" {
				blocks = append(blocks, sdk.NewTextBlock(m.Text))
			}
			for _, c := range m.ToolCalls {
				blocks = append(blocks, sdk.NewToolUseBlock(c.ID, toolInput(c.Arguments), c.Name))
			}
			add(true, blocks...)
		}
	}
	out := make([]sdk.MessageParam, 0, len(turns))
	for _, t := range turns {
		if t.assistant {
			out = append(out, sdk.NewAssistantMessage(t.blocks...))
		} else {
			out = append(out, sdk.NewUserMessage(t.blocks...))
		}
	}
	return system, out
}

// toolInput is a call's input as the API wants it: a JSON object. Anything
// else (malformed arguments kept as a JSON string) is replayed as {}; the
// tool's result already told the model what went wrong.
func toolInput(args json.RawMessage) json.RawMessage {
	s := strings.TrimSpace(string(args))
	if strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return json.RawMessage("{}")
}

// toolParams maps tool specs to custom tools. The schema's properties and
// required list map to their fields; its other keywords are kept as extra
// fields of input_schema.
func toolParams(specs []provider.ToolSpec) []sdk.ToolUnionParam {
	if len(specs) == 0 {
		return nil
	}
	out := make([]sdk.ToolUnionParam, 0, len(specs))
	for _, s := range specs {
		var schema map[string]any
		if len(s.Schema) > 0 {
			_ = json.Unmarshal(s.Schema, &schema) // our own schemas; empty on failure
		}
		in := sdk.ToolInputSchemaParam{}
		for k, v := range schema {
			switch k {
			case "type":
			case "properties":
				in.Properties = v
			case "required":
				if list, ok := v.([]any); ok {
					for _, r := range list {
						if name, ok := r.(string); ok {
							in.Required = append(in.Required, name)
						}
					}
				}
			default:
				if in.ExtraFields == nil {
					in.ExtraFields = map[string]any{}
				}
				in.ExtraFields[k] = v
			}
		}
		t := &sdk.ToolParam{Name: s.Name, InputSchema: in}
		if s.Description != "" {
			t.Description = sdk.String(s.Description)
		}
		out = append(out, sdk.ToolUnionParam{OfTool: t})
	}
	return out
}
