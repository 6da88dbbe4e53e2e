package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/console"
	"github.com/magi-code/magi-code/runner"
)

// interactive is the terminal mode for people: it runs the serve pipeline
// in this process (connect) and drives it through the protocol like any
// frontend would, so the terminal and Ma-gi exercise the one protocol path. With a prompt it runs
// one turn; without, it reads prompts line by line. Ctrl-C cancels the
// running turn; /quit or EOF ends the session.
func interactive(prompt string) int {
	// Retention: the interactive CLI prunes sessions idle for
	// session_retention_days (serve never does).
	pruneSessions()
	ctx := context.Background()
	c, end := connect(client.Options{})

	call := func(method string, params any) (json.RawMessage, bool) {
		resp, err := c.Call(ctx, method, params)
		switch {
		case err != nil:
			fmt.Fprintln(os.Stderr, "magi-code: the backend stopped")
			return nil, false
		case resp.Error != nil:
			fmt.Fprintf(os.Stderr, "magi-code: %s failed: %s\n", method, resp.Error.Code)
			return nil, false
		}
		return resp.Result, true
	}
	if _, ok := call("initialize", map[string]any{"required_capabilities": []string{"session.create", "turn.start", "turn.cancel", "approval.answer"}}); !ok {
		return 1
	}
	res, ok := call("session.create", map[string]any{})
	if !ok {
		return 1
	}
	var sess struct {
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal(res, &sess)

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 4096), 64<<10)
	approve := func(string) bool {
		fmt.Print("  allow? [y/N] ")
		if !in.Scan() {
			return false
		}
		a := strings.ToLower(strings.TrimSpace(in.Text()))
		return a == "y" || a == "yes"
	}
	turn := func(text string) bool {
		res, ok := call("turn.start", map[string]any{"session_id": sess.SessionID, "prompt": text})
		if !ok {
			return false
		}
		var t struct {
			RunID string `json:"run_id"`
		}
		_ = json.Unmarshal(res, &t)
		interrupts := make(chan os.Signal, 1)
		signal.Notify(interrupts, os.Interrupt)
		done, stopped := make(chan struct{}), make(chan struct{})
		go func() { // ends with the turn; waited for below
			defer close(stopped)
			select {
			case <-interrupts:
				_, _ = c.Call(ctx, "turn.cancel", map[string]any{"session_id": sess.SessionID, "run_id": t.RunID})
			case <-done:
			}
		}()
		_, _, err := console.Show(ctx, c, os.Stdout, sess.SessionID, t.RunID, approve)
		signal.Stop(interrupts)
		close(done)
		<-stopped
		return err == nil
	}

	if prompt != "" {
		ok = turn(prompt)
	} else {
		for fmt.Print("you> "); in.Scan(); fmt.Print("you> ") {
			line := strings.TrimSpace(in.Text())
			if line == "/quit" {
				break
			}
			if line != "" && !turn(line) {
				ok = false
				break
			}
		}
		fmt.Println()
	}
	_, _ = c.Call(ctx, "shutdown", map[string]any{})
	if end() != exitOK {
		ok = false
	}
	if !ok {
		return 1
	}
	return 0
}

// pruneSessions applies session_retention_days at the start of an
// interactive session. A failure is reported and the session goes on.
func pruneSessions() {
	removed, days, err := runner.PruneSessions(runner.ProcessEnv(), time.Now())
	if err != nil {
		fmt.Fprintln(os.Stderr, "magi-code: pruning old sessions:", err)
	}
	if len(removed) > 0 {
		fmt.Fprintf(os.Stderr, "magi-code: removed %d sessions idle for %d days or more\n", len(removed), days)
	}
}
