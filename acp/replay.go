package acp

import (
	"encoding/base64"
	"path/filepath"
	"strconv"
	"strings"
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

// sessionList lists the stored sessions of a cwd (all when none is given;
// a relative one is -32602), most recent first, ListPageSessions per page.
// The cursor is opaque: it names where the last page ended (that entry's
// last activity and ID), so a session created, deleted or active between
// two pages neither repeats nor hides the ones that did not change.
func (a *Agent) sessionList(m jsonrpc.Message) {
	var p struct {
		Cwd    *string `json:"cwd"`
		Cursor *string `json:"cursor"`
	}
	if len(m.Params) > 0 && !decode(m.Params, &p) {
		a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
		return
	}
	var after *listKey
	if p.Cursor != nil {
		k, ok := parseListCursor(*p.Cursor)
		if !ok {
			a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
			return
		}
		after = &k
	}
	want, wantRaw := "", ""
	if p.Cwd != nil && *p.Cwd != "" {
		if !filepath.IsAbs(*p.Cwd) {
			a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
			return
		}
		want, wantRaw = realPath(*p.Cwd), *p.Cwd
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
	sessions, next := listPage(list, want, wantRaw, after, func(id string) string {
		return firstLine(history.FirstInput(dir, id))
	})
	out := obj{"sessions": emptyIfNil(sessions)}
	if next != "" {
		out["nextCursor"] = next
	}
	a.respond(m.ID, marshal(out))
}

// listKey is where a page ended: the last entry's activity and ID, in
// history.List's order (most recent first, then by ID).
type listKey struct {
	nanos int64
	id    string
}

// before reports whether info comes after k in history.List's order.
func (k listKey) before(info history.SessionInfo) bool {
	n := info.LastActivity.UnixNano()
	return n < k.nanos || (n == k.nanos && info.ID > k.id)
}

func (k listKey) cursor() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(k.nanos, 10) + "|" + k.id))
}

// parseListCursor reads a cursor listKey.cursor made; anything else is
// not one. A cursor a client made up only moves where a page starts.
func parseListCursor(c string) (listKey, bool) {
	if len(c) > maxListCursor {
		return listKey{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return listKey{}, false
	}
	ns, id, ok := strings.Cut(string(b), "|")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || !protocol.ValidSessionID(id) || strconv.FormatInt(n, 10) != ns {
		return listKey{}, false
	}
	return listKey{nanos: n, id: id}, true
}

// maxListCursor bounds a cursor's length.
const maxListCursor = 256

// listPage is one page of list's entries of cwd want (its spelling as
// given too; "" for every cwd) after the key (nil: from the start): at
// most ListPageSessions, and no more than fit one frame; next is the
// cursor of the page after, "" when this one ends the list. title reads
// a session's first prompt line (only for the entries shown).
func listPage(list []history.SessionInfo, want, wantRaw string, after *listKey, title func(id string) string) (sessions []obj, next string) {
	size := 0
	var last *history.SessionInfo
	for i := range list {
		info := &list[i]
		if info.Cwd == "" || (want != "" && info.Cwd != want && info.Cwd != wantRaw) {
			continue
		}
		if after != nil && !after.before(*info) {
			continue
		}
		e := obj{"sessionId": info.ID, "cwd": fitText(info.Cwd, 4096), "updatedAt": info.LastActivity.UTC().Format(time.RFC3339)}
		if t := title(info.ID); t != "" {
			e["title"] = fitText(oneLine(redact.String(cutRunes(t, 1024))), 256)
		}
		// A page ends at ListPageSessions, or before the entry that
		// would take its frame past the output bound.
		n := len(marshal(e)) + 1
		if len(sessions) == ListPageSessions || size+n > listPageBytes {
			return sessions, listKey{nanos: last.LastActivity.UnixNano(), id: last.ID}.cursor()
		}
		size += n
		sessions = append(sessions, e)
		last = info
	}
	return sessions, ""
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
