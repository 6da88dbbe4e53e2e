package acp

import (
	"encoding/base64"
	"path/filepath"
	"strconv"
	"time"

	"github.com/magi-code/magi-code/acp/jsonrpc"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner"
)

// replay sends the stored session as updates, on the ordered edge, before
// load's answer: user messages and agent messages with their stored
// message IDs, provider reasoning summaries, and tool calls with their
// final status, each frame within the output bound. It streams the file
// from its start (Attachment.Walk), the part before a compaction
// included, holding only the open messages' redaction streams and the
// open tool calls: memory stays bounded however long the session. A
// reply stored in chunks is redacted across them, as it streamed.
func (s *session) replay() error {
	k := &sink{s: s, t: &turn{cancel: func(error) {}}}
	type key struct{ run, msg string }
	streams := map[key]*redact.Stream{} // assistant messages with chunks and no completion yet
	calls := map[string]*toolState{}    // tool calls without a result yet, by call ID
	var order []string                  // their call IDs, in order
	var err error
	i := 0
	code := s.att.Walk(func(r *history.Record) protocol.Code {
		i++
		switch r.Type {
		case history.TypeInput:
			err = k.text("user_message_chunk", messageID(r.MessageID, r.RunID, i), redact.String(r.Text))
		case history.TypeAssistantChunk:
			if r.Text == "" {
				break // a marker of where the segment began: its completion holds the text
			}
			kk := key{r.RunID, r.MessageID}
			st := streams[kk]
			if st == nil {
				st = &redact.Stream{}
				streams[kk] = st
			}
			if safe := st.Push(r.Text); safe != "" {
				err = k.text("agent_message_chunk", messageID(r.MessageID, r.RunID, i), safe)
			}
		case history.TypeAssistant:
			kk := key{r.RunID, r.MessageID}
			if st := streams[kk]; st != nil {
				delete(streams, kk)
				if rest := st.Flush(); rest != "" {
					err = k.text("agent_message_chunk", messageID(r.MessageID, r.RunID, i), rest)
				}
			} else if r.HasText && r.Text != "" {
				err = k.text("agent_message_chunk", messageID(r.MessageID, r.RunID, i), redact.String(r.Text))
			}
		case history.TypeReasoningSummary:
			if r.ProviderSummary && r.Text != "" {
				err = k.text("agent_thought_chunk", messageID(r.ID, r.RunID, i), redact.String(r.Text))
			}
		case history.TypeToolCall:
			ts := &toolState{id: toolCallID(r.CallID), name: activityName(r.Name), status: "in_progress"}
			ts.kind = kindOf(ts.name)
			describe(ts, s.cwd, []byte(r.Arguments))
			if _, open := calls[r.CallID]; !open && len(calls) < maxOpenReplayCalls {
				calls[r.CallID] = ts
				order = append(order, r.CallID)
			}
			err = k.send(k.toolFrame("tool_call", ts, nil, nil))
		case history.TypeToolResult:
			ts := calls[r.CallID]
			if ts == nil {
				break
			}
			delete(calls, r.CallID)
			ts.status = "completed"
			if r.IsError {
				ts.status = "failed"
			}
			result, failed := r.Text, r.IsError
			err = k.send(k.toolFrame("tool_call_update", ts, func(div int) []obj { return resultContent(ts, result, failed, div) }, nil))
		}
		if err != nil {
			return protocol.CodeOutputUnavailable
		}
		return ""
	})
	if code != "" {
		return errOutput
	}
	// What never completed: a reply cut by a crash, calls without a
	// result (the run stopped before it): failed.
	for kk, st := range streams {
		if rest := st.Flush(); rest != "" {
			if err := k.text("agent_message_chunk", messageID(kk.msg, kk.run, 0), rest); err != nil {
				return err
			}
		}
	}
	for _, id := range order {
		if ts := calls[id]; ts != nil {
			ts.status = "failed"
			if err := k.send(k.toolFrame("tool_call_update", ts, nil, nil)); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxOpenReplayCalls bounds the tool calls a replay holds open at once
// (a run has at most protocol.RunActivityIDs).
const maxOpenReplayCalls = 4096

// messageID is a stored message's ID, or one derived from its place for
// a record stored without one.
func messageID(id, runID string, i int) string {
	if history.ValidID(id) {
		return id
	}
	return "m-" + runID + "-" + strconv.Itoa(i)
}

// sessionList lists the stored sessions of a cwd (all when none is given),
// most recent first, ListPageSessions per page; the cursor is opaque.
func (a *Agent) sessionList(m jsonrpc.Message) {
	var p struct {
		Cwd    *string `json:"cwd"`
		Cursor *string `json:"cursor"`
	}
	if len(m.Params) > 0 && !decode(m.Params, &p) {
		a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
		return
	}
	start := 0
	if p.Cursor != nil {
		b, err := base64.RawURLEncoding.DecodeString(*p.Cursor)
		n, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || n < 0 || len(*p.Cursor) > 64 {
			a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
			return
		}
		start = n
	}
	env := a.opts.Env
	env.Logf = a.opts.Logf
	dir, err := runner.SessionsDir(env)
	var list []history.SessionInfo
	if err == nil {
		list, err = history.List(dir)
	}
	if err != nil {
		a.respondError(m.ID, jsonrpc.CodeInternalError, protocol.CodeSessionInvalid)
		return
	}
	want := ""
	if p.Cwd != nil && *p.Cwd != "" {
		want = realPath(*p.Cwd)
	}
	var sessions []obj
	next, size, seen := "", 0, 0
	for _, info := range list {
		if info.Cwd == "" || (want != "" && info.Cwd != want && info.Cwd != *p.Cwd) {
			continue
		}
		if seen++; seen <= start {
			continue
		}
		e := obj{"sessionId": info.ID, "cwd": fitText(info.Cwd, 4096), "updatedAt": info.LastActivity.UTC().Format(time.RFC3339)}
		if t := firstLine(history.FirstInput(dir, info.ID)); t != "" {
			e["title"] = fitText(oneLine(redact.String(cutRunes(t, 1024))), 256)
		}
		// A page ends at ListPageSessions, or before the entry that
		// would take its frame past the output bound.
		n := len(marshal(e)) + 1
		if len(sessions) == ListPageSessions || size+n > listPageBytes {
			next = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(seen - 1)))
			break
		}
		size += n
		sessions = append(sessions, e)
	}
	out := obj{"sessions": emptyIfNil(sessions)}
	if next != "" {
		out["nextCursor"] = next
	}
	a.respond(m.ID, marshal(out))
}

// listPageBytes bounds a session/list page's entries, leaving room for
// the envelope and the cursor within the output bound.
const listPageBytes = maxFrame - 1024

// realPath is p with its symlinks resolved, or p.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func emptyIfNil(s []obj) []obj {
	if s == nil {
		return []obj{}
	}
	return s
}
