package acp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/magi-code/magi-code/acp/jsonrpc"
)

// clientFSWait bounds a wait for the client's answer to fs/read_text_file
// or fs/write_text_file; past it the agent sends $/cancel_request and the
// tool call fails.
const clientFSWait = 60 * time.Second

var (
	errClientFS      = errors.New("acp: the client's file operation failed")
	errClientTimeout = errors.New("acp: the client did not answer the file operation")
)

// clientFS routes the file tools' reads and (approved) writes through the
// client when it advertised fs.readTextFile / fs.writeTextFile: the
// editor sees its unsaved buffers and can review each edit. The workspace
// guard, the protections and the approval have decided before a call
// reaches it (tools.ClientFS).
type clientFS struct {
	s           *session
	read, write bool
}

func (c *clientFS) ReadTextFile(ctx context.Context, path string) (string, error) {
	if !c.read {
		return "", errClientFS
	}
	m, err := c.s.a.roundTrip(ctx, mReadTextFile, marshal(obj{"sessionId": c.s.id, "path": path}))
	if err != nil {
		return "", err
	}
	var r struct {
		Content *string `json:"content"`
	}
	if json.Unmarshal(m.Result, &r) != nil || r.Content == nil {
		return "", errClientFS
	}
	return *r.Content, nil
}

func (c *clientFS) WriteTextFile(ctx context.Context, path, content string) (bool, error) {
	params := marshal(obj{"sessionId": c.s.id, "path": path, "content": content})
	if !c.write || len(params) > maxFrame-256 {
		// Not advertised, or more than one frame holds: the disk.
		return false, nil
	}
	if _, err := c.s.a.roundTrip(ctx, mWriteTextFile, params); err != nil {
		return false, err
	}
	return true, nil
}

// clientFS is the session's route to the client's file system, nil when
// the client advertised neither capability.
func (s *session) clientFS() *clientFS {
	c := s.a.caps()
	if !c.readText && !c.writeText {
		return nil
	}
	return &clientFS{s: s, read: c.readText, write: c.writeText}
}

// roundTrip sends a request to the client and waits for its answer, at
// most clientFSWait, or until ctx ends (both: $/cancel_request for it);
// an error answer is errClientFS.
func (a *Agent) roundTrip(ctx context.Context, method string, params []byte) (jsonrpc.Message, error) {
	id, ch, err := a.call(method, params)
	if err != nil {
		return jsonrpc.Message{}, err
	}
	defer a.forget(id)
	select {
	case m := <-ch:
		if m.Error != nil {
			return m, errClientFS
		}
		return m, nil
	case <-a.opts.After(clientFSWait):
		a.cancelCall(id)
		return jsonrpc.Message{}, errClientTimeout
	case <-ctx.Done():
		// The turn was cancelled: the client may stop the operation (an
		// edit waiting for review), before the prompt's answer.
		a.cancelCall(id)
		return jsonrpc.Message{}, ctx.Err()
	}
}
