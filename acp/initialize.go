package acp

import (
	"encoding/json"
	"errors"

	"github.com/magi-code/magi-code/acp/jsonrpc"
	"github.com/magi-code/magi-code/protocol"
)

// Methods, as ACP v1 spells them.
const (
	mInitialize       = "initialize"
	mAuthenticate     = "authenticate"
	mSessionNew       = "session/new"
	mSessionLoad      = "session/load"
	mSessionResume    = "session/resume"
	mSessionList      = "session/list"
	mSessionClose     = "session/close"
	mSessionPrompt    = "session/prompt"
	mSessionCancel    = "session/cancel"
	mSessionSetMode   = "session/set_mode"
	mSessionSetConfig = "session/set_config_option"
	mSessionUpdate    = "session/update"
	mRequestPerm      = "session/request_permission"
	mReadTextFile     = "fs/read_text_file"
	mWriteTextFile    = "fs/write_text_file"
	mCancelRequest    = "$/cancel_request"
)

// The front door's bounds (docs/acp.md, Bounds).
const (
	// MaxInputFrameBytes bounds one input line, LF excluded: a prompt with
	// @-mentioned files fits; a longer line is answered (Agent.TooLarge)
	// and skipped: the connection goes on.
	MaxInputFrameBytes = 8 << 20
	// MaxResourceBytes bounds the text of one embedded resource; a longer
	// one is cut at a rune boundary and marked (ResourceCutMarker).
	MaxResourceBytes = 1 << 20
	// MaxPromptBytes bounds the whole prompt the runner gets (text and
	// resources, with their framing): a longer prompt is -32602
	// content_limit.
	MaxPromptBytes = 4 << 20
	// MaxSessions bounds the sessions open at once in one process; one
	// more is -32603 request_limit.
	MaxSessions = 16
	// ListPageSessions is how many sessions one session/list page holds.
	ListPageSessions = 50
)

// ProtocolVersion is the ACP version this agent speaks.
const ProtocolVersion = 1

// AuthMethodID is the one authentication method: login stays out of band.
const AuthMethodID = "magi-code-login"

var errFrameTooLarge = errors.New("acp: frame over the output bound")

// initialize answers with the version, the agent's capabilities and its
// one auth method. It does no provider, network or settings work: those
// happen per session, at session/new.
func (a *Agent) initialize(m jsonrpc.Message) {
	var p struct {
		ProtocolVersion *json.Number `json:"protocolVersion"`
		Capabilities    struct {
			FS struct {
				ReadTextFile  bool `json:"readTextFile"`
				WriteTextFile bool `json:"writeTextFile"`
			} `json:"fs"`
			Session struct {
				Notices    *json.RawMessage `json:"notices"`
				Compaction *json.RawMessage `json:"compaction"`
			} `json:"session"`
			Meta json.RawMessage `json:"_meta"`
		} `json:"clientCapabilities"`
	}
	if !decode(m.Params, &p) || p.ProtocolVersion == nil {
		a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
		return
	}
	if _, err := p.ProtocolVersion.Int64(); err != nil {
		a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
		return
	}
	a.mu.Lock()
	a.initialized = true
	a.client = clientCaps{readText: p.Capabilities.FS.ReadTextFile, writeText: p.Capabilities.FS.WriteTextFile,
		notices:        advertised(p.Capabilities.Session.Notices),
		compaction:     advertised(p.Capabilities.Session.Compaction),
		terminalOutput: metaTrue(p.Capabilities.Meta, "terminal_output")}
	a.mu.Unlock()
	a.opts.Log.Open()
	a.respond(m.ID, a.initializeResult())
}

// initializeResult is the answer to initialize. ACP: the agent answers
// with the version it speaks when the client's is another; the client
// decides whether to go on.
func (a *Agent) initializeResult() []byte {
	type obj = map[string]any
	version := a.opts.Version
	if version == "" {
		version = "dev"
	}
	b, _ := json.Marshal(obj{
		"protocolVersion": ProtocolVersion,
		"agentCapabilities": obj{
			"loadSession":        true,
			"promptCapabilities": obj{"image": false, "audio": false, "embeddedContext": true},
			"mcpCapabilities":    obj{"http": true, "sse": false},
			"sessionCapabilities": obj{
				"list":   obj{},
				"resume": obj{},
				"close":  obj{},
			},
		},
		"authMethods": []obj{{
			"id":          AuthMethodID,
			"name":        "Log in with magi-code login",
			"description": "Run `magi-code login` in a terminal to store a provider key, then start or open the session again: magi-code reads it when a session opens. No credential travels over ACP.",
		}},
		"agentInfo": obj{"name": "magi-code", "title": "magi-code", "version": version},
	})
	return b
}

// authenticate accepts the one method: the credential is read at turn
// time from what `magi-code login` stored; nothing else to do here.
func (a *Agent) authenticate(m jsonrpc.Message) {
	var p struct {
		MethodID string `json:"methodId"`
	}
	if !decode(m.Params, &p) || p.MethodID != AuthMethodID {
		a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
		return
	}
	a.respond(m.ID, []byte(`{}`))
}

// advertised reports a capability given as an object ({}): omitted and
// null mean unsupported.
func advertised(c *json.RawMessage) bool { return c != nil && len(*c) > 0 && (*c)[0] == '{' }

// metaTrue reports whether a _meta object holds key: true; anything else
// (another value, no object) is false, and never an error: _meta is the
// client's extension point.
func metaTrue(meta json.RawMessage, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(meta, &m) != nil {
		return false
	}
	return string(m[key]) == "true"
}

// decode decodes params (an object) into v; false when it is not one or
// does not decode.
func decode(params json.RawMessage, v any) bool {
	if len(params) == 0 || params[0] != '{' {
		return false
	}
	return json.Unmarshal(params, v) == nil
}
