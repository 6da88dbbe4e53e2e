package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/tools"
)

// Subagents (docs/architecture.md, The agent runner). With at least one enabled subagent profile
// (Config.Subagents), the primary run offers the task tool: arguments
// profile (the name of an enabled profile) and prompt. A task runs a nested
// agent loop:
//
//   - system context: the profile's prompt only; messages: the task prompt
//     only (its own context, never the primary conversation);
//   - model: the profile's, else the run's; the same provider, Approver
//     and Hooks (approvals inside a subagent are ordinary approval
//     requests);
//   - tools: the profile's tools list (empty: every tool of the run)
//     intersected with the run's tools and with every stored ceiling of
//     the profile (below); never task itself: subagents cannot recurse;
//   - bounds: SubagentMaxRounds provider calls, SubagentContentBytes of
//     its own text, no auto-compaction; activity identities count toward
//     the run's 4096;
//   - reporting: one activity of kind subagent (name = profile) from
//     started to completed or failed; its tool calls as activities of kind
//     tool; its text and reasoning never reach the primary's message;
//   - result: the text of its last response, at most SubagentResultBytes
//     (cut with tools.TruncatedMarker), is the task tool's result. A
//     subagent that fails (provider error, bound) is an error result the
//     primary model sees; cancellation ends the whole run.
//
// Delegated task-scope ceilings: the first time a session delegates to a
// profile, the run records the profile's effective tool set as a ceiling
// (Sink.TaskScope, history task_scope). Stored ceilings come back through
// Config.TaskScopes when the session is reopened, and a task never grants a
// profile tools outside any stored ceiling of that profile, even when the
// settings have since widened the profile. A ceiling is never widened: a
// new one is recorded only for a profile that has none. A stored ceiling
// that does not parse cannot be attributed to a profile, so it fails
// closed: every subagent then runs without tools.

// TaskToolName is the name of the subagent tool.
const TaskToolName = "task"

// Subagent bounds.
const (
	SubagentMaxRounds    = 32
	SubagentContentBytes = 1 << 20
	SubagentResultBytes  = 32 << 10
)

// Subagent is one enabled subagent profile (runner/config.Profile with
// mode subagent).
type Subagent struct {
	Name        string
	Description string
	Tools       []string // empty: every tool of the run (task aside)
	Model       string   // empty: the run's model
	Prompt      string   // the subagent's system context
}

// Ceiling is a delegated task-scope ceiling: the tools a profile may be
// granted in this session.
type Ceiling struct {
	Profile string   `json:"profile"`
	Tools   []string `json:"tools"`
}

// String encodes the ceiling as stored in history: compact JSON, tools
// sorted.
func (c Ceiling) String() string {
	c.Tools = slices.Clone(c.Tools)
	slices.Sort(c.Tools)
	if c.Tools == nil {
		c.Tools = []string{}
	}
	b, _ := json.Marshal(c) // strings only: cannot fail
	return string(b)
}

// CeilingOf decodes a stored ceiling.
func CeilingOf(s string) (Ceiling, bool) {
	var c Ceiling
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil || c.Profile == "" || c.Tools == nil || dec.More() {
		return Ceiling{}, false
	}
	return c, true
}

// taskTool is the run's task tool. It is a tools.Tool so that the call goes
// through the same path as any other (activity, hooks).
type taskTool struct {
	r      *run
	desc   string
	schema json.RawMessage

	ceilings map[string][][]string // profile -> stored and recorded ceilings
	broken   bool                  // a stored ceiling did not parse: fail closed
}

