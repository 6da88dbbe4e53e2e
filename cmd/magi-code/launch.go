package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/config"
)

// mode is what a command line asks for.
type mode uint8

const (
	modeServe mode = iota + 1
	modeInteractive
	modeConfigShow
	modeMCPList
	modeMCPApprove
	modeHelp
	modeSchema
	modeConformance
	modeLogs
	modeSessionsList
	modeSessionsPrune
	modeLogin
	modeLogout
	modeModel
	modeVersion
	modeACP
	modeSchemaSettings
	modeCompletion
	modeComplete
)

// launch is a validated command line.
type launch struct {
	mode   mode
	prompt string // --prompt TEXT
	name   string // mcp approve NAME
	server string // conformance --server COMMAND
	follow bool   // logs --follow
	// Mission Control: resume ID (resume without ID asks), --continue
	// (the latest session of this cwd), model [PROVIDER] NAME.
	resume     string
	resumeAsk  bool
	continueIt bool
	provider   string
	// topic is the command whose usage help prints ("" for all).
	topic string
	// words: completion's shell, or __complete's words.
	words []string
}

var errUsage = errors.New("usage")

// parseArgs applies the launch rules (docs/protocol.md, Launch) to args (without the
// program name). It performs no I/O: terminal and pipe checks come after.
func parseArgs(args []string) (launch, error) {
	if len(args) == 0 {
		return launch{mode: modeInteractive}, nil
	}
	if l, ok, err := helpArgs(args); ok {
		return l, err
	}
	switch args[0] {
	case "serve":
		// docs/protocol.md, Launch: other launch flags cannot accompany serve.
		if len(args) == 2 && args[1] == "--stdio" {
			return launch{mode: modeServe}, nil
		}
		return launch{}, fmt.Errorf("%w: serve takes exactly --stdio", errUsage)
	case "acp":
		// Like serve: nothing may accompany it.
		if len(args) == 1 {
			return launch{mode: modeACP}, nil
		}
		return launch{}, fmt.Errorf("%w: acp takes no arguments", errUsage)
	case "--app", "daemon":
		return launch{}, fmt.Errorf("%w: %s is a legacy mode and is no longer supported", errUsage, args[0])
	case "--continue":
		if len(args) == 1 {
			return launch{mode: modeInteractive, continueIt: true}, nil
		}
	case "resume":
		switch len(args) {
		case 1:
			return launch{mode: modeInteractive, resumeAsk: true}, nil
		case 2:
			return launch{mode: modeInteractive, resume: args[1]}, nil
		}
	case "login":
		if len(args) <= 2 {
			l := launch{mode: modeLogin}
			if len(args) == 2 {
				if !config.ValidProviderName(args[1]) {
					return launch{}, errProvider
				}
				l.provider = args[1]
			}
			return l, nil
		}
	case "logout":
		if len(args) == 2 {
			if !config.ValidProviderName(args[1]) {
				return launch{}, errProvider
			}
			return launch{mode: modeLogout, provider: args[1]}, nil
		}
	case "model":
		l := launch{mode: modeModel}
		switch len(args) {
		case 1:
			return l, nil
		case 2:
			l.name = args[1]
		case 3:
			l.provider, l.name = args[1], args[2]
			if !config.ValidProviderName(l.provider) {
				return launch{}, fmt.Errorf("%w: model: the provider is one of %s, or a [providers.NAME] table's name", errUsage, strings.Join(config.BuiltinProviders(), ", "))
			}
		default:
			return launch{}, groupError("model")
		}
		if err := config.CheckModel(l.name); err != nil {
			return launch{}, fmt.Errorf("%w: model: %v", errUsage, err)
		}
		return l, nil
	case "--prompt":
		if len(args) == 2 && strings.TrimSpace(args[1]) != "" {
			return launch{mode: modeInteractive, prompt: args[1]}, nil
		}
		// A blank TEXT would open the app, as no --prompt does.
		return launch{}, fmt.Errorf("%w: --prompt takes one TEXT argument, not blank", errUsage)
	case "config":
		if len(args) == 2 && args[1] == "show" {
			return launch{mode: modeConfigShow}, nil
		}
	case "mcp":
		if len(args) == 2 && args[1] == "list" {
			return launch{mode: modeMCPList}, nil
		}
		if len(args) == 3 && args[1] == "approve" {
			return launch{mode: modeMCPApprove, name: args[2]}, nil
		}
	case "schema":
		if len(args) == 1 || len(args) == 2 && args[1] == "protocol" {
			return launch{mode: modeSchema}, nil
		}
		if len(args) == 2 && args[1] == "settings" {
			return launch{mode: modeSchemaSettings}, nil
		}
	case "completion":
		if len(args) == 2 && completionScript(args[1]) != "" {
			return launch{mode: modeCompletion, words: args[1:]}, nil
		}
	case "__complete": // hidden: the completion scripts' question
		return launch{mode: modeComplete, words: args[1:]}, nil
	case "conformance":
		if len(args) == 3 && args[1] == "--server" && args[2] != "" {
			return launch{mode: modeConformance, server: args[2]}, nil
		}
		return launch{}, fmt.Errorf("%w: conformance takes --server \"COMMAND ARGS...\"", errUsage)
	case "logs":
		l := launch{mode: modeLogs}
		for _, a := range args[1:] {
			switch {
			case a == "--follow" && !l.follow:
				l.follow = true
			case l.name == "" && !strings.HasPrefix(a, "-") && protocol.ValidID(a):
				l.name = a // the instance ID of every frame of that child
			default:
				return launch{}, fmt.Errorf("%w: logs takes [--follow] [INSTANCE]", errUsage)
			}
		}
		return l, nil
	case "sessions":
		if len(args) == 2 && args[1] == "list" {
			return launch{mode: modeSessionsList}, nil
		}
		if len(args) == 2 && args[1] == "prune" {
			return launch{mode: modeSessionsPrune}, nil
		}
	case "version", "--version":
		if len(args) == 1 {
			return launch{mode: modeVersion}, nil
		}
	}
	if topicUsage(args[0]) != "" {
		return launch{}, groupError(args[0])
	}
	return launch{}, fmt.Errorf("%w: unknown command; magi-code help lists the commands", errUsage)
}

