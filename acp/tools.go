package acp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner"
)

// Bounds of a tool call's parts in its frames, once JSON-escaped; a frame
// that still exceeds the output bound is rebuilt with each halved.
const (
	titleEscBytes  = 8 << 10
	inputEscBytes  = 8 << 10
	outputEscBytes = 24 << 10
	diffEscBytes   = 12 << 10
)

// toolState is one tool call as the client sees it.
type toolState struct {
	id       string // toolCallId
	name     string // the tool's name (runner.UnknownToolName for a made-up one)
	kind     string
	title    string  // the exact command or path, redacted
	command  string  // the exact command or path, unredacted
	input    any     // the arguments, redacted (nil when none or too long)
	location string  // absolute path, "" when none
	line     int     // the location's 1-based line, 0 when none
	diff     *diffOf // edit tools: the change
	status   string  // pending, in_progress, completed, failed
	nested   bool    // a call inside run_code or a subagent

	// terminal: the call's output goes live to the client's display-only
	// terminal (Zed's _meta.terminal_output), whose ID is the call's.
	// exited: the command ended and said how (exitCode -1: it did not
	// exit by itself; signal "" when no signal ended it).
	terminal bool
	exited   bool
	exitCode int
	signal   string
}

type diffOf struct{ path, old, new string }

// toolCallID is the toolCallId of a provider's call ID, the same live and
// on session/load: the ID itself when it is a plain ID, else a digest.
func toolCallID(callID string) string {
	if history.ValidID(callID) && !redact.Contains(callID) {
		return callID
	}
	sum := sha256.Sum256([]byte(callID))
	return "call-" + hex.EncodeToString(sum[:12])
}

// kindOf is the ACP tool kind of a tool name.
func kindOf(name string) string {
	switch name {
	case "read_file", "list_dir":
		return "read"
	case "write_file", "edit_file":
		return "edit"
	case "grep":
		return "search"
	case "shell":
		return "execute"
	case "task":
		return "think"
	}
	return "other"
}

// describe fills a tool call's title, input, location and diff from its
// name and arguments: the exact command or path (absolute), redacted.
func describe(ts *toolState, cwd string, args []byte) {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		m = nil
	}
	str := func(k string) string {
		v, _ := m[k].(string)
		return v
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(cwd, p)
	}
	switch ts.name {
	case "shell":
		ts.command = str("command")
	case "read_file", "write_file", "edit_file", "list_dir":
		ts.location = abs(cmpOr(str("path"), "."))
		ts.command = ts.location
		if ts.name == "read_file" {
			ts.line = 1 // read_file always reads from the file's start
		}
	case "grep":
		ts.command = str("pattern")
		if p := str("path"); p != "" {
			ts.location = abs(p)
			ts.command += " in " + ts.location
		}
	}
	switch ts.name {
	case "write_file":
		ts.diff = &diffOf{path: ts.location, new: str("content")}
	case "edit_file":
		ts.diff = &diffOf{path: ts.location, old: str("old"), new: str("new")}
	}
	if ts.command == "" {
		ts.command = ts.name
	}
	ts.title = redact.String(ts.command)
	if m != nil {
		ts.input = redactValue(m)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// redactValue redacts every string of a decoded JSON value.
func redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return redact.String(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[redact.String(k)] = redactValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(e)
		}
		return out
	}
	return v
}

// fields is the tool call's update fields, within budgets scaled by 1/div.
func (ts *toolState) fields(div int, withInput bool) obj {
	u := obj{"toolCallId": ts.id, "title": fitText(ts.title, titleEscBytes/div), "kind": ts.kind, "status": ts.status}
	// A location names a file the client may open: a path that holds a
	// secret, or that the frame cannot carry whole, is left out (a
	// redacted or cut path names no file).
	if ts.location != "" && !redact.Contains(ts.location) && jsonenc.EscapedLen(ts.location) <= titleEscBytes/div {
		loc := obj{"path": ts.location}
		if ts.line > 0 {
			loc["line"] = ts.line
		}
		u["locations"] = []obj{loc}
	}
	if withInput && ts.input != nil {
		if b := marshal(ts.input); len(b) <= inputEscBytes/div {
			u["rawInput"] = ts.input
		}
	}
	return u
}

