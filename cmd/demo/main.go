// Command demo runs a short, real magi-code session against the built-in
// offline fixture provider, in a temporary MC_HOME, and prints what a
// frontend would show: readiness, a streamed reply, a tool call that asks
// for approval, the answer, the tool's activity, and the history replayed
// through history.page. `make demo` runs it; no account is needed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/console"
)

func main() {
	bin := flag.String("bin", "bin/magi-code", "the magi-code binary")
	flag.Parse()
	abs, err := filepath.Abs(*bin)
	if err == nil {
		err = run(abs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// script is the fixture provider's reply to each provider call of the demo.
const script = `{"responses": [
  {"steps": [
    {"text": "Let me look at the workspace "},
    {"text": "and leave a note there."},
    {"tool_call": {"name": "write_file", "arguments": {"path": "NOTES.md", "content": "# Notes\nmagi-code was here.\n"}}}
  ]},
  {"steps": [
    {"reasoning_summary": "The note is written; check it."},
    {"tool_call": {"name": "read_file", "arguments": {"path": "NOTES.md"}}}
  ]},
  {"steps": [
    {"text": "Done: NOTES.md now says that magi-code was here. "},
    {"text": "Ask me for anything else."}
  ]}
]}`

func run(bin string) error {
	root, err := os.MkdirTemp("", "magi-code-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	home, work := filepath.Join(root, "home"), filepath.Join(root, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	scriptPath := filepath.Join(root, "script.json")
	settings := fmt.Sprintf("provider = \"fixture\"\nmodel = \"fixture-model\"\n\n[providers.fixture]\nscript = %q\n\n[tools]\napproval = \"ask\"\n", scriptPath)
	if err := os.WriteFile(scriptPath, []byte(script), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte(settings), 0o600); err != nil {
		return err
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Start(ctx, client.Options{Bin: bin, Dir: work,
		Env: []string{"MC_HOME=" + home, "HOME=" + root, "PATH=" + os.Getenv("PATH")}})
	if err != nil {
		return err
	}
	defer c.Kill()

	section("initialize")
	resp, err := call(ctx, c, "initialize", map[string]any{"required_capabilities": []string{"status", "shutdown", "session.create", "turn.start", "history.page"}})
	if err != nil {
		return err
	}
	var init struct {
		Status struct{ State, Readiness, Provider, Model string } `json:"status"`
	}
	_ = json.Unmarshal(resp.Result, &init)
	fmt.Printf("backend %s/%s is %s (%s)\n", init.Status.Provider, init.Status.Model, init.Status.Readiness, init.Status.State)

	section("session.create")
	resp, err = call(ctx, c, "session.create", map[string]any{})
	if err != nil {
		return err
	}
	var sess struct {
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal(resp.Result, &sess)
	fmt.Printf("session %s (not durable until the first input is persisted)\n", sess.SessionID)

	prompt := "Please leave a note in this workspace."
	section("turn.start")
	fmt.Printf("you> %s\n", prompt)
	resp, err = call(ctx, c, "turn.start", map[string]any{"session_id": sess.SessionID, "prompt": prompt})
	if err != nil {
		return err
	}
	var turn struct {
		RunID string `json:"run_id"`
	}
	_ = json.Unmarshal(resp.Result, &turn)

	revision, _, err := console.Show(ctx, c, os.Stdout, sess.SessionID, turn.RunID, func(string) bool {
		fmt.Println("  you> allow")
		return true
	})
	if err != nil {
		return err
	}
	if revision == "" {
		return fmt.Errorf("run finished without a history revision")
	}

	section("history.page")
	cursor := any(nil)
	for {
		resp, err = call(ctx, c, "history.page", map[string]any{"session_id": sess.SessionID, "revision": revision, "cursor": cursor})
		if err != nil {
			return err
		}
		var page struct {
			Entries []struct {
				Kind, Text string
				Partial    bool
				Part       int
				LastPart   bool `json:"last_part"`
			} `json:"entries"`
			NextCursor *string `json:"next_cursor"`
			Complete   bool    `json:"complete"`
		}
		if err := json.Unmarshal(resp.Result, &page); err != nil {
			return err
		}
		for _, e := range page.Entries {
			fmt.Printf("  %-18s %s\n", e.Kind, oneLine(e.Text))
		}
		if page.NextCursor == nil {
			fmt.Printf("  (complete=%v)\n", page.Complete)
			break
		}
		cursor = *page.NextCursor
	}
	if data, err := os.ReadFile(filepath.Join(work, "NOTES.md")); err == nil {
		fmt.Printf("\nworkspace NOTES.md:\n%s", data)
	}

	section("shutdown")
	if _, err := call(ctx, c, "shutdown", map[string]any{}); err != nil {
		return err
	}
	code, stderr, err := c.Wait()
	if err != nil {
		return err
	}
	fmt.Printf("child exited with code %d, %d bytes on stderr\n", code, len(stderr))
	if code != 0 {
		return fmt.Errorf("child exit code %d", code)
	}
	return nil
}

func call(ctx context.Context, c *client.Client, method string, params any) (*client.Response, error) {
	resp, err := c.Call(ctx, method, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: error %s", method, resp.Error.Code)
	}
	return resp, nil
}

func section(name string) { fmt.Printf("\n== %s\n", name) }

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ⏎ ")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}