// errProvider answers a provider name outside the grammar; whether the
// name is known is checked against the settings when the command runs.
var errProvider = fmt.Errorf("%w: the provider is a provider name (openai, anthropic, openrouter, a [providers.NAME] table's name)", errUsage)

// helpArgs recognizes a request for usage: help, -h or --help alone (all
// commands), help COMMAND, or -h or --help after any command (that
// command's usage). ok is false when args ask for something else.
func helpArgs(args []string) (l launch, ok bool, err error) {
	isHelp := func(a string) bool { return a == "-h" || a == "--help" }
	switch {
	case len(args) == 1 && (args[0] == "help" || isHelp(args[0])):
		return launch{mode: modeHelp}, true, nil
	case args[0] == "help" && len(args) == 2:
		if topicUsage(args[1]) == "" {
			return launch{}, true, fmt.Errorf("%w: no such command; magi-code help lists the commands", errUsage)
		}
		return launch{mode: modeHelp, topic: args[1]}, true, nil
	case args[0] == "help":
		return launch{}, true, fmt.Errorf("%w: help takes at most one COMMAND", errUsage)
	case slices.ContainsFunc(args[1:], isHelp) && topicUsage(args[0]) != "":
		return launch{mode: modeHelp, topic: args[0]}, true, nil
	}
	return launch{}, false, nil
}

// groupError is the answer to a command without the subcommand or
// arguments it needs: its usage lines.
func groupError(command string) error {
	return fmt.Errorf("%w: %s takes one of:\n%s", errUsage, command, strings.TrimSuffix(topicUsage(command), "\n"))
}

// topicUsage is the part of the usage text about command: its lines and
// their continuation lines; "" when usage has none.
func topicUsage(command string) string {
	if command == "" || command == "help" {
		return ""
	}
	var b strings.Builder
	in := false
	for _, line := range strings.SplitAfter(usage, "\n") {
		rest, isCommand := strings.CutPrefix(line, "  magi-code ")
		switch {
		case isCommand:
			in = strings.HasPrefix(rest, command+" ") || strings.TrimSpace(rest) == command
		case !strings.HasPrefix(line, "      "):
			in = false // not a continuation line
		}
		if in {
			b.WriteString(line)
		}
	}
	return b.String()
}

const usage = `magi-code: a coding-agent backend

Usage:
  magi-code                      Mission Control: the interactive session in this terminal (/help inside)
  magi-code --prompt TEXT        run one turn in this terminal (approvals asked), then exit
  magi-code --continue           reopen this directory's latest session
  magi-code resume [ID]          reopen a session of this directory (without ID: pick from a list)
  magi-code login [PROVIDER]     store an API key for a provider: openai, anthropic, openrouter... (asked without echo)
  magi-code logout PROVIDER      remove that provider's stored credential
  magi-code model [[PROVIDER] NAME]
                                 show, or store in the global settings, the provider and model
  magi-code serve --stdio        serve the magi-code.local-agent v1 protocol on stdin/stdout pipes
  magi-code acp                  an Agent Client Protocol v1 agent on stdin/stdout pipes, for editors (docs/acp.md)
  magi-code config show          effective settings for this directory (secrets masked) and their sources
  magi-code mcp list             configured MCP servers and their approval state
  magi-code mcp approve NAME     approve server NAME as this directory's settings define it
  magi-code logs [--follow] [INSTANCE]
                                 print the latest child's diagnostic log (or INSTANCE's; --follow keeps printing)
  magi-code sessions list        stored sessions: ID, last activity, size, workspace, first prompt
  magi-code sessions prune       delete sessions idle for session_retention_days (default 30; 0 never)
  magi-code schema [protocol]    print the JSON Schema of every protocol frame (draft 2020-12)
  magi-code schema settings      print the JSON Schema of settings.toml, for TOML editors (taplo, Even Better TOML)
  magi-code completion bash|zsh|fish
                                 print a completion script: commands, flags, providers, session IDs for resume
  magi-code conformance --server "COMMAND ARGS..."
                                 check any server of the protocol with the conformance kit
  magi-code version              the version, the source revision and the Go release of this build;
                                 a second line warns when that release lacks security fixes
  magi-code help [COMMAND]       this text, or one command's part of it (so does COMMAND --help)
`
