package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/magi-code/magi-code/protocol"
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
}

var errUsage = errors.New("usage")

// parseArgs applies the launch rules (docs/protocol.md, Launch) to args (without the
// program name). It performs no I/O: terminal and pipe checks come after.
func parseArgs(args []string) (launch, error) {
	if len(args) == 0 {
		return launch{mode: modeInteractive}, nil
	}
	switch args[0] {
	case "serve":
		// docs/protocol.md, Launch: other launch flags cannot accompany serve.
		if len(args) == 2 && args[1] == "--stdio" {
			return launch{mode: modeServe}, nil
		}
		return launch{}, fmt.Errorf("%w: serve takes exactly --stdio", errUsage)
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
				l.provider = args[1]
			}
			return l, nil
		}
	case "logout":
		if len(args) == 2 {
			return launch{mode: modeLogout, provider: args[1]}, nil
		}
	case "model":
		switch len(args) {
		case 1:
			return launch{mode: modeModel}, nil
		case 2:
			return launch{mode: modeModel, name: args[1]}, nil
		case 3:
			return launch{mode: modeModel, provider: args[1], name: args[2]}, nil
		}
	case "--prompt":
		if len(args) == 2 {
			return launch{mode: modeInteractive, prompt: args[1]}, nil
		}
		return launch{}, fmt.Errorf("%w: --prompt takes one TEXT argument", errUsage)
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
		if len(args) == 1 {
			return launch{mode: modeSchema}, nil
		}
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
	case "help", "-h", "--help":
		if len(args) == 1 {
			return launch{mode: modeHelp}, nil
		}
	}
	return launch{}, fmt.Errorf("%w: unknown command", errUsage)
}

const usage = `magi-code: a coding-agent backend

Usage:
  magi-code                      Mission Control: the interactive session in this terminal (/help inside)
  magi-code --prompt TEXT        run one turn in this terminal (approvals asked), then exit
  magi-code --continue           reopen this directory's latest session
  magi-code resume [ID]          reopen a session of this directory (without ID: pick from a list)
  magi-code login [PROVIDER]     store an API key for openai or anthropic (asked without echo)
  magi-code logout PROVIDER      remove that provider's stored credential
  magi-code model [[PROVIDER] NAME]
                                 show, or store in the global settings, the provider and model
  magi-code serve --stdio        serve the magi-code.local-agent v1 protocol on stdin/stdout pipes
  magi-code config show          effective settings for this directory (secrets masked) and their sources
  magi-code mcp list             configured MCP servers and their approval state
  magi-code mcp approve NAME     approve server NAME as this directory's settings define it
  magi-code logs [--follow] [INSTANCE]
                                 print the latest child's diagnostic log (or INSTANCE's; --follow keeps printing)
  magi-code sessions list        stored sessions: id, last activity, size, workspace
  magi-code sessions prune       delete sessions idle for session_retention_days (default 30; 0 never)
  magi-code schema               print the JSON Schema of every protocol frame (draft 2020-12)
  magi-code conformance --server "COMMAND ARGS..."
                                 check any server of the protocol with the conformance kit
`
