package main

import (
	"errors"
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	cases := []struct {
		args []string
		want mode
	}{
		{[]string{"serve", "--stdio"}, modeServe},
		{nil, modeInteractive},
		{[]string{"--prompt", "hi"}, modeInteractive},
		{[]string{"config", "show"}, modeConfigShow},
		{[]string{"mcp", "list"}, modeMCPList},
		{[]string{"mcp", "approve", "x"}, modeMCPApprove},
		{[]string{"schema"}, modeSchema},
		{[]string{"conformance", "--server", "x serve --stdio"}, modeConformance},
		{[]string{"logs"}, modeLogs},
		{[]string{"logs", "--follow"}, modeLogs},
		{[]string{"logs", "0c9137b8-23d5-4347-867f-7020bd347cf2", "--follow"}, modeLogs},
		{[]string{"logs", "--follow", "--follow"}, 0},
		{[]string{"logs", "a", "b"}, 0},
		{[]string{"logs", "../x"}, 0},
		{[]string{"schema", "--json"}, 0},
		{[]string{"conformance"}, 0},
		{[]string{"conformance", "--server"}, 0},
		{[]string{"conformance", "--server", ""}, 0},
		{[]string{"--continue"}, modeInteractive},
		{[]string{"resume"}, modeInteractive},
		{[]string{"resume", "0f8fad5b-d9cb-469f-a165-70867728950e"}, modeInteractive},
		{[]string{"login"}, modeLogin},
		{[]string{"login", "openai"}, modeLogin},
		{[]string{"logout", "openai"}, modeLogout},
		{[]string{"model"}, modeModel},
		{[]string{"model", "gpt-x"}, modeModel},
		{[]string{"model", "openai", "gpt-x"}, modeModel},
		{[]string{"logout"}, 0},
		{[]string{"login", "a", "b"}, 0},
		{[]string{"--continue", "x"}, 0},
		{[]string{"serve"}, 0},
		{[]string{"serve", "--stdio", "--verbose"}, 0},
		{[]string{"serve", "--verbose", "--stdio"}, 0},
		{[]string{"serve", "--stdio=true"}, 0},
		{[]string{"--app"}, 0},
		{[]string{"daemon"}, 0},
		{[]string{"--prompt"}, 0},
		{[]string{"--prompt", ""}, 0},
		{[]string{"--prompt", " \n\t"}, 0},
		{[]string{"bogus"}, 0},
		{[]string{"version"}, modeVersion},
		{[]string{"--version"}, modeVersion},
		{[]string{"version", "x"}, 0},
		{[]string{"model", "--help"}, modeHelp},
		{[]string{"model", "-h"}, modeHelp},
		{[]string{"help", "sessions"}, modeHelp},
		{[]string{"help", "nosuch"}, 0},
		{[]string{"model", "a b"}, 0},
		{[]string{"model", "-x"}, 0},
		{[]string{"model", "bo gus", "m"}, 0},
		{[]string{"logout", "fo/o"}, 0},
		{[]string{"login", "../foo"}, 0},
		{[]string{"sessions"}, 0},
		{[]string{"mcp"}, 0},
	}
	for _, c := range cases {
		l, err := parseArgs(c.args)
		if c.want == 0 {
			if !errors.Is(err, errUsage) {
				t.Errorf("parseArgs(%q) = %v, %v; want usage error", c.args, l, err)
			}
			continue
		}
		if err != nil || l.mode != c.want {
			t.Errorf("parseArgs(%q) = %v, %v; want mode %v", c.args, l, err, c.want)
		}
	}
}

// --help names every way in, the terminal modes included.
func TestUsageNamesEveryMode(t *testing.T) {
	for _, want := range []string{"magi-code                ", "--prompt TEXT", "--continue", "resume [ID]", "login [PROVIDER]", "logout PROVIDER", "model [[PROVIDER] NAME]", "serve --stdio", "config show", "mcp list", "mcp approve NAME", "version", "help [COMMAND]"} {
		if !strings.Contains(usage, want) {
			t.Errorf("usage lacks %q:\n%s", want, usage)
		}
	}
}
