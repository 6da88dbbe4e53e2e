package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/mission"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/runner/config"
)

// configuredProvider is the provider the settings name ("" for none, "?"
// when they cannot be read: not a missing choice).
func configuredProvider(env runner.Env) string {
	v, ok := settingValue(env, "provider")
	if !ok {
		return "?" // unreadable settings: not a missing choice
	}
	return v
}

// interactive runs Mission Control: the serve pipeline runs in this
// process (connect) and the terminal app drives it through the protocol
// like any frontend, so the terminal and Ma-gi exercise the one protocol
// path. With --prompt it runs one turn and exits 0 on completed, 1
// otherwise.
func interactive(l launch) int {
	// Retention: the interactive CLI prunes sessions idle for
	// session_retention_days (serve never does).
	pruneSessions()
	env := runner.ProcessEnv()
	p := &inProcessBackend{}
	opts := mission.Options{
		Cwd:          env.Cwd,
		Prompt:       l.prompt,
		Resume:       l.resume,
		Login:        func(provider, key string) error { return storeKey(env, provider, key) },
		Logout:       func(provider string) error { return logoutKey(env, provider) },
		SetModel:     func(provider, model string) error { return setModel(env, provider, model) },
		Sessions:     func() ([]mission.SessionInfo, error) { return cwdSessions(env) },
		Configured:   func() string { return configuredProvider(env) },
		ServerModels: serverModels(env),
		History:      mission.OpenHistory(filepath.Join(env.MCHome, "prompt-history.jsonl")),
		ApprovalMode: func() string {
			if mode := p.approvalMode(); mode != "" {
				return mode
			}
			v, ok := settingValue(env, "tools.approval")
			if !ok {
				return "unknown: the settings are unreadable"
			}
			return v
		},
		SetApproval:  p.setApproval,
		BuildWarning: buildWarning(),
	}
	if l.continueIt || l.resumeAsk {
		list, err := cwdSessions(env)
		if err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: sessions:", err)
			return 1
		}
		if len(list) == 0 {
			fmt.Fprintln(os.Stderr, "magi-code: no sessions in this directory")
			return 1
		}
		if l.resumeAsk {
			// The app's own picker: it draws in the app's screen, which a
			// list printed before the app starts would be garbled by.
			opts.PickSession = true
		} else {
			opts.Resume = list[0].ID
		}
	}
	p.c, p.end = connect(client.Options{}, "")
	opts.Backend, opts.Restart = p.c, p.restart
	code := mission.Run(opts, os.Stdin, os.Stdout)
	if p.close() != exitOK && code == 0 {
		code = 1
	}
	return code
}

// settingValue is the effective value of a settings key, unquoted ("" when
// unset); false when the settings are unreadable.
func settingValue(env runner.Env, key string) (string, bool) {
	d, err := config.Describe(config.Env(env))
	if err != nil {
		return "", false
	}
	for _, v := range d.Values {
		if v.Key == key {
			return strings.Trim(v.Value, `"`), true
		}
	}
	return "", true
}

// inProcessBackend is the pipeline Mission Control drives. restart replaces
// it with a new one, which reads the settings and credentials again: what
// /login and /model stored is used from the next turn, and the approval
// mode /approval chose.
type inProcessBackend struct {
	// mu guards the fields: restart runs on a Bubble Tea command's
	// goroutine, close on the main one.
	mu  sync.Mutex
	c   *client.Client
	end func() int
	// next is the approval mode /approval chose for this run ("" until
	// then: the settings'), which the next pipeline starts with; approval
	// is the one the running pipeline uses.
	next, approval string
}

// setApproval makes the next pipeline use mode (runner.Options.Approval).
func (p *inProcessBackend) setApproval(mode string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next = mode
}

// approvalMode is the mode the running pipeline uses, "" for the settings'.
func (p *inProcessBackend) approvalMode() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.approval
}

// shutdownWait bounds the shutdown request of a restart; the pipeline ends
// on EOF all the same.
const shutdownWait = 5 * time.Second

// restart shuts the pipeline down (shutdown, then EOF), waits for it to
// end, and starts a new one.
func (p *inProcessBackend) restart() (mission.Backend, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
	_, _ = p.c.Call(ctx, "shutdown", map[string]any{})
	cancel()
	p.end()
	p.approval = p.next
	p.c, p.end = connect(client.Options{}, p.approval)
	return p.c, nil
}

// close ends the pipeline and returns its exit code. It may be called
// again: it then returns the same code.
func (p *inProcessBackend) close() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	code := p.end()
	p.end = func() int { return code }
	return code
}

// cwdSessions lists the sessions whose header records this cwd, most
// recently active first.
func cwdSessions(env runner.Env) ([]mission.SessionInfo, error) {
	all, err := runner.ListSessions(env)
	if err != nil {
		return nil, err
	}
	dir, _, err := config.Retention(config.Env(env))
	if err != nil {
		return nil, err
	}
	var out []mission.SessionInfo
	for _, s := range all {
		if s.Cwd == env.Cwd {
			out = append(out, mission.SessionInfo{ID: s.ID, LastActivity: s.LastActivity, Size: s.Size,
				FirstPrompt: history.FirstInput(dir, s.ID)})
		}
	}
	return out, nil
}

// pruneSessions applies session_retention_days at the start of an
// interactive session. A failure is reported and the session goes on.
func pruneSessions() {
	removed, days, err := runner.PruneSessions(runner.ProcessEnv(), time.Now())
	if err != nil {
		fmt.Fprintln(os.Stderr, "magi-code: pruning old sessions:", err)
	}
	if len(removed) > 0 {
		fmt.Fprintf(os.Stderr, "magi-code: removed %s idle for %d days or more\n", plural(len(removed), "session"), days)
	}
}

// plural is "1 session", "2 sessions".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
