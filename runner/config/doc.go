// Package config performs magi-code's startup load: it resolves MC_HOME,
// creates the runtime directories, loads the global and exact-cwd project
// settings (koanf, TOML) with their precedence, migrates older schema
// versions, computes the context identity, loads instructions, skills and
// agent profiles, checks provider readiness locally (no network), and
// collects the MCP server definitions with their global approval status.
//
// Load runs once per child and returns one admitted Snapshot, or the safe
// protocol.Code of the first failure together with whatever part of the snapshot
// was already known. Nothing here writes to stdout or stderr: details go to
// Env.Logf, which discards by default and may carry paths (never send its
// text to the wire). Approve, Describe and ListMCP serve the terminal CLI.
//
// The settings keys, auth.json, the approval store, the migration and every
// precedence rule are documented in KEYS.md beside this file.
package config
