package runner

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/runner/agent"
	"github.com/magi-code/magi-code/runner/approval"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/provider"
)

// Turn is one turn's input.
type Turn struct {
	// Model is the attached session's restored model ("" = the startup
	// model; see Restore).
	Model string
	// Thinking is the attached session's thinking level (Choice.Thinking:
	// StartupChoice for a new session, else Restore's); "" is the
	// provider's default.
	Thinking string
	// Records are the session's stored records (history Attachment.Replay):
	// the conversation the provider sees before Prompt.
	Records []history.Record
	Prompt  string
	// TaskScopes are the delegated task-scope ceilings the session stored
	// (history Attachment.TaskScopes): never widened.
	TaskScopes []string
	Sink       Sink
	Approver   Approver
	// Grants are the session's exact-call grants (approval.Grants): the
	// front door keeps one set per session and passes it to every turn.
	Grants *approval.Grants
	// Approval is the session's approval mode when not empty
	// (agent.ApprovalAsk or agent.ApprovalAuto), instead of the settings'
	// [tools] approval: a front door that lets the person switch modes
	// per session (ACP's mode option) sets it.
	Approval string
	// NewID mints run-scoped IDs for segments, summaries and activities.
	NewID func() string
}

// Run runs one turn with the runtime's provider, tools, hooks, system
// context and subagents until the model stops calling tools, a bound is
// hit, the provider or the sink fails, or ctx ends (see agent.Run). The
// error is nil for Completed, wraps ErrCancelled for Cancelled and carries
// a safe code for Failed.
func (rt *Runtime) Run(ctx context.Context, t Turn) (Result, error) {
	return agent.Run(ctx, rt.config(t), Replay(t.Records), t.Prompt, t.Sink)
}

// Compact compacts the session's conversation now (a front door's
// /compact), through the same path as the automatic compaction before a
// provider call: the same compaction activity, the same Sink.Compaction
// record. t.Prompt is the person's instructions for the summary ("" for
// none); it is not stored. See agent.Compact for the outcomes.
func (rt *Runtime) Compact(ctx context.Context, t Turn) (Result, error) {
	return agent.Compact(ctx, rt.config(t), Replay(t.Records), t.Prompt, t.Sink)
}

// CompactName is the built-in command that compacts the conversation:
// a prompt "/compact" (CompactCommand).
const CompactName = "compact"

// CompactCommand reports whether a prompt is the /compact built-in (after
// leading white space, the command, then nothing or white space and the
// person's instructions for the summary) and returns the instructions.
// "/compactor" and the like are prompts. The front doors that offer it
// (ACP; serve under the optional compact capability) run Compact for it
// instead of a turn.
func CompactCommand(prompt string) (instructions string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimLeftFunc(prompt, unicode.IsSpace), "/"+CompactName)
	if !ok {
		return "", false
	}
	if r, _ := utf8.DecodeRuneInString(rest); rest != "" && !unicode.IsSpace(r) {
		return "", false // another command (/compactor)
	}
	return strings.TrimSpace(rest), true
}

// config is the agent configuration of a turn.
func (rt *Runtime) config(t Turn) agent.Config {
	model := rt.TurnModel(t.Model)
	approval := cmp.Or(t.Approval, rt.snap.Settings.Tools.Approval)
	k := rt.kitFor(approval)
	return agent.Config{
		Provider:      rt.provider,
		Model:         model,
		Thinking:      t.Thinking,
		System:        slices.Clip(rt.system),
		Tools:         k.tools,
		Hooks:         k.hooks,
		Approval:      approval,
		Approver:      t.Approver,
		Grants:        t.Grants,
		NewID:         t.NewID,
		ContextWindow: rt.snap.Settings.ContextWindow,
		Subagents:     rt.subagents,
		TaskScopes:    t.TaskScopes,
	}
}

// Replay turns stored records into the provider conversation. A tool call
// without a stored result (the child died while the tool ran, or the run
// stopped before its result was stored) is answered with agent.TextNotRun,
// so that the replayed conversation is always a request providers accept.
func Replay(records []history.Record) []provider.Message {
	var out []provider.Message
	var open []provider.ToolCall // calls of the last assistant message not yet answered
	answerOpen := func() {
		for _, c := range open {
			out = append(out, provider.Message{Role: provider.RoleTool, Text: agent.TextNotRun, ToolCallID: c.ID, ToolName: c.Name})
		}
		open = open[:0]
	}
	for _, rec := range records {
		switch rec.Type {
		case history.TypeInput, history.TypeInternalInput:
			answerOpen()
			out = append(out, provider.Message{Role: provider.RoleUser, Text: rec.Text})
		case history.TypeCompaction:
			answerOpen()
			out = append(out, agent.SummaryMessage(rec.Text))
		case history.TypeAssistant:
			answerOpen()
			out = append(out, provider.Message{Role: provider.RoleAssistant, Text: rec.Text})
		case history.TypeToolCall:
			if n := len(out); n == 0 || out[n-1].Role != provider.RoleAssistant {
				answerOpen()
				out = append(out, provider.Message{Role: provider.RoleAssistant})
			}
			last := &out[len(out)-1]
			call := provider.ToolCall{ID: rec.CallID, Name: rec.Name, Arguments: []byte(rec.Arguments)}
			last.ToolCalls = append(last.ToolCalls, call)
			open = append(open, call)
		case history.TypeToolResult:
			i := slices.IndexFunc(open, func(c provider.ToolCall) bool { return c.ID == rec.CallID })
			if i < 0 {
				continue // a result without its call: nothing to answer
			}
			open = slices.Delete(open, i, i+1)
			out = append(out, provider.Message{Role: provider.RoleTool, Text: rec.Text, ToolCallID: rec.CallID, ToolName: rec.Name})
		}
	}
	answerOpen()
	return out
}

// subagents lists the snapshot's enabled subagent profiles for the task
// tool. config.Load has already left out disabled profiles (docs/protocol.md, initialize: disabled
// subagent profiles use the shared policy), so none is ever offered.
func subagents(snap *config.Snapshot) []agent.Subagent {
	out := make([]agent.Subagent, 0, len(snap.Subagents))
	for _, p := range snap.Subagents {
		out = append(out, agent.Subagent{Name: p.Name, Description: p.Description, Tools: p.Tools, Model: p.Model, Prompt: p.Prompt})
	}
	return out
}
