package acp

import (
	"encoding/json"
	"slices"
	"sync"

	"charm.land/catwalk/pkg/embedded"

	"github.com/magi-code/magi-code/acp/jsonrpc"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner"
)

// The config options' IDs.
const (
	optMode     = "mode"
	optModel    = "model"
	optThinking = "thought_level"
)

type obj = map[string]any

var modes = []struct{ id, name, desc string }{
	{ModeAsk, "Ask", "Edits, shell commands and MCP tools that change things ask first"},
	{ModeAuto, "Auto", "No tool asks; the protections and the OS sandbox still apply"},
	{ModeReadOnly, "Read-only", "Writes, edits, shell commands and MCP tools that change things are refused without asking"},
}

// thinkingLevels are the thought_level values; "default" is the
// provider's default (the settings' empty thinking).
var thinkingLevels = []string{"default", "off", "minimal", "low", "medium", "high"}

func validMode(m string) bool {
	return slices.ContainsFunc(modes, func(x struct{ id, name, desc string }) bool { return x.id == m })
}

// autoUnconfined describes the Auto mode where no OS sandbox confines the
// commands run without asking (status's sandbox unavailable or off):
// shell commands then ask, unless the person opted out.
const autoUnconfined = "Edits do not ask; no OS sandbox here, so shell commands ask (unless [tools] unsandboxed_auto = true); the protections still apply"

// modeDesc is mode m's description given what confines commands run
// without asking (runner.Selection's Sandbox).
func modeDesc(m struct{ id, name, desc string }, sandbox string) string {
	if m.id == ModeAuto && (sandbox == runner.SandboxUnavailable || sandbox == runner.SandboxOff) {
		return autoUnconfined
	}
	return m.desc
}

// modeState is the legacy modes object, in sync with the mode option.
func modeState(current, sandbox string) obj {
	avail := make([]obj, len(modes))
	for i, m := range modes {
		avail[i] = obj{"id": m.id, "name": m.name, "description": modeDesc(m, sandbox)}
	}
	return obj{"currentModeId": current, "availableModes": avail}
}

// optionsLocked is the complete config option list; s.mu is held.
func (s *session) optionsLocked() []obj {
	sandbox := s.rt.Selection().Sandbox
	modeOpts := make([]obj, len(modes))
	for i, m := range modes {
		modeOpts[i] = obj{"value": m.id, "name": m.name, "description": modeDesc(m, sandbox)}
	}
	model := s.modelLocked()
	var models []obj
	for _, m := range s.modelsLocked() {
		models = append(models, obj{"value": m, "name": m})
	}
	thinking := s.choice.Thinking
	if thinking == "" {
		thinking = "default"
	}
	levels := make([]obj, len(thinkingLevels))
	for i, l := range thinkingLevels {
		levels[i] = obj{"value": l, "name": l}
	}
	return []obj{
		{"id": optMode, "name": "Mode", "category": "mode", "type": "select", "currentValue": s.mode, "options": modeOpts},
		{"id": optModel, "name": "Model", "category": "model", "type": "select", "currentValue": model, "options": models},
		{"id": optThinking, "name": "Thinking", "category": "thought_level", "type": "select", "currentValue": thinking, "options": levels},
	}
}

// modelLocked is the session's model as it may be shown.
func (s *session) modelLocked() string {
	if s.choice.Model != "" && safeName(s.choice.Model) {
		return s.choice.Model
	}
	if m := s.rt.Selection().Model; m != "" {
		return m
	}
	return "default"
}

// modelsLocked are the model option's values: the session's model first,
// then the models the built-in catalog (Charm's catwalk, shipped in the
// binary: no network) knows for the session's provider when it is openai
// or anthropic, at most maxModels; any other provider offers its model.
func (s *session) modelsLocked() []string {
	current := s.modelLocked()
	out := []string{current}
	for _, m := range catalog(s.rt.Selection().Provider) {
		if len(out) == maxModels {
			break
		}
		if m != current && safeName(m) {
			out = append(out, m)
		}
	}
	return out
}

// maxModels bounds the model option's values (and so its frames).
const maxModels = 64

var (
	catalogOnce sync.Once
	catalogs    map[string][]string
)

// catalog lists the catalog's models of provider (openai, anthropic), its
// default first; read once, at the first session that asks.
func catalog(provider string) []string {
	catalogOnce.Do(func() {
		catalogs = map[string][]string{}
		for _, p := range embedded.GetAll() {
			id := string(p.ID)
			if id != "openai" && id != "anthropic" {
				continue
			}
			for _, m := range p.Models {
				if m.ID == p.DefaultLargeModelID {
					catalogs[id] = append([]string{m.ID}, catalogs[id]...)
				} else {
					catalogs[id] = append(catalogs[id], m.ID)
				}
			}
		}
	})
	return catalogs[provider]
}

