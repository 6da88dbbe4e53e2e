package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/magi-code/magi-code/client/human"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/runner/config"
)

// cli runs the small terminal commands for people: schema, conformance,
// config show, mcp list, mcp approve NAME. They read settings like a normal run and never print
// secrets.
func cli(l launch) int {
	switch l.mode {
	case modeSchema:
		// The checked-in protocol/schema.json, embedded: nothing is built.
		if _, err := os.Stdout.WriteString(protocol.Schema); err != nil {
			return 1
		}
		return 0
	case modeSchemaSettings:
		if _, err := os.Stdout.Write(config.SettingsSchema()); err != nil {
			return 1
		}
		return 0
	case modeCompletion:
		if _, err := os.Stdout.WriteString(completionScript(l.words[0])); err != nil {
			return 1
		}
		return 0
	case modeComplete:
		return completeMain(l.words, completionSources(runner.ProcessEnv()))
	case modeConformance:
		return conformanceMain(l.server)
	case modeLogs:
		return logsMain(runner.ProcessEnv(), l.name, l.follow)
	}
	env := runner.ProcessEnv()
	switch l.mode {
	case modeConfigShow:
		d, err := config.Describe(env)
		if err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: config show:", err)
			return 1
		}
		// Paths, skill names and instructions come from the workspace: shown,
		// never obeyed by the terminal (human.Printable).
		fmt.Print(human.Printable(d.Text()))
		if d.Readiness != "" {
			fmt.Printf("# that is: %s\n", human.Readiness(string(d.Readiness)))
		}
		if dir, err := env.LogDir(); err == nil {
			fmt.Printf("log directory: %s\n", dir)
		}
		if w := buildWarning(); w != "" {
			fmt.Println(w)
		}
		if settingsBroken(d.Readiness) {
			return 1
		}
	case modeMCPList:
		list, err := config.ListMCP(env)
		if err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: mcp list:", err)
			return 1
		}
		if len(list) == 0 {
			fmt.Println("no MCP servers configured; [mcp_servers.NAME] in settings.toml adds one")
			break
		}
		fmt.Print(human.Printable(config.MCPText(list)))
	case modeSessionsList:
		list, err := runner.ListSessions(env)
		var sessions []human.Session
		if err == nil {
			sessions, err = humanSessions(env, list)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: sessions list:", err)
			return 1
		}
		fmt.Println(human.Sessions(sessions, time.Local))
	case modeSessionsPrune:
		removed, days, err := runner.PruneSessions(env, time.Now())
		for _, s := range removed {
			fmt.Printf("removed %s\n", sessionLine(s))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: sessions prune:", err)
			return 1
		}
		if days == 0 {
			fmt.Println("session_retention_days = 0: pruning is disabled")
		} else {
			fmt.Printf("removed %s idle for %s or more\n", plural(len(removed), "session"), plural(days, "day"))
		}
	case modeMCPApprove:
		bound, err := config.Approve(env, l.name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: mcp approve:", err)
			return 1
		}
		fmt.Printf("approved MCP server %s for this workspace\n", l.name)
		// The files bound, and where a link leads, are the workspace's.
		fmt.Print(human.Printable(config.BindingText(bound)))
	}
	return 0
}

// humanSessions is the listing's data of sessions: everything stored,
// the first prompt read from each session file (bounded by the history
// store).
func humanSessions(env runner.Env, list []history.SessionInfo) ([]human.Session, error) {
	dir, _, err := config.Retention(config.Env(env))
	if err != nil {
		return nil, err
	}
	out := make([]human.Session, 0, len(list))
	for _, s := range list {
		out = append(out, human.Session{ID: s.ID, LastActivity: s.LastActivity, Size: s.Size, Cwd: s.Cwd,
			FirstPrompt: history.FirstInput(dir, s.ID)})
	}
	return out, nil
}

// sessionLine is one session of the prune report: the listing's line
// without its header.
func sessionLine(s history.SessionInfo) string {
	text := human.Sessions([]human.Session{{ID: s.ID, LastActivity: s.LastActivity, Size: s.Size, Cwd: s.Cwd}}, time.Local)
	_, line, _ := strings.Cut(text, "\n")
	return line
}

// completionSources are the dynamic candidates of completion: the IDs of
// this directory's sessions, newest first, and the names of the MCP
// servers its settings define. Any error leaves them out.
func completionSources(env runner.Env) completionSource {
	return completionSource{
		sessions: func() []string {
			list, err := runner.ListSessions(env)
			if err != nil {
				return nil
			}
			slices.SortFunc(list, func(a, b history.SessionInfo) int { return b.LastActivity.Compare(a.LastActivity) })
			// Session headers hold the canonical cwd.
			cwd, err := filepath.EvalSymlinks(env.Cwd)
			if err != nil {
				cwd = env.Cwd
			}
			var ids []string
			for _, s := range list {
				if s.Cwd == cwd || s.Cwd == env.Cwd {
					ids = append(ids, s.ID)
				}
			}
			return ids
		},
		servers: func() []string {
			list, err := config.ListMCP(config.Env(env))
			if err != nil {
				return nil
			}
			var names []string
			for _, m := range list {
				names = append(names, m.Name)
			}
			return names
		},
	}
}

// settingsBroken reports whether config show's readiness says the files
// themselves are wrong (a setting, or the selected agent profile): then it
// exits 1 after printing what it could. A missing credential or an MCP
// server that cannot start is not a broken file: exit 0.
func settingsBroken(readiness protocol.Code) bool {
	return readiness == protocol.CodeConfigurationInvalid || readiness == protocol.CodeProfileInvalid
}
