package main

import (
	"fmt"
	"strings"
)

// details is what a command's help adds below its usage lines: its flags,
// the environment variables it reads and its exit codes.
type details struct {
	flags []string // "--flag ARG  meaning"; none: the command takes no flag but --help
	env   []string // "NAME  meaning", besides commonEnv
	exits []string // "N  meaning"
}

// commonEnv is read by every command but help and version.
var commonEnv = []string{
	"MC_HOME  where settings, credentials, sessions and logs live (default $HOME/.magi-code)",
	"HOME     the default MC_HOME's parent, and ~/ in settings",
}

// Exit codes shared by most commands.
var (
	exitsCLI = []string{"0  done", "1  it failed (the reason on stderr)", "2  a wrong command line (usage on stderr)"}
	// The terminal app: docs/mission-control.md.
	exitsApp = []string{"0  left normally, or (--prompt) the turn completed", "1  (--prompt) the turn failed or was cancelled, or the app could not start",
		"2  a wrong command line, or stdin or stdout is not a terminal"}
	envApp = []string{
		"OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY  provider keys (or the [providers.NAME] api_key_env variable; magi-code login stores one instead)",
		"MC_LOG_LEVEL  the diagnostic log's level (debug, info, warn, error), over log_level",
		"NO_COLOR      set and not empty: no colour (no-color.org)",
		"TERM          the terminal's capabilities",
	}
)

// commandDetails holds the details of every command of usage, by its first
// word ("" is magi-code alone). TestEveryCommandHasHelp fails for a command
// added to usage without its entry here.
var commandDetails = map[string]details{
	"": {flags: []string{"--prompt TEXT  run one turn, then exit", "--continue     reopen this directory's latest session",
		"--version      as magi-code version"}, env: envApp, exits: exitsApp},
	"--prompt":   {flags: []string{"--prompt TEXT  the prompt of the one turn"}, env: envApp, exits: exitsApp},
	"--continue": {flags: []string{"--continue  open the newest session whose workspace is this directory"}, env: envApp, exits: exitsApp},
	"resume":     {env: envApp, exits: exitsApp},
	"login":      {exits: exitsCLI},
	"logout":     {exits: exitsCLI},
	"model":      {exits: exitsCLI},
	"serve": {flags: []string{"--stdio  required: the protocol on the inherited stdin and stdout pipes"},
		env: []string{
			"OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY  provider keys (or the [providers.NAME] api_key_env variable)",
			"MC_LOG_LEVEL  the diagnostic log's level, over log_level",
		},
		exits: []string{"0  clean shutdown, or EOF with every frame drained", "1  a runtime transport failure (stdout stalled, broken or overflowing); nothing on stderr",
			"2  an invalid launch (other arguments, a TTY, file or socket on fd 0 or 1), before any side effect"}},
	"acp": {env: []string{
		"OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY  provider keys (or the [providers.NAME] api_key_env variable)",
		"MC_LOG_LEVEL  the diagnostic log's level, over log_level",
	}, exits: []string{"0  EOF on stdin, once what was queued is written", "1  a runtime transport failure (output not written within 2000 ms); nothing on stderr",
		"2  an invalid launch (arguments, a TTY, file or socket on fd 0 or 1, Windows), before anything is created"}},
	"config": {exits: []string{"0  printed (a missing credential or an MCP server that cannot start is a readiness line, not a failure)",
		"1  the settings or the selected agent profile are invalid (printed with the reason), or they could not be read",
		"2  a wrong command line (usage on stderr)"}},
	"mcp":         {exits: exitsCLI},
	"logs":        {flags: []string{"--follow  keep printing as the log grows (until interrupted)"}, exits: exitsCLI},
	"sessions":    {exits: exitsCLI},
	"schema":      {exits: exitsCLI},
	"completion":  {exits: exitsCLI},
	"conformance": {flags: []string{"--server \"COMMAND ARGS...\"  the server to check, started as a child (split on spaces)"}, exits: []string{"0  every check passed", "1  a check failed", "2  a wrong command line"}},
	"version":     {exits: []string{"0  printed", "1  stdout could not be written"}},
	"help":        {exits: []string{"0  printed", "2  no such command"}},
}

// topicHelp is a command's help: its usage lines, then its flags, its
// environment and its exit codes; for "" (magi-code --help), every
// command's usage lines, then those of magi-code alone.
func topicHelp(command string) string {
	d := commandDetails[command]
	var b strings.Builder
	if command == "" {
		b.WriteString(usage)
	} else {
		b.WriteString(topicUsage(command))
	}
	b.WriteString("\nFlags:\n")
	for _, f := range d.flags {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	b.WriteString("  -h, --help     this help\n")
	if command != "help" && command != "version" {
		b.WriteString("\nEnvironment:\n")
		for _, e := range append(append([]string{}, commonEnv...), d.env...) {
			fmt.Fprintf(&b, "  %s\n", e)
		}
	}
	b.WriteString("\nExit codes:\n")
	for _, e := range d.exits {
		fmt.Fprintf(&b, "  %s\n", e)
	}
	return b.String()
}
