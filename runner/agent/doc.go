// Package agent is the one full agent runner of a turn: provider stream,
// tool calls (approval first for mutating tools under "ask"), tool results,
// more provider calls, until a response asks for no tool.
//
// Run is called by the turn worker, which persists progress and turns
// Sink callbacks into protocol events; this package never sees frames or
// protocol types beyond wire codes and bounds. Run starts no goroutine of
// its own (tools may, and wait for them); every Sink call happens on the
// goroutine that called Run, in order.
//
// Bounds per run (spec bounds table): at most protocol.RunContentBytes of
// assistant content (text and reasoning summaries), protocol.RunSegments
// segments and protocol.RunActivityIDs activity identities (tool calls,
// subagents and their calls, compactions, calls reported through a
// Reporter); exceeding one stops the run with content_limit, keeping and
// reporting what was accepted. A cap on provider rounds (Config.MaxRounds)
// stops a model that never stops calling tools, with execution_failed.
//
// A tool call goes: activity started (Sink.ToolStarted), approval when
// the tool is mutating under "ask" or its ForceApproval says so
// (ApprovalForcer, protect.go), Hooks.PreToolUse (a block is the call's
// error result; the tool never runs), the tool (its ctx carries a
// Reporter), Hooks.PostToolUse, activity finished. A failing hook is a
// Sink.Diagnostic with code DiagHookFailed, never a failure of the run.
// Hooks.Stop runs once after a loop that ended by itself (completed or
// failed), under the run's cancellation like every hook: a cancelled run
// starts none, and cancelling during it kills it and ends the run
// cancelled.
//
// Auto-compaction (compact.go) summarises the conversation through the
// same provider before a provider call once the request nears the context
// window; subagents (task.go) run nested loops behind the task tool. Each
// file documents its rules: what is kept, what is stored, how failures and
// cancellation end.
//
// Cancellation: when ctx ends, the provider stream stops (a compaction's
// too), a running tool or subagent is stopped (a shell's process group is
// killed), a pending approval resolves as denied, and Run returns promptly
// with ErrCancelled (or, when ctx was cancelled with a coded cause such as
// output_unavailable, with that code).
package agent