func newTaskTool(r *run) *taskTool {
	t := &taskTool{r: r, ceilings: map[string][][]string{}}
	var d strings.Builder
	d.WriteString("Delegate a self-contained task to a subagent, which works in its own context with its own tools and " +
		"returns its final answer as this tool's result. Arguments: profile (one of the names below) and prompt " +
		"(everything the subagent needs to know). Profiles:")
	names := make([]string, 0, len(r.cfg.Subagents))
	for _, p := range r.cfg.Subagents {
		d.WriteString("\n- ")
		d.WriteString(p.Name)
		if p.Description != "" {
			d.WriteString(": ")
			d.WriteString(p.Description)
		}
		names = append(names, p.Name)
	}
	t.desc = d.String()
	enum, _ := json.Marshal(names)
	t.schema = json.RawMessage(`{"type":"object","properties":{"profile":{"type":"string","enum":` + string(enum) +
		`},"prompt":{"type":"string"}},"required":["profile","prompt"],"additionalProperties":false}`)
	for _, s := range r.cfg.TaskScopes {
		c, ok := CeilingOf(s)
		if !ok {
			t.broken = true
			continue
		}
		t.ceilings[c.Profile] = append(t.ceilings[c.Profile], c.Tools)
	}
	return t
}

func (t *taskTool) Name() string            { return TaskToolName }
func (t *taskTool) Description() string     { return t.desc }
func (t *taskTool) Schema() json.RawMessage { return t.schema }

// Mutating is false: the subagent's own mutating calls ask for approval.
func (t *taskTool) Mutating() bool { return false }

func (t *taskTool) Describe(args json.RawMessage) string {
	var a taskArgs
	_ = json.Unmarshal(args, &a)
	return "task for subagent " + a.Profile
}

type taskArgs struct {
	Profile string `json:"profile"`
	Prompt  string `json:"prompt"`
}

func (t *taskTool) profile(name string) (Subagent, bool) {
	for _, p := range t.r.cfg.Subagents {
		if p.Name == name {
			return p, true
		}
	}
	return Subagent{}, false
}

// grant returns the tools the profile gets in this run, and records its
// ceiling when the session has none for it.
func (t *taskTool) grant(p Subagent) (*tools.Set, error) {
	set := tools.NewSet()
	var names []string
	for _, tool := range t.r.cfg.Tools.All() {
		n := tool.Name()
		if n == TaskToolName || (len(p.Tools) > 0 && !slices.Contains(p.Tools, n)) || t.broken {
			continue
		}
		within := true
		for _, c := range t.ceilings[p.Name] {
			within = within && slices.Contains(c, n)
		}
		if within {
			set.Add(tool)
			names = append(names, n)
		}
	}
	if len(t.ceilings[p.Name]) == 0 {
		c := Ceiling{Profile: p.Name, Tools: names}
		if err := t.r.sink.TaskScope(c.String()); err != nil {
			return nil, sinkError(err)
		}
		t.ceilings[p.Name] = append(t.ceilings[p.Name], names)
	}
	return set, nil
}