// toolFrame builds a tool_call or tool_call_update frame with extra
// content and _meta, halving every budget until the frame fits the output
// bound.
func (k *sink) toolFrame(kind string, ts *toolState, content func(div int) []obj, meta obj) []byte {
	var frame []byte
	for div := 1; div <= 64; div *= 2 {
		u := ts.fields(div, kind == "tool_call")
		u["sessionUpdate"] = kind
		if content != nil {
			if c := content(div); len(c) > 0 {
				u["content"] = c
			}
		}
		if meta != nil {
			u["_meta"] = meta
		}
		frame = k.s.a.notify(k.s.id, u)
		if len(frame) <= maxFrame {
			return frame
		}
	}
	return frame
}

const maxFrame = 65536

// ToolStarted stores the call and sends tool_call, pending: it may yet ask
// for permission.
func (k *sink) ToolStarted(activityID, name, summary string, call runner.ToolCall) error {
	k.complete(false)
	_ = k.log.ToolCall(activityID, call.ID, call.Name, string(call.Arguments))
	_ = k.log.Append(history.Record{Type: history.TypeActivity, ActivityID: activityID, Kind: runner.KindTool,
		State: runner.StateStarted, Name: activityName(name), Summary: redact.Summary(summary, 1024)})
	ts := &toolState{id: toolCallID(call.ID), name: activityName(name), status: "pending"}
	ts.kind = kindOf(ts.name)
	describe(ts, k.s.cwd, call.Arguments)
	// A command's output goes live to a display-only terminal when the
	// client shows one (Zed's terminal _meta): the call's content is the
	// terminal from the start, as Zed creates it from terminal_info.
	var content func(int) []obj
	var meta obj
	if ts.kind == "execute" && k.s.a.caps().terminalOutput {
		ts.terminal = true
		content = func(int) []obj { return terminalContent(ts) }
		meta = obj{"terminal_info": obj{"terminal_id": ts.id, "cwd": redact.String(k.s.cwd)}}
	}
	k.mu.Lock()
	k.calls[activityID] = ts
	k.current = ts
	k.mu.Unlock()
	return k.send(k.toolFrame("tool_call", ts, content, meta))
}

func terminalContent(ts *toolState) []obj {
	return []obj{{"type": "terminal", "terminalId": ts.id}}
}

// ToolOutput implements runner.OutputSink: a part of a running command's
// output (redacted and bounded by the runner) goes to the call's terminal
// as _meta.terminal_output. Without a terminal the output is sent once,
// bounded, when the call finishes.
func (k *sink) ToolOutput(activityID, text string) error {
	k.mu.Lock()
	ts := k.calls[activityID]
	k.mu.Unlock()
	if ts == nil || !ts.terminal {
		return nil
	}
	return k.send(k.s.a.notify(k.s.id, obj{"sessionUpdate": "tool_call_update", "toolCallId": ts.id,
		"_meta": obj{"terminal_output": obj{"terminal_id": ts.id, "data": text}}}))
}

// ToolExited implements runner.OutputSink: how the command ended, for the
// terminal_exit of the call's last update.
func (k *sink) ToolExited(activityID string, code int, signal string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if ts := k.calls[activityID]; ts != nil {
		ts.exited, ts.exitCode, ts.signal = true, code, signal
	}
}

// ToolLine implements runner.LineSink: the first line an edit changed,
// the line of the call's location in its final update.
func (k *sink) ToolLine(activityID string, line int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if ts := k.calls[activityID]; ts != nil {
		ts.line = line
	}
}

// The sink gives an edit's location its line.
var _ runner.LineSink = (*sink)(nil)

// ToolRunning implements runner.RunningSink: in_progress.
func (k *sink) ToolRunning(activityID string) {
	k.mu.Lock()
	ts := k.calls[activityID]
	k.mu.Unlock()
	if ts == nil {
		return
	}
	ts.status = "in_progress"
	_ = k.send(k.toolFrame("tool_call_update", ts, nil, nil))
}

