// Package runner is the one entry point of the agent runner for the stages
// above it: it admits the settings (Admit), assembles what a turn needs
// from them (New: the provider, the tool sets with MCP and Code Mode tools,
// hooks, the system context and the subagent profiles) and runs turns over
// a session's stored records (Runtime.Run).
//
// The packages below it (agent, config, provider and its implementations,
// tools, codemode, mcp, hooks, auth) are its parts; nothing above runner/
// imports them directly. The types a stage needs to implement or read (the
// Sink a run reports to, the Approver it asks, the Outcome it ends with)
// are aliases declared here.
//
// The session store (package history) is not owned here: the caller opens
// sessions and hands a turn the records to replay.
package runner