// Run runs one subagent. A sink failure is kept in r.fatal (the primary run
// stops after the call is reported); cancellation is seen by the caller
// through ctx.
func (t *taskTool) Run(ctx context.Context, args json.RawMessage) tools.Result {
	var a taskArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{Text: "task: arguments must be {\"profile\", \"prompt\"}", IsError: true, Summary: "task: bad arguments"}
	}
	p, ok := t.profile(a.Profile)
	if !ok {
		return tools.Result{Text: "task: no enabled subagent profile of that name", IsError: true, Summary: "task: unknown profile"}
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return tools.Result{Text: "task: prompt is empty", IsError: true, Summary: "task: empty prompt"}
	}
	r := t.r
	set, err := t.grant(p)
	if err != nil {
		r.fatal = err
		return tools.Result{Text: TextNotRun, IsError: true, Summary: "task: not run"}
	}
	id, err := r.newActivity()
	if err != nil {
		r.fatal = err
		return tools.Result{Text: TextNotRun, IsError: true, Summary: "task: not run"}
	}
	if err := r.sink.Activity(id, KindSubagent, p.Name, StateStarted, "subagent "+p.Name+": started"); err != nil {
		r.fatal = sinkError(err)
		return tools.Result{Text: TextNotRun, IsError: true, Summary: "task: not run"}
	}

	cfg := r.cfg
	cfg.Model = cmp(p.Model, r.cfg.Model)
	cfg.System = nil
	if p.Prompt != "" {
		cfg.System = []string{p.Prompt}
	}
	cfg.Tools = set
	cfg.MaxRounds = SubagentMaxRounds
	cfg.Subagents, cfg.TaskScopes, cfg.NoCompaction = nil, nil, true
	ss := &subSink{parent: r.sink}
	sub := newRun(cfg, ss, r.acct, SubagentContentBytes)
	sub.compactOff = true
	sub.add(Message{Role: provider.RoleUser, Text: a.Prompt})
	runErr := sub.loop(ctx)
	answer := lastAnswer(sub.msgs)

	state, summary := StateCompleted, "subagent "+p.Name+": completed"
	res := tools.Result{Text: bounded(answer), Summary: "task: " + p.Name + " completed"}
	switch {
	case runErr == nil:
	case ctx.Err() != nil:
		state, summary = StateFailed, "subagent "+p.Name+": cancelled"
		res = tools.Result{Text: TextCancelled, IsError: true, Summary: "task: cancelled"}
	case ss.failed != nil:
		// The parent sink failed: the primary run stops too.
		r.fatal = sinkError(ss.failed)
		state, summary = StateFailed, "subagent "+p.Name+": stopped"
		res = tools.Result{Text: TextNotRun, IsError: true, Summary: "task: stopped"}
	default:
		code := CodeOf(runErr, protocol.CodeExecutionFailed)
		state, summary = StateFailed, "subagent "+p.Name+": failed ("+string(code)+")"
		res = tools.Result{Text: bounded("task failed (" + string(code) + "); partial answer: " + answer), IsError: true,
			Summary: "task: " + p.Name + " failed"}
	}
	if err := r.sink.Activity(id, KindSubagent, p.Name, state, summary); err != nil && r.fatal == nil {
		r.fatal = sinkError(err)
	}
	return res
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// lastAnswer is the text of the subagent's last assistant message.
func lastAnswer(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == provider.RoleAssistant && msgs[i].Text != "" {
			return msgs[i].Text
		}
	}
	return ""
}

// bounded cuts a task result to SubagentResultBytes at a UTF-8 boundary.
func bounded(s string) string {
	if len(s) <= SubagentResultBytes {
		return s
	}
	cut := SubagentResultBytes - len(tools.TruncatedMarker)
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + tools.TruncatedMarker
}

// subSink is a subagent's sink: text, segments and reasoning are
// swallowed (docs/architecture.md, The agent runner: a subagent's text never streams as the primary
// assistant's message); its tool calls become activities of kind tool,
// which are not replayed in the primary conversation.
type subSink struct {
	parent Sink
	failed error // the first error of the parent sink
}

func (s *subSink) check(err error) error {
	if err != nil && s.failed == nil {
		s.failed = err
	}
	return err
}

func (s *subSink) SegmentStart(string)                   {}
func (s *subSink) TextDelta(string, string) error        { return nil }
func (s *subSink) SegmentEnd(string, string) error       { return nil }
func (s *subSink) ReasoningSummary(string, string) error { return nil }
func (s *subSink) Compaction(string, []Message) error    { return nil }
func (s *subSink) Diagnostic(code, summary string) error {
	return s.check(s.parent.Diagnostic(code, summary))
}
func (s *subSink) TaskScope(ceiling string) error { return s.check(s.parent.TaskScope(ceiling)) }

// Usage: a subagent's responses (its compactions included) count as the
// subagent's, in the parent's usage.
func (s *subSink) Usage(u provider.Usage, _ string) error {
	if us, ok := s.parent.(UsageSink); ok {
		return s.check(us.Usage(u, UsageSubagent))
	}
	return nil
}
func (s *subSink) ToolStarted(id, name, summary string, _ ToolCall) error {
	return s.check(s.parent.Activity(id, KindTool, name, StateStarted, summary))
}
func (s *subSink) ToolFinished(id, name, summary, _ string, _, failed bool) error {
	state := StateCompleted
	if failed {
		state = StateFailed
	}
	return s.check(s.parent.Activity(id, KindTool, name, state, summary))
}
func (s *subSink) Activity(id, kind, name, state, summary string) error {
	return s.check(s.parent.Activity(id, kind, name, state, summary))
}