// ToolFinished stores the result and sends the final status with the
// content: the diff of an edit that ran, else the result as one bounded
// text block (command output), redacted.
func (k *sink) ToolFinished(activityID, name, summary, result string, isError, failed bool) error {
	k.mu.Lock()
	ts := k.calls[activityID]
	delete(k.calls, activityID)
	if k.current == ts {
		k.current = nil
	}
	k.mu.Unlock()
	_ = k.log.ToolResult(activityID, name, result, isError)
	state := runner.StateCompleted
	if failed {
		state = runner.StateFailed
	}
	_ = k.log.Append(history.Record{Type: history.TypeActivity, ActivityID: activityID, Kind: runner.KindTool,
		State: state, Name: activityName(name), Summary: redact.Summary(summary, 1024)})
	if ts == nil {
		return nil
	}
	ts.status = "completed"
	if failed {
		ts.status = "failed"
	}
	if ts.terminal && ts.exited {
		// The output went to the terminal; its content stays the terminal.
		var code, signal any
		if ts.exitCode >= 0 {
			code = ts.exitCode
		}
		if ts.signal != "" {
			signal = ts.signal
		}
		return k.send(k.toolFrame("tool_call_update", ts, func(int) []obj { return terminalContent(ts) },
			obj{"terminal_exit": obj{"terminal_id": ts.id, "exit_code": code, "signal": signal}}))
	}
	// A command that never ran (refused, denied) says why in a text block
	// that replaces the terminal.
	return k.send(k.toolFrame("tool_call_update", ts, func(div int) []obj {
		return resultContent(ts, result, failed, div)
	}, nil))
}

// resultContent is a finished call's content: the diff of an edit that
// ran, else its result text (bounded, redacted).
func resultContent(ts *toolState, result string, failed bool, div int) []obj {
	if ts.diff != nil && !failed {
		d := obj{"type": "diff", "path": fitText(redact.String(ts.diff.path), titleEscBytes/div),
			"newText": fitText(redact.String(ts.diff.new), diffEscBytes/div)}
		if ts.name == "edit_file" {
			d["oldText"] = fitText(redact.String(ts.diff.old), diffEscBytes/div)
		} else {
			d["oldText"] = nil
		}
		return []obj{d}
	}
	if result == "" {
		return nil
	}
	text := fitText(redact.String(result), outputEscBytes/div)
	return []obj{{"type": "content", "content": obj{"type": "text", "text": text}}}
}

// The sink shows command output live.
var _ runner.OutputSink = (*sink)(nil)

// Activity implements runner.Sink: a call inside run_code or a subagent
// is a tool call of its own (title: its name), a subagent one of kind
// think; a compaction is stored only.
func (k *sink) Activity(activityID, kind, name, state, summary string) error {
	k.complete(false)
	_ = k.log.Append(history.Record{Type: history.TypeActivity, ActivityID: activityID, Kind: kind, State: state,
		Name: activityName(name), Summary: redact.Summary(summary, 1024)})
	if kind == runner.KindCompaction {
		return k.compaction(activityID, state)
	}
	k.mu.Lock()
	ts := k.calls[activityID]
	if ts == nil {
		ts = &toolState{id: toolCallID(activityID), name: activityName(name), nested: true}
		ts.kind = kindOf(ts.name)
		if kind == runner.KindSubagent {
			ts.kind = "think"
		}
		ts.title, ts.command = ts.name, ts.name
		k.calls[activityID] = ts
		k.current = ts
	}
	frameKind := "tool_call_update"
	switch state {
	case runner.StateStarted:
		frameKind, ts.status = "tool_call", "in_progress"
	case runner.StateCompleted:
		ts.status = "completed"
	default:
		ts.status = "failed"
	}
	if state != runner.StateStarted {
		delete(k.calls, activityID)
		if k.current == ts {
			k.current = nil
		}
	}
	k.mu.Unlock()
	return k.send(k.toolFrame(frameKind, ts, nil, nil))
}

// activityName is the name a tool shows: the runner's (a plain ID) or
// runner.UnknownToolName for a name the model made up.
func activityName(name string) string {
	if history.ValidID(name) && !redact.Contains(name) && !strings.ContainsAny(name, "\n\r") {
		return name
	}
	return runner.UnknownToolName
}

// compaction sends compaction_update when the client advertised
// session.compaction: in_progress when the runner starts summarising,
// then completed or failed (a failed compaction leaves the run going on
// uncompacted). Without the capability nothing is sent; history keeps it.
func (k *sink) compaction(activityID, state string) error {
	if !k.s.a.caps().compaction {
		return nil
	}
	status := "in_progress"
	switch state {
	case runner.StateCompleted:
		status = "completed"
	case runner.StateFailed:
		status = "failed"
	}
	return k.update(obj{"sessionUpdate": "compaction_update", "compactionId": toolCallID(activityID), "status": status})
}
