// Command demo runs a short, real magi-code session against the built-in
// offline fixture provider, in a temporary MC_HOME, and prints what a
// frontend would show. `make demo` runs it; no account is needed.
//
// Scene 1: readiness, a streamed reply, a tool call that asks for
// approval, the answer, the tool's activity, and the history replayed
// through history.page.
//
// Scene 2, in the same session and child: a call to a tool of an MCP
// server (cmd/demo-mcp, built into the temporary directory and configured
// in the global settings), then a turn whose large tool result fills the
// small context window, so that the runner compacts the conversation
// before its next provider call; the history replay shows the compaction.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

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

// script is the fixture provider's reply to each provider call of the
// demo, in order: every provider call consumes the next response,
// compaction's summarisation included.
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
  ]},

  {"steps": [
    {"text": "I'll search the team notebook."},
    {"tool_call": {"name": "mcp__notes__search_notes", "arguments": {"query": "release", "limit": 3}}}
  ]},
  {"steps": [
    {"text": "Release 0.4 is planned for Friday. The blocker is the flaky history.page test on macOS; "},
    {"text": "Ana writes the release notes and Bo tags the release once CI is green."}
  ]},

  {"steps": [
    {"tool_call": {"name": "mcp__notes__search_notes", "arguments": {"query": "standup", "limit": 200}}}
  ]},
  {"steps": [
    {"text": "The user keeps a team notebook behind the notes MCP server. NOTES.md in the workspace says magi-code was here. "},
    {"text": "Release 0.4 is planned for Friday; blocker: the flaky history.page test on macOS; Ana writes the notes, Bo tags. "},
    {"text": "Current request: sum up the standups since September. search_notes returned 91 standup lines rotating six topics: "},
    {"text": "framing fuzz findings, writer batching, history paging, the release checklist, approval expiry tests, MCP process groups. "},
    {"text": "Remaining: answer with that summary."}
  ]},
  {"steps": [
    {"text": "Three months of standups, six threads: the framing fuzz findings were reviewed with no new crashes, "},
    {"text": "the writer batches pending frames, history paging passes the 8 MiB test, approval expiry is tested at its edge, "},
    {"text": "MCP servers run in their own process group, and the release checklist came up every week."}
  ]}
]}`

// contextWindow (tokens, about 4 bytes each) is small enough that the
// standup search of scene 2 (7.4 KB) pushes the conversation past the 80%
// at which the runner compacts, before its next provider call, and large
// enough that nothing earlier does. run checks both through the history.
// When this build was written, 1100 to 3300 worked: the middle leaves
// tool descriptions about 3 KB of room to grow or shrink. To find the
// range again, run the demo with MAGI_DEMO_CONTEXT_WINDOW=N.
const contextWindow = 2200

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

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	notesServer := filepath.Join(root, "demo-mcp")
	if err := buildNotesServer(ctx, notesServer); err != nil {
		return err
	}
	scriptPath := filepath.Join(root, "script.json")
	if err := os.WriteFile(scriptPath, []byte(script), 0o600); err != nil {
		return err
	}
	// MCP servers defined in the global settings are approved.
	settings := fmt.Sprintf("provider = \"fixture\"\nmodel = \"fixture-model\"\ncontext_window = %d\n\n"+
		"[providers.fixture]\nscript = %q\n\n[tools]\napproval = \"ask\"\n\n"+
		"[mcp_servers.notes]\ncommand = %q\n", window(), scriptPath, notesServer)
	if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte(settings), 0o600); err != nil {
		return err
	}

	c, err := client.Start(ctx, client.Options{Bin: bin, Dir: work,
		Env: []string{"MC_HOME=" + home, "HOME=" + root, "PATH=" + os.Getenv("PATH")}})
	if err != nil {
		return err
	}
	defer c.Kill()
	d := &demo{ctx: ctx, c: c}

	section("initialize")
	resp, err := d.call("initialize", map[string]any{"required_capabilities": []string{"status", "shutdown", "session.create", "turn.start", "history.page"}})
	if err != nil {
		return err
	}
	var init struct {
		Status struct{ State, Readiness, Provider, Model string } `json:"status"`
	}
	_ = json.Unmarshal(resp.Result, &init)
	fmt.Printf("backend %s/%s is %s (%s), MCP server notes connected\n", init.Status.Provider, init.Status.Model, init.Status.Readiness, init.Status.State)

	section("session.create")
	resp, err = d.call("session.create", map[string]any{})
	if err != nil {
		return err
	}
	var sess struct {
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal(resp.Result, &sess)
	d.session = sess.SessionID
	fmt.Printf("session %s (not durable until the first input is persisted)\n", d.session)

	scene("scene 1: built-in tools and an approval")
	revision, err := d.turn("Please leave a note in this workspace.")
	if err != nil {
		return err
	}
	seen, err := d.history(revision, 0)
	if err != nil {
		return err
	}
	if seen.compactions != 0 {
		return errors.New("scene 1 compacted: contextWindow is too small for this build (see its comment)")
	}
	if data, err := os.ReadFile(filepath.Join(work, "NOTES.md")); err == nil {
		fmt.Printf("\nworkspace NOTES.md:\n%s", data)
	}

	scene("scene 2: an MCP tool and a compaction (same session)")
	if _, err := d.turn("What do my notes say about the release?"); err != nil {
		return err
	}
	revision, err = d.turn("Sum up the standups since September for me.")
	if err != nil {
		return err
	}
	after, err := d.history(revision, seen.entries)
	if err != nil {
		return err
	}
	if after.compactions != 1 {
		return fmt.Errorf("scene 2 made %d compactions, want 1: contextWindow no longer fits this build (see its comment)", after.compactions)
	}

	section("shutdown")
	if _, err := d.call("shutdown", map[string]any{}); err != nil {
		return err
	}
	code, stderr, err := c.Wait()
	if err != nil {
		return err
	}
	fmt.Printf("child exited with code %d, %d bytes on stderr\n", code, len(stderr))
	if code != 0 || len(stderr) != 0 {
		return fmt.Errorf("child exit code %d with %d bytes on stderr", code, len(stderr))
	}
	return nil
}

// window is contextWindow, or MAGI_DEMO_CONTEXT_WINDOW when set (to find
// the range that works after the tool set changes).
func window() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("MAGI_DEMO_CONTEXT_WINDOW"), &n); err == nil && n > 0 {
		return n
	}
	return contextWindow
}

// buildNotesServer builds cmd/demo-mcp to out, from the root of the module
// that holds the working directory (where `make demo` runs).
func buildNotesServer(ctx context.Context, out string) error {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(gomod))
	if mod == "" || mod == os.DevNull {
		return errors.New("run the demo from inside the magi-code module (it builds ./cmd/demo-mcp)")
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/demo-mcp")
	build.Dir = filepath.Dir(mod)
	if msg, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building cmd/demo-mcp: %w\n%s", err, msg)
	}
	return nil
}

// demo is the one child and session both scenes use.
type demo struct {
	ctx     context.Context
	c       *client.Client
	session string
}

func (d *demo) call(method string, params any) (*client.Response, error) {
	resp, err := d.c.Call(d.ctx, method, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: error %s", method, resp.Error.Code)
	}
	return resp, nil
}

// turn starts a turn, shows it as a frontend would (allowing every
// approval) and returns its run.finished revision.
func (d *demo) turn(prompt string) (string, error) {
	section("turn.start")
	fmt.Printf("you> %s\n", prompt)
	resp, err := d.call("turn.start", map[string]any{"session_id": d.session, "prompt": prompt})
	if err != nil {
		return "", err
	}
	var turn struct {
		RunID string `json:"run_id"`
	}
	_ = json.Unmarshal(resp.Result, &turn)
	revision, outcome, err := console.Show(d.ctx, d.c, os.Stdout, d.session, turn.RunID, func(string) bool {
		fmt.Println("  you> allow")
		return true
	})
	switch {
	case err != nil:
		return "", err
	case outcome != "completed":
		return "", fmt.Errorf("run finished %s", outcome)
	case revision == "":
		return "", errors.New("run finished without a history revision")
	}
	return revision, d.waitIdle()
}

// waitIdle polls status until the run has left it. docs/protocol.md, status: "Running state
// retains the active run ID until worker completion and event draining";
// until then turn.start and history.page answer busy, and run.finished can
// arrive a moment earlier.
func (d *demo) waitIdle() error {
	for {
		resp, err := d.call("status", map[string]any{})
		if err != nil {
			return err
		}
		var st struct{ State string }
		if err := json.Unmarshal(resp.Result, &st); err != nil {
			return err
		}
		if st.State == "idle" {
			return nil
		}
		select {
		case <-time.After(2 * time.Millisecond):
		case <-d.ctx.Done():
			return d.ctx.Err()
		}
	}
}

// replayed counts what a history replay held.
type replayed struct{ entries, compactions int }

// history pages through the history at revision and prints its entries
// from the skip-th on (the earlier ones were shown before).
func (d *demo) history(revision string, skip int) (replayed, error) {
	section("history.page")
	if skip > 0 {
		fmt.Printf("  (%d entries shown above)\n", skip)
	}
	var seen replayed
	cursor := any(nil)
	for {
		resp, err := d.call("history.page", map[string]any{"session_id": d.session, "revision": revision, "cursor": cursor})
		if err != nil {
			return seen, err
		}
		var page struct {
			Entries []struct {
				Kind, Text string
			} `json:"entries"`
			NextCursor *string `json:"next_cursor"`
			Complete   bool    `json:"complete"`
		}
		if err := json.Unmarshal(resp.Result, &page); err != nil {
			return seen, err
		}
		for _, e := range page.Entries {
			if seen.entries >= skip {
				fmt.Printf("  %-18s %s\n", e.Kind, oneLine(e.Text))
			}
			seen.entries++
			if e.Kind == "compaction" {
				seen.compactions++
			}
		}
		if page.NextCursor == nil {
			fmt.Printf("  (complete=%v)\n", page.Complete)
			return seen, nil
		}
		cursor = *page.NextCursor
	}
}

func scene(name string) { fmt.Printf("\n\n######## %s\n", name) }

func section(name string) { fmt.Printf("\n== %s\n", name) }

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ⏎ ")
	if len(s) <= 100 {
		return s
	}
	cut := 100
	for !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