func safeName(n string) bool {
	return n != "" && len(n) <= protocol.MaxSelectionNameBytes && !redact.Contains(n)
}

// setMode is the legacy session/set_mode: the same change as the mode
// option. ACP's answer is empty; the complete option list follows it as a
// config_option_update.
func (a *Agent) setMode(m jsonrpc.Message) {
	var p struct {
		SessionID string `json:"sessionId"`
		ModeID    string `json:"modeId"`
	}
	s := a.sessionOf(m, &p, &p.SessionID)
	if s == nil {
		return
	}
	if !validMode(p.ModeID) {
		a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
		return
	}
	s.mu.Lock()
	s.mode = p.ModeID
	opts := s.optionsLocked()
	s.mu.Unlock()
	s.saveSelection()
	a.respond(m.ID, []byte(`{}`))
	_ = a.out(a.notify(s.id, obj{"sessionUpdate": "config_option_update", "configOptions": opts}), true)
}

// setConfigOption changes one option and answers with the complete list; an
// unknown option or value is -32602. A change of mode also sends
// current_mode_update, for clients of the legacy modes.
func (a *Agent) setConfigOption(m jsonrpc.Message) {
	var p struct {
		SessionID string `json:"sessionId"`
		ConfigID  string `json:"configId"`
		Value     any    `json:"value"`
	}
	s := a.sessionOf(m, &p, &p.SessionID)
	if s == nil {
		return
	}
	v, isString := p.Value.(string)
	s.mu.Lock()
	ok := isString
	if ok {
		switch p.ConfigID {
		case optMode:
			if ok = validMode(v); ok {
				s.mode = v
			}
		case optModel:
			if ok = slices.Contains(s.modelsLocked(), v); ok {
				s.choice.Model = v
			}
		case optThinking:
			if ok = slices.Contains(thinkingLevels, v); ok {
				if v == "default" {
					v = ""
				}
				s.choice.Thinking = v
			}
		default:
			ok = false
		}
	}
	opts, mode := s.optionsLocked(), s.mode
	s.mu.Unlock()
	if !ok {
		a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
		return
	}
	s.saveSelection()
	b, _ := json.Marshal(obj{"configOptions": opts})
	a.respond(m.ID, b)
	if p.ConfigID == optMode {
		_ = a.out(a.notify(s.id, obj{"sessionUpdate": "current_mode_update", "currentModeId": mode}), true)
	}
}

// saveSelection records the session's mode, model and thinking level
// with the session, as serve records its selection: session/load and
// resume (and Mission Control, for the model and thinking level) restore
// them. A session without its file yet records them when the file is
// written; a failure is logged, the choice still holds in this process.
func (s *session) saveSelection() {
	s.mu.Lock()
	sel, mode := s.rt.ChoiceSelection(s.choice), s.mode
	s.mu.Unlock()
	if err := s.att.SaveSelection(sel, mode); err != nil {
		s.a.opts.Log.Info("acp selection not saved", "session_id", s.id)
	}
}

// sessionOf decodes params into p and finds the session *id names; on nil
// the request is answered.
func (a *Agent) sessionOf(m jsonrpc.Message, p any, id *string) *session {
	if !decode(m.Params, p) {
		a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
		return nil
	}
	s := a.session(*id)
	if s == nil {
		a.respondError(m.ID, jsonrpc.CodeResourceNotFound, protocol.CodeSessionMissing)
	}
	return s
}

// commandsUpdate is the available_commands_update of a session: the
// built-in commands the agent runs itself (/compact), then its skills, each
// a command whose text goes to the model as the prompt. A skill named like
// a built-in is left out: the built-in answers that name.
func commandsUpdate(skills []runner.SkillInfo) obj {
	cmds := make([]obj, 0, 1+len(skills))
	cmds = append(cmds, obj{"name": cmdCompact, "description": "compact the conversation now: a summary replaces it",
		"input": obj{"hint": "what the summary should keep (optional)"}})
	for _, sk := range skills {
		if !safeName(sk.Name) || sk.Name == cmdCompact || len(cmds) >= maxCommands {
			continue
		}
		desc := sk.Description
		if desc == "" {
			desc = "skill " + sk.Name
		}
		cmds = append(cmds, obj{"name": sk.Name, "description": fitText(redact.String(desc), 512),
			"input": obj{"hint": "what to do"}})
	}
	return obj{"sessionUpdate": "available_commands_update", "availableCommands": cmds}
}

// maxCommands bounds the commands one update lists (and so its frame).
const maxCommands = 64
