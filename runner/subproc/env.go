package subproc

// Inherited lists the only variables of ours a subprocess (shell tool call,
// hook, MCP server) sees, besides what its own settings add. docs/protocol.md, Choices: "MCP
// servers and tool subprocesses get a minimal environment (PATH, HOME, LANG,
// TERM and what their own settings add), never the provider credentials".
// On Windows the list also holds what programs there need to start and find
// each other (env_windows.go); none of it is a credential.
var Inherited = inherited
