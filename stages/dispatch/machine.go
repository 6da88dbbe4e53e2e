package dispatch

import (
	"slices"
	"strconv"
	"time"

	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// Lifecycle is the initialization state of a child.
type Lifecycle uint8

const (
	NotInitialized Lifecycle = iota
	Starting
	Ready
	Failed
)

// Selection is what status reports about the effective provider, model and
// context. Empty strings encode null (unknown, or unsafe to show).
type Selection struct {
	Provider, Model, ContextID string
	// Sandbox is status's "sandbox" field (docs/protocol.md, status):
	// what confines commands run without asking; "" leaves it out.
	Sandbox string
	// MCP is status's "mcp_servers" (the optional mcp.status capability):
	// the settings' enabled MCP servers, by name.
	MCP []MCPServer
}

// MCPServer is one entry of "mcp_servers": a server's name (the ID
// grammar), its state ("running", "not_approved") and how many tools it
// offers (0 unless running).
type MCPServer struct {
	Name, State string
	Tools       int
}

// OpKind names a session/history operation.
type OpKind uint8

const (
	OpCreate OpKind = iota + 1
	OpOpen
	OpPage
)

// Event is one input of Step: a request, a worker completion or a writer
// notice. The set is sealed: every event is one of the structs below, each
// with its step method, so an unknown event does not compile.
type Event interface {
	step(m *Machine) []Effect
}

// Events fed to Step.
type (
	// Request is a frame that framing accepted and validate parsed. Code is
	// validate's verdict ("" when the envelope is valid).
	Request struct {
		Req  wire.Request
		Code protocol.Code
	}
	// FrameError is a framing-level failure: the response has id=null.
	FrameError struct{ Code protocol.Code }
	// EOF: stdin ended (after any incomplete_frame FrameError).
	EOF struct{}
	// InitDone: the initialization worker finished (Code "" on success).
	InitDone struct {
		Code protocol.Code
		Sel  Selection
	}
	// OpDone: the session/history worker finished the operation with ID.
	// On success Result is the raw result object. Attached is the session
	// now attached when the operation replaced the attachment ("" = none
	// changed); Sel, when non-nil, is the restored selection.
	OpDone struct {
		ID       string
		Result   []byte
		Code     protocol.Code
		Attached string
		Sel      *Selection
	}
	// RunWorkerDone: the turn worker returned after offering run.finished.
	RunWorkerDone struct{ RunID string }
	// RunDrained: the writer took the run's run.finished into its queue.
	RunDrained struct{ RunID string }
)

// Effect is one instruction for the shell, executed in order. The set is
// sealed: every effect is one of the structs below, and each has the
// Server's performer as a method (server.go), so an effect the shell cannot
// perform does not compile.
type Effect interface {
	performLocked(s *Server)
}

// Effects returned by Step.
type (
	// Respond: write Response.
	Respond struct{ Response wire.Response }
	// StartInit: start the initialization worker for the initialize
	// request ID, with its required capabilities.
	StartInit struct {
		ID   string
		Caps []string
	}
	// StartOp: start the session/history worker for request ID. Open holds
	// the params of OpOpen, Page those of OpPage; OpCreate has none.
	StartOp struct {
		ID   string
		Op   OpKind
		Open OpenParams
		Page PageParams
	}
	// StartTurn: start the turn worker of run RunID (admitted by request ID).
	StartTurn struct {
		ID, RunID string
		Params    TurnParams
	}
	// CancelRun: request cancellation of RunID.
	CancelRun struct{ RunID string }
	// AnswerApproval: hand Params to run RunID and respond to request ID
	// with its verdict.
	AnswerApproval struct {
		ID, RunID string
		Params    AnswerParams
	}
	// Close: stop admission and cancel all work; the owner drains and
	// exits. Shutdown is true after an accepted shutdown; Code is the
	// closing error (protocol_mismatch, request_limit, frame_too_large), ""
	// for EOF and shutdown.
	Close struct {
		Shutdown bool
		Code     protocol.Code
	}
)

// Machine is the protocol state machine. It is not safe for concurrent use;
// Server serialises calls.
type Machine struct {
	newID func() string

	// ids is the ledger of request IDs seen by this child (at most 4096).
	ids map[string]struct{}

	life    Lifecycle
	failure protocol.Code // startup failure code when life == Failed
	sel     Selection     // last completed selection
	initID  string        // pending initialize request, "" when none
	// optional are the optional capabilities the client required
	// (protocol.OptionalCapabilities): advertised to it alone.
	optional []string

	opID string // pending session/history request, "" when none

	attached string // attached session ID, "" when none

	run        string // active run ID, "" when none
	runDone    bool   // the run's worker returned
	runDrained bool   // its run.finished reached the writer

	closing bool // admission stopped: shutdown accepted, EOF or a closing error
}

// NewMachine returns a machine in the not-initialized state. newID mints run
// IDs (UUIDs in production).
func NewMachine(newID func() string) *Machine {
	return &Machine{newID: newID, ids: make(map[string]struct{}, 64)}
}

func respond(id string, result []byte) Respond {
	return Respond{Response: wire.Response{ID: id, NullID: id == "", Result: result}}
}

func fail(id string, code protocol.Code) Respond {
	return Respond{Response: wire.Response{ID: id, NullID: id == "", Error: code}}
}

// Step advances the machine by one event and returns the effects to perform.
func (m *Machine) Step(ev Event) []Effect { return ev.step(m) }

func (ev Request) step(m *Machine) []Effect { return m.request(ev) }

func (ev FrameError) step(m *Machine) []Effect {
	if m.closing {
		return nil
	}
	effects := []Effect{fail("", ev.Code)}
	if ev.Code.Closes() {
		effects = append(effects, m.close(false, ev.Code))
	}
	return effects
}

func (EOF) step(m *Machine) []Effect {
	if m.closing {
		return nil
	}
	return []Effect{m.close(false, "")}
}

func (ev InitDone) step(m *Machine) []Effect { return m.initDone(ev) }

func (ev OpDone) step(m *Machine) []Effect { return m.opDone(ev) }

func (ev RunWorkerDone) step(m *Machine) []Effect {
	if ev.RunID == m.run {
		m.runDone = true
		m.finishRunIfDrained()
	}
	return nil
}

func (ev RunDrained) step(m *Machine) []Effect {
	if ev.RunID == m.run {
		m.runDrained = true
		m.finishRunIfDrained()
	}
	return nil
}

// runFinished reports whether the active run has finished for the client:
// its worker returned, or its run.finished already reached the writer (which
// usually happens before the worker's done callback runs). Either way
// turn.cancel is stale_run and approval.answer is stale_approval, even while
// status still reports "running".
func (m *Machine) runFinished() bool { return m.runDone || m.runDrained }

func (m *Machine) finishRunIfDrained() {
	if m.runDone && m.runDrained {
		m.run, m.runDone, m.runDrained = "", false, false
	}
}

func (m *Machine) close(shutdown bool, code protocol.Code) Close {
	m.closing = true
	return Close{Shutdown: shutdown, Code: code}
}

func (m *Machine) request(ev Request) []Effect {
	// docs/protocol.md, shutdown: after shutdown (or any close) no later input is admitted; such
	// frames are read and discarded without a response (docs/protocol.md, Choices).
	if m.closing {
		return nil
	}
	id := ev.Req.ID
	if id != "" {
		if _, dup := m.ids[id]; dup {
			// docs/protocol.md, IDs: "Duplicate IDs get duplicate_id and never reexecute work."
			return []Effect{fail(id, protocol.CodeDuplicateID)}
		}
		if len(m.ids) >= protocol.RequestIDsPerChild {
			// docs/protocol.md, IDs: "the next new ID gets request_limit and closes."
			return []Effect{fail(id, protocol.CodeRequestLimit), m.close(false, protocol.CodeRequestLimit)}
		}
		m.ids[id] = struct{}{}
	}
	if ev.Code != "" {
		effects := []Effect{fail(id, ev.Code)}
		if ev.Code.Closes() {
			effects = append(effects, m.close(false, ev.Code))
		}
		return effects
	}
	req := ev.Req
	switch req.Method {
	case "initialize":
		return m.initialize(req)
	case "status":
		return m.status(req)
	case "shutdown":
		if !emptyParams(req.Params) {
			return []Effect{fail(id, protocol.CodeInvalidParams)}
		}
		return []Effect{respond(id, []byte(`{"state":"stopping"}`)), m.close(true, "")}
	case "session.create", "session.open", "history.page", "turn.start", "turn.cancel", "approval.answer":
		if code := m.admittedCode(); code != "" {
			return []Effect{fail(id, code)}
		}
		return m.sessionOrTurn(req)
	}
	return []Effect{fail(id, protocol.CodeUnsupportedMethod)}
}

// admittedCode is the lifecycle verdict for operations that need a
// successful initialization: "" when ready.
func (m *Machine) admittedCode() protocol.Code {
	switch m.life {
	case NotInitialized, Starting:
		return protocol.CodeNotInitialized
	case Failed:
		// docs/protocol.md, Sessions: "after startup failure they return that safe failure code."
		return m.failure
	}
	return ""
}

func (m *Machine) initialize(req wire.Request) []Effect {
	if m.life != NotInitialized {
		return []Effect{fail(req.ID, protocol.CodeAlreadyInitialized)}
	}
	p, ok := decodeInitialize(req.Params)
	if !ok {
		return []Effect{fail(req.ID, protocol.CodeInvalidParams)}
	}
	for _, c := range p.RequiredCapabilities {
		if !protocol.IsCapability(c) {
			// docs/protocol.md, initialize: before any side effect; a corrected retry stays possible.
			return []Effect{fail(req.ID, protocol.CodeUnsupportedCapability)}
		}
	}
	m.life = Starting
	m.initID = req.ID
	for _, c := range protocol.OptionalCapabilities {
		if slices.Contains(p.RequiredCapabilities, c) {
			m.optional = append(m.optional, c)
		}
	}
	return []Effect{StartInit{ID: req.ID, Caps: p.RequiredCapabilities}}
}

func (m *Machine) initDone(ev InitDone) []Effect {
	if m.life != Starting {
		return nil
	}
	id := m.initID
	m.initID = ""
	m.sel = ev.Sel
	if m.closing {
		// docs/protocol.md, shutdown: shutdown "resolves a pending startup ... request with
		// startup_cancelled", whatever the cancelled work ended with (a
		// success that raced the cancel, or the error the cancel caused).
		// A worker can finish between its own ctx check and this step, so
		// the machine decides, not the worker.
		ev.Code = protocol.CodeStartupCancelled
	}
	if ev.Code != "" {
		m.life, m.failure = Failed, ev.Code
		return []Effect{fail(id, ev.Code)}
	}
	m.life = Ready
	return []Effect{respond(id, m.initializeResult())}
}

func (m *Machine) status(req wire.Request) []Effect {
	if m.life == NotInitialized {
		return []Effect{fail(req.ID, protocol.CodeNotInitialized)}
	}
	if !emptyParams(req.Params) {
		return []Effect{fail(req.ID, protocol.CodeInvalidParams)}
	}
	return []Effect{respond(req.ID, m.appendStatus(nil))}
}

func (m *Machine) sessionOrTurn(req wire.Request) []Effect {
	id := req.ID
	switch req.Method {
	case "session.create", "session.open":
		op := StartOp{ID: id, Op: OpCreate}
		if req.Method == "session.create" {
			if !emptyParams(req.Params) {
				return []Effect{fail(id, protocol.CodeInvalidParams)}
			}
		} else {
			p, ok := decodeOpen(req.Params)
			if !ok {
				return []Effect{fail(id, protocol.CodeInvalidParams)}
			}
			op.Op, op.Open = OpOpen, p
		}
		return m.startOp(op)

	case "history.page":
		p, ok := decodePage(req.Params)
		if !ok {
			return []Effect{fail(id, protocol.CodeInvalidParams)}
		}
		if code := m.sessionCode(p.SessionID); code != "" {
			return []Effect{fail(id, code)}
		}
		return m.startOp(StartOp{ID: id, Op: OpPage, Page: p})

	case "turn.start":
		p, ok := decodeTurn(req.Params)
		if !ok {
			return []Effect{fail(id, protocol.CodeInvalidParams)}
		}
		if code := m.sessionCode(p.SessionID); code != "" {
			return []Effect{fail(id, code)}
		}
		if m.busy() {
			return []Effect{fail(id, protocol.CodeBusy)}
		}
		m.run = m.newID()
		// docs/protocol.md, Run events: "turn.start admission response precedes its events".
		result := append([]byte(`{"run_id":`), jsonenc.AppendString(nil, m.run)...)
		result = append(result, `,"accepted":true}`...)
		return []Effect{respond(id, result), StartTurn{ID: id, RunID: m.run, Params: p}}

	case "turn.cancel":
		p, ok := decodeCancel(req.Params)
		if !ok {
			return []Effect{fail(id, protocol.CodeInvalidParams)}
		}
		if code := m.sessionCode(p.SessionID); code != "" {
			return []Effect{fail(id, code)}
		}
		if p.RunID != m.run || m.runFinished() {
			return []Effect{fail(id, protocol.CodeStaleRun)}
		}
		return []Effect{respond(id, []byte(`{"cancellation_requested":true}`)), CancelRun{RunID: m.run}}

	default: // approval.answer
		p, ok := decodeAnswer(req.Params, slices.Contains(m.optional, protocol.CapabilityApprovalSession))
		if !ok {
			return []Effect{fail(id, protocol.CodeInvalidParams)}
		}
		if code := m.sessionCode(p.SessionID); code != "" {
			return []Effect{fail(id, code)}
		}
		if p.RunID != m.run || m.runFinished() {
			// docs/protocol.md, Choices: an answer for a finished run is stale_approval.
			return []Effect{fail(id, protocol.CodeStaleApproval)}
		}
		return []Effect{AnswerApproval{ID: id, RunID: m.run, Params: p}}
	}
}

// busy reports whether a session/history operation or a run owns the
// child. docs/protocol.md, Sessions: "One operation at a time; overlap returns busy without
// implicit cancellation"; "Session/history work also rejects overlap with
// an active run."
func (m *Machine) busy() bool { return m.opID != "" || m.run != "" }

// startOp admits the one session/history operation, or answers busy.
func (m *Machine) startOp(op StartOp) []Effect {
	if m.busy() {
		return []Effect{fail(op.ID, protocol.CodeBusy)}
	}
	m.opID = op.ID
	return []Effect{op}
}

// sessionCode checks a request's session ID against the attachment.
func (m *Machine) sessionCode(sessionID string) protocol.Code {
	switch {
	case m.attached == "":
		return protocol.CodeSessionMissing
	case m.attached != sessionID:
		return protocol.CodeStaleSession
	}
	return ""
}

func (m *Machine) opDone(ev OpDone) []Effect {
	if m.opID == "" || ev.ID != m.opID {
		// Not the pending operation (or none is pending): a stray
		// completion must not answer id=null with a result or attach.
		return nil
	}
	m.opID = ""
	if m.closing {
		// docs/protocol.md, shutdown: shutdown resolves a pending session/history request with
		// operation_cancelled, whatever the cancelled work ended with (see
		// initDone for why the machine decides).
		ev.Code = protocol.CodeOperationCancelled
	}
	if ev.Code != "" {
		return []Effect{fail(ev.ID, ev.Code)}
	}
	if ev.Attached != "" {
		m.attached = ev.Attached
	}
	if ev.Sel != nil {
		mcp := m.sel.MCP // started once, at initialize
		m.sel = *ev.Sel
		m.sel.MCP = mcp
	}
	return []Effect{respond(ev.ID, ev.Result)}
}

// appendStatus appends the status object.
func (m *Machine) appendStatus(dst []byte) []byte {
	nullable := func(dst []byte, s string) []byte {
		if s == "" {
			return append(dst, "null"...)
		}
		return jsonenc.AppendString(dst, s)
	}
	state, readiness := "idle", "ready"
	switch m.life {
	case Starting:
		// docs/protocol.md, status: while pending, null provider/model/context.
		dst = append(dst, `{"state":"starting","readiness":"initializing","provider":null,"model":null,"context_id":null,"session_id":null,"run_id":null}`...)
		return dst
	case Failed:
		state, readiness = "failed", string(m.failure)
	default:
		if m.run != "" {
			state = "running"
		}
	}
	dst = append(dst, `{"state":`...)
	dst = jsonenc.AppendString(dst, state)
	dst = append(dst, `,"readiness":`...)
	dst = jsonenc.AppendString(dst, readiness)
	dst = append(dst, `,"provider":`...)
	dst = nullable(dst, m.sel.Provider)
	dst = append(dst, `,"model":`...)
	dst = nullable(dst, m.sel.Model)
	dst = append(dst, `,"context_id":`...)
	dst = nullable(dst, m.sel.ContextID)
	dst = append(dst, `,"session_id":`...)
	dst = nullable(dst, m.attached)
	dst = append(dst, `,"run_id":`...)
	dst = nullable(dst, m.run)
	if m.sel.Sandbox != "" {
		dst = append(dst, `,"sandbox":`...)
		dst = jsonenc.AppendString(dst, m.sel.Sandbox)
	}
	if m.life == Ready && slices.Contains(m.optional, protocol.CapabilityMCPStatus) {
		dst = append(dst, `,"mcp_servers":[`...)
		for i, s := range m.sel.MCP {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"name":`...)
			dst = jsonenc.AppendString(dst, s.Name)
			dst = append(dst, `,"state":`...)
			dst = jsonenc.AppendString(dst, s.State)
			dst = append(dst, `,"tools":`...)
			dst = strconv.AppendInt(dst, int64(s.Tools), 10)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// limitsJSON is the published bounds object, exactly as docs/protocol.md, initialize, shows it.
var limitsJSON = func() string {
	kv := []struct {
		k string
		v int
	}{
		{"frame_bytes", protocol.MaxInputFrameBytes},
		{"json_depth", protocol.MaxJSONDepth},
		{"id_bytes", protocol.MaxIDBytes},
		{"prompt_bytes", protocol.MaxPromptBytes},
		{"history_page_bytes", protocol.HistoryPageBytes},
		{"history_page_entries", protocol.HistoryPageEntries},
		{"content_chunk_bytes", protocol.HistoryChunkBytes},
		{"pending_responses", protocol.PendingOutputFrames},
		{"requests_per_child", protocol.RequestIDsPerChild},
		{"output_deadline_ms", int(protocol.OutputDeadline / time.Millisecond)},
	}
	b := []byte{'{'}
	for i, e := range kv {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, e.k)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(e.v), 10)
	}
	return string(append(b, '}'))
}()

func (m *Machine) initializeResult() []byte {
	b := []byte(`{"capabilities":[`)
	for i, name := range append(protocol.Methods[:], m.optional...) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, name)
	}
	b = append(b, `],"limits":`...)
	b = append(b, limitsJSON...)
	b = append(b, `,"status":`...)
	b = m.appendStatus(b)
	return append(b, '}')
}
