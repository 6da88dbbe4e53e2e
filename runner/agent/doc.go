// Package agent is the one full agent runner of a turn: provider stream,
// tool calls (approval first for mutating tools under "ask"), tool results,
// more provider calls, until a response asks for no tool.
//
// Run is called by the turn worker, which persists Result.Messages and turns
// Sink callbacks into protocol events; this package never sees frames or
// protocol types beyond wire codes and bounds. Run starts no goroutine of
// its own (tools may, and wait for them); every Sink call happens on the
// goroutine that called Run, in order.
//
// Bounds per run (spec bounds table): at most wire.RunContentBytes of
// assistant content (text and reasoning summaries), wire.RunSegments
// segments and wire.RunActivityIDs activity identities; exceeding one stops
// the run with content_limit, keeping and reporting what was accepted. A
// cap on provider rounds (Config.MaxRounds) stops a model that never stops
// calling tools, with execution_failed.
//
// Cancellation: when ctx ends, the provider stream stops, a running tool is
// stopped (a shell's process group is killed), a pending approval resolves
// as denied, and Run returns promptly with ErrCancelled (or, when ctx was
// cancelled with a coded cause such as output_unavailable, with that code).
package agent
