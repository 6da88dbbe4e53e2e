package acp

import (
	"encoding/json"
	"strings"

	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner"
)

// MaxClientMCPServers bounds the MCP servers one session/new (load,
// resume) may hand over; more is -32602.
const MaxClientMCPServers = 32

// mcpServers reads a request's mcpServers: stdio servers (command, args,
// env) and http ones (url, headers). An sse server (not advertised) is
// kept with neither command nor URL, so that it fails to start and is
// reported like any server that fails. false: not a valid list.
func mcpServers(raw []json.RawMessage) ([]runner.MCPServer, bool) {
	if len(raw) > MaxClientMCPServers {
		return nil, false
	}
	out := make([]runner.MCPServer, 0, len(raw))
	for _, r := range raw {
		var d struct {
			Type    string   `json:"type"`
			Name    string   `json:"name"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
			Env     []struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"env"`
			URL     string `json:"url"`
			Headers []struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"headers"`
		}
		if json.Unmarshal(r, &d) != nil || d.Name == "" || len(d.Name) > 64 || strings.ContainsAny(d.Name, "\x00\n\r") {
			return nil, false
		}
		s := runner.MCPServer{Name: d.Name}
		switch d.Type {
		case "http":
			if d.URL == "" {
				return nil, false
			}
			s.URL = d.URL
			s.Headers = map[string]string{}
			for _, h := range d.Headers {
				s.Headers[h.Name] = h.Value
			}
		case "":
			if d.Command == "" {
				return nil, false
			}
			s.Command, s.Args = d.Command, d.Args
			s.Env = map[string]string{}
			for _, e := range d.Env {
				s.Env[e.Name] = e.Value
			}
		}
		out = append(out, s)
	}
	return out, true
}

// mcpNotice tells the person which of the client's MCP servers did not
// start (their tools are missing; the session works without them): a
// notice when the client takes notices, else an agent message, after the
// session's answer.
func (s *session) mcpNotice() {
	failed := s.rt.ClientMCPFailed()
	if len(failed) == 0 {
		return
	}
	text := mcpNoticeText(failed)
	if s.a.caps().notices {
		_ = s.a.out(s.a.notify(s.id, obj{"sessionUpdate": "notice", "severity": "warning", "title": text}), true)
		return
	}
	_ = s.a.out(appendTextChunk(nil, s.id, "agent_message_chunk", s.a.opts.NewID(), text+"\n"), true)
}

// mcpNoticeText is the notice's text: the names of the servers that did
// not start, each redacted (a client may put anything in a name) and
// bounded.
func mcpNoticeText(failed []string) string {
	names := make([]string, len(failed))
	for i, n := range failed {
		names[i] = fitText(oneLine(redact.String(n)), 64)
	}
	return "MCP servers that did not start (their tools are not available in this session): " + strings.Join(names, ", ")
}
