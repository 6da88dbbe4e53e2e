// Package mission is Mission Control, the terminal app of magi-code: a
// Bubble Tea program that drives the serve pipeline through the
// magi-code.local-agent protocol exactly as a frontend does (initialize,
// session.create or session.open, history.page, turn.start, turn.cancel,
// approval.answer). The pipeline runs in the same process (see the
// magi-code command); this package only sees a Backend.
//
// The Model is pure Bubble Tea: messages in, view out. Protocol calls run
// as commands; each event arrives as one message. Finished turns leave the
// live view and go to the terminal's scrollback (tea.Println), so the
// conversation stays in the terminal after the app ends; Printed keeps the
// same blocks for tests.
package mission

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/human"
	"github.com/magi-code/magi-code/protocol"
)

// Backend is the protocol connection: client.Client satisfies it.
type Backend interface {
	Call(ctx context.Context, method string, params any) (*client.Response, error)
	Events() <-chan client.Event
}

// SessionInfo is one stored session for /sessions and resume.
type SessionInfo = human.Session

// Options configure a Model.
type Options struct {
	Backend Backend
	Cwd     string
	// Prompt, when set, runs that one turn and quits: exit 0 on completed,
	// 1 on failed or cancelled (and on any failure before the turn).
	Prompt string
	// Resume opens that session (replaying its history) instead of
	// creating one: a full ID or a unique prefix of one of Sessions.
	Resume string
	// PickSession opens the session picker once the backend is ready; Esc
	// starts a new session instead.
	PickSession bool
	// Login stores an API key for a provider (/login); SetModel stores the
	// provider and model in the global settings (/model); Sessions lists
	// this cwd's sessions, most recent first (/sessions). Nil disables the
	// command.
	Login    func(provider, key string) error
	SetModel func(provider, model string) error
	Sessions func() ([]SessionInfo, error)
	// Restart, when set, ends the backend and starts a new one that reads
	// the settings and credentials again (a backend reads them once, at
	// initialize). After /login or /model the model calls it once no turn
	// is running, initializes the new backend and reopens this session.
	// Nil: a new key or model is used from the next start.
	Restart func() (Backend, error)
	// Configured is the provider the settings name ("" for none), to
	// tell a missing choice from a missing key; nil: unknown.
	Configured func() string
	// ApprovalMode is the approval setting in force ("ask", "auto"), for
	// /status; nil: unknown.
	ApprovalMode func() string
	// Logout, when set, removes provider's stored credential (/logout):
	// ErrUnknownProvider for a name login cannot store, ErrNoCredential
	// when none is stored.
	Logout func(provider string) error
	// Hyperlinks: links in replies are also OSC 8 hyperlinks (Run sets it
	// unless NO_COLOR is set or the terminal is dumb).
	Hyperlinks bool
	// SetApproval, when set, makes the backends started from now on use
	// the approval mode ("ask" or "auto") instead of the settings' (the
	// /approval command, which then restarts the backend).
	SetApproval func(mode string)
	// Models lists the models the /model picker offers; nil: KnownModels.
	Models func() []ModelChoice
	// ServerModels, when set, asks the selected provider's server for its
	// models (a local server's /v1/models) when the /model picker opens,
	// never at start-up; they are listed first once they arrive. The
	// picker's close cancels the request.
	ServerModels func(ctx context.Context) ([]ModelChoice, error)
	// Now is the clock of the approval countdown; nil is time.Now.
	Now func() time.Time
	// Notify is the sequence that notifies with the app's text when an
	// approval waits or a long turn ends (Notifier); nil rings the bell.
	Notify func(text string) string
	// History keeps the prompts across runs (history.go); nil keeps them
	// for this run only.
	History *PromptHistory
	// BuildWarning, when set, is the one line that says the binary was
	// built with a Go release lacking security fixes: printed once at the
	// first session's start, and shown by /status.
	BuildWarning string
}

// Messages of the model.
type (
	// Every message from a backend carries the generation of that
	// backend (0 for Options.Backend, one more at each restart): what an
	// ended backend still delivers is ignored.

	// eventMsg is one run event.
	eventMsg struct {
		gen int
		ev  client.Event
	}
	// eventsEnded: the backend's output ended.
	eventsEnded struct{ gen int }
	// callMsg is the outcome of one protocol call.
	callMsg struct {
		gen    int
		method string
		resp   *client.Response
		err    error
	}
	// tickMsg drives the spinner and the approval countdown.
	tickMsg time.Time
	// restartedMsg: Options.Restart returned.
	restartedMsg struct {
		gen     int
		backend Backend
		err     error
	}
	// reopenMsg: try session.open again after session_busy.
	reopenMsg struct{ gen int }
)

// liveMessage is one assistant message of the running turn.
type liveMessage struct {
	id       string
	streamed strings.Builder // deltas as they came
	parts    []string        // reconcile parts received so far
	final    string          // set once last_part arrived
	done     bool
	partial  bool
	missing  bool // a delta part was skipped: the display is incomplete
	nextPart int
}

// text is what the message shows now: the reconciled text once complete
// (it replaces what streamed), else the streamed text.
func (m *liveMessage) text() string {
	if m.done {
		return m.final
	}
	return m.streamed.String()
}

// activity is one tool, subagent or compaction line of the running turn.
type activity struct {
	id, kind, name, state, summary string
	out                            *toolOutput // nil until its output comes (output.go)
}

// inputMode says what the input line is for.
type inputMode int

const (
	modePrompt inputMode = iota
	modeLoginProvider
	modeLoginKey
)

// Model is the Bubble Tea model of Mission Control.
type Model struct {
	// outputs are the last calls whose output the preview collapsed, most
	// recent last, for Ctrl-O (output.go).
	outputs []*activity

	opts    Options
	backend Backend
	gen     int // generation of backend
	now     func() time.Time
	input   editor
	menuSel int // the slash menu's selected row
	// menuClosed: Esc closed the slash menu; typing opens it again.
	menuClosed bool
	// quitArmed: Ctrl-C on an empty input; a second one leaves.
	quitArmed bool
	// noSession: opening or creating the session failed; nothing is
	// attached until /new or /resume succeeds.
	noSession bool
	width     int

	// Status bar.
	provider, model, readiness string
	sessionID                  string
	ready                      bool // initialized and a session attached
	durable                    bool // the attached session is on disk (session.open can reopen it)
	shown                      string
	// pending is a prompt entered before the session was attached; it
	// starts once it is (and is dropped if the backend is not ready).
	pending string

	// Restarting the backend after /login or /model.
	restartPending bool   // restart once the running turn ends
	restarting     bool   // from the restart until the session is attached again
	announce       string // said with the selection the next status reports
	wantModel      string // the model /model stored, to say when the session keeps its own
	reopenTries    int
	picked         bool // the start-up session picker was shown

	// The running turn.
	runID      string
	running    bool
	cancelling bool
	// cancelQueued: Ctrl-C came before turn.start answered.
	cancelQueued bool
	// reason is the turn's last diagnostic, as shown: why it failed.
	reason    string
	turnStart time.Time
	items     []*item // the turn's parts not printed yet, in order
	byID      map[string]*liveMessage
	actByID   map[string]*activity
	approval  *approval
	gate      keyGate       // the bursts of keys, for approvals
	search    *promptSearch // Ctrl-R's reverse search, nil when none
	// mcp is the backend's MCP servers as its last status said (nil
	// before one did)
	mcp *[]mcpServer
	// listDir lists workspace directories for @path completion (nil
	// without a workspace); mentionMatches are the matches of the last
	// Tab, shown under the input until the next key.
	listDir        listDir
	mentionMatches []string
	limits         limits // initialize's, for the prompt's size
	usage          usage  // token counts of this app's turns
	sandbox        string // status's sandbox ("" unknown)

	// The screen (screen.go).
	height   int
	sized    bool // a window size arrived
	outbox   []*outBlock
	printing bool // a slice is on its way to the terminal
	// flightRows is the height of the slice on its way (0: none): the
	// live region stays short enough for it until it landed.
	flightRows int
	// done is the finished blocks printed, the newest maxRepaintBytes of
	// them (doneCut: older ones were dropped), for a repaint.
	done      []string
	doneBytes int
	doneCut   bool
	sizeGen   int // counts the resizes; only the last one's repaintMsg repaints
	quitSent  bool
	ticking   bool
	frame     int
	picker    *picker

	mode          inputMode
	loginProvider string

	// Printed holds the blocks sent to the scrollback, in order: the newest
	// maxRepaintBytes of them (printedBytes).
	Printed      []string
	printedBytes int
	// ExitCode is the process exit code once the program quit.
	ExitCode int
	quitting bool
}

// New returns the model; Init starts the session.
func New(opts Options) *Model {
	in := editor{Prompt: "› ", Placeholder: "ask anything; / for commands"}
	m := &Model{opts: opts, backend: opts.Backend, now: opts.Now, input: in, width: 80, limits: limitsOf(0, 0),
		byID: map[string]*liveMessage{}, actByID: map[string]*activity{}, readiness: "starting"}
	if m.now == nil {
		m.now = time.Now
	}
	clusterWidths.Store(false) // until the terminal answers the mode 2027 query
	if opts.History != nil {
		for _, e := range opts.History.Entries() {
			m.input.AddHistory(e) // Up walks the earlier runs' prompts too
		}
	}
	if opts.Cwd != "" {
		m.listDir = workspaceLister(opts.Cwd)
	}
	return m
}

// call runs one protocol call as a command.
func (m *Model) call(method string, params any) tea.Cmd {
	b, gen := m.backend, m.gen
	return func() tea.Msg {
		resp, err := b.Call(context.Background(), method, params)
		return callMsg{gen: gen, method: method, resp: resp, err: err}
	}
}

// nextEvent waits for the next run event.
func (m *Model) nextEvent() tea.Cmd {
	events, gen := m.backend.Events(), m.gen
	return func() tea.Msg {
		ev, ok := <-events
		if !ok {
			return eventsEnded{gen: gen}
		}
		return eventMsg{gen: gen, ev: ev}
	}
}

// Init initializes the backend; the session follows its answer.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.nextEvent(), m.initialize())
}

func (m *Model) initialize() tea.Cmd {
	return m.call("initialize", map[string]any{
		// usage: the optional capability of token counts (docs/protocol.md,
		// Optional capabilities), for the status bar and /status.
		"required_capabilities": []string{"status", "session.create", "session.open", "history.page", "turn.start", "turn.cancel", "approval.answer", protocol.CapabilityUsage, protocol.CapabilityActivityOutput, protocol.CapabilityApprovalSession, protocol.CapabilityApprovalRequest, protocol.CapabilityMCPStatus, protocol.CapabilityCompact},
	})
}

// quit ends the program with code.
func (m *Model) quit(code int) tea.Cmd {
	m.ExitCode, m.quitting = code, true
	return m.pump() // tea.Quit once everything is printed
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m, m.resized(msg.Width, msg.Height)
	case drawnMsg:
		m.sized = true
		return m, m.pump()
	case printedMsg:
		m.printing, m.flightRows = false, 0
		return m, m.pump()
	case repaintMsg:
		if msg.gen != m.sizeGen {
			return m, nil // the size changed again since
		}
		return m, m.repaint()
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case callMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		return m, m.answered(msg)
	case eventMsg:
		if msg.gen != m.gen {
			// An ended backend's reader: no new reader for it (the
			// current backend's has been started).
			return m, nil
		}
		cmd := m.event(msg.ev)
		if msg.gen != m.gen {
			// The event ended the turn and restarted the backend
			// (/model or /login during the turn): restarted starts the
			// new backend's reader; the ended one's is not read again,
			// or its end would read as the new backend's.
			return m, cmd
		}
		return m, tea.Batch(cmd, m.nextEvent())
	case eventsEnded:
		if m.quitting || msg.gen != m.gen {
			return m, nil
		}
		return m, tea.Sequence(m.print(styleError().Render("the backend stopped")), m.quit(1))
	case tickMsg:
		return m, m.ticked()
	case restartedMsg:
		return m, m.restarted(msg)
	case serverModelsMsg:
		m.serverModels(msg)
		return m, nil
	case reopenMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		return m, m.call("session.open", map[string]string{"session_id": m.sessionID})
	}
	noteWidthMode(msg)
	if paste, ok := msg.(tea.PasteMsg); ok {
		// A paste is typing: it goes to the draft, and it never answers.
		m.gate.press(m.now())
		m.gate.typed = true
		if m.approval != nil {
			m.approval.held = true
		}
		if m.picker == nil {
			m.input.Update(paste)
		}
	}
	return m, nil
}

// failed reports a failed call and, in one-turn mode, quits with 1.
func (m *Model) failed(what string) tea.Cmd {
	cmd := m.print(styleError().Render(what))
	if m.opts.Prompt != "" {
		return tea.Sequence(cmd, m.quit(1))
	}
	return cmd
}

// answered handles the response of a protocol call.
func (m *Model) answered(c callMsg) tea.Cmd {
	if c.err != nil {
		return m.failed(doing(c.method) + ": the backend stopped")
	}
	if c.resp.Error != nil {
		code := c.resp.Error.Code
		switch c.method {
		case "initialize":
			m.readiness, m.restarting = code, false
			var dropped tea.Cmd
			if m.pending != "" {
				m.pending = ""
				dropped = m.print(styleError().Render("the prompt typed while starting was not sent"))
			}
			if m.opts.Prompt == "" && m.opts.Restart != nil {
				return tea.Sequence(dropped, m.print(styleError().Render(m.notReady())))
			}
			if dropped != nil {
				return tea.Sequence(dropped, m.failed(doing(c.method)+": "+human.Error(code)))
			}
		case "turn.start":
			m.running = false
		case "session.open":
			if m.restarting && code == "session_busy" && m.reopenTries < reopenTries {
				// The ended backend's cleanup still holds the session's
				// lease for a moment.
				m.reopenTries++
				gen := m.gen
				return tea.Tick(reopenDelay, func(time.Time) tea.Msg { return reopenMsg{gen: gen} })
			}
			if m.restarting {
				m.restarting, m.sessionID, m.durable = false, "", false
				return m.print(styleError().Render("could not reopen the session after the restart: " + human.Headline(human.Error(code)) + "; /new starts a new session, /resume reopens one"))
			}
		}
		if c.method == "session.create" || c.method == "session.open" {
			m.pending, m.noSession = "", true
		}
		return m.failed(doing(c.method) + ": " + human.Error(code))
	}
	switch c.method {
	case "initialize":
		var r struct {
			Status struct {
				Readiness string `json:"readiness"`
				Provider  string `json:"provider"`
				Model     string `json:"model"`
				Sandbox   string `json:"sandbox"`
			} `json:"status"`
			Limits struct {
				FrameBytes  int `json:"frame_bytes"`
				PromptBytes int `json:"prompt_bytes"`
			} `json:"limits"`
		}
		_ = json.Unmarshal(c.resp.Result, &r)
		m.provider, m.model, m.readiness = human.Visible(r.Status.Provider, 256), human.Visible(r.Status.Model, 256), r.Status.Readiness
		m.sandbox = r.Status.Sandbox
		m.limits = limitsOf(r.Limits.FrameBytes, r.Limits.PromptBytes)
		return m.attach()
	case "session.create", "session.open":
		var r struct {
			SessionID string   `json:"session_id"`
			Revision  string   `json:"revision"`
			Durable   bool     `json:"durable"`
			Notices   []string `json:"notices"`
		}
		_ = json.Unmarshal(c.resp.Result, &r)
		m.sessionID, m.ready, m.durable, m.noSession = r.SessionID, true, r.Durable, false
		var cmds []tea.Cmd
		if m.shown == "" && !m.restarting && m.opts.BuildWarning != "" {
			cmds = append(cmds, m.print(styleDim().Render(human.Printable(m.opts.BuildWarning))))
		}
		for _, n := range r.Notices {
			cmds = append(cmds, m.print(styleDim().Render(human.Printable(human.Notice(n)))))
		}
		switch {
		case m.restarting:
			// The conversation is on the screen already; it is replayed
			// only when it is not (the first start could not open it).
			m.restarting = false
			if c.method == "session.open" && m.shown != r.SessionID {
				cmds = append(cmds, m.print(styleDim().Render("resumed session "+r.SessionID)))
				cmds = append(cmds, m.call("history.page", map[string]any{"session_id": r.SessionID, "revision": r.Revision, "cursor": nil}))
			}
		case c.method == "session.open":
			cmds = append(cmds, m.print(styleDim().Render("resumed session "+r.SessionID)))
			cmds = append(cmds, m.call("history.page", map[string]any{"session_id": r.SessionID, "revision": r.Revision, "cursor": nil}))
		}
		m.shown = r.SessionID
		// The selection may differ from initialize's: session.open
		// restores the session's own.
		cmds = append(cmds, m.call("status", map[string]any{}))
		switch {
		case m.opts.Prompt != "":
			cmds = append(cmds, m.startTurn(m.opts.Prompt))
		case m.pending != "" && !m.running:
			cmds = append(cmds, m.startPending())
		}
		return tea.Sequence(cmds...)
	case "history.page":
		return m.replay(c.resp.Result)
	case "status":
		return m.status(c.resp.Result)
	case "turn.start":
		var r struct {
			RunID string `json:"run_id"`
		}
		_ = json.Unmarshal(c.resp.Result, &r)
		m.runID = r.RunID
		if m.cancelQueued && m.running {
			// Ctrl-C came before the run had an ID.
			m.cancelQueued = false
			return m.call("turn.cancel", map[string]string{"session_id": m.sessionID, "run_id": m.runID})
		}
	}
	return nil
}

// notReady says what keeps the backend from being ready and what fixes
// it.
func (m *Model) notReady() string {
	if m.readiness == "provider_unavailable" && m.opts.Configured != nil && m.opts.Configured() == "" {
		// A key alone does not choose a provider.
		return "not ready: no provider and model chosen yet; /model lists them (an API key stored with /login is kept)"
	}
	return "not ready: " + human.Readiness(m.readiness)
}

// doing is what a protocol call was doing, for a person: the start of the
// line that says it failed.
func doing(method string) string {
	switch method {
	case "initialize":
		return "the backend could not start"
	case "session.create":
		return "could not start a session"
	case "session.open":
		return "could not open the session"
	case "history.page":
		return "could not read the session's history"
	case "turn.start":
		return "the prompt was not sent"
	case "turn.cancel":
		return "could not cancel the turn"
	case "approval.answer":
		return "the answer did not reach the backend"
	case "status":
		return "could not read the backend's status"
	}
	return "a request failed"
}

// historyEntry is one history.page entry; the counts are a usage entry's
// (the usage capability).
type historyEntry struct {
	MessageID string `json:"message_id"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	Partial   bool   `json:"partial"`
	LastPart  bool   `json:"last_part"`
	Scope     string `json:"scope"` // an approval's: "once" or "session"
	counts
}

// replay prints one history page and asks for the next. Its entries
// become the items a live turn has (replies, activity lines with the
// approval before them and the output under them, notes) and print
// through the same rendering, so a resumed session reads as it did live.
func (m *Model) replay(raw json.RawMessage) tea.Cmd {
	var page struct {
		SessionID string         `json:"session_id"`
		Revision  string         `json:"revision"`
		Next      *string        `json:"next_cursor"`
		Entries   []historyEntry `json:"entries"`
	}
	_ = json.Unmarshal(raw, &page)
	var items []*item
	var cur strings.Builder
	for _, e := range page.Entries {
		// docs/protocol.md, history.page: concatenate contiguous parts of the same message only.
		cur.WriteString(e.Text)
		if !e.LastPart {
			continue
		}
		e.Text = cur.String()
		cur.Reset()
		items = m.replayed(items, e)
	}
	cmd := m.printAll(items)
	if page.Next != nil {
		return tea.Sequence(cmd, m.call("history.page", map[string]any{"session_id": page.SessionID, "revision": page.Revision, "cursor": *page.Next}))
	}
	return cmd
}

// replayed adds the history entry e (its parts joined) to items.
func (m *Model) replayed(items []*item, e historyEntry) []*item {
	switch e.Kind {
	case "user":
		if !e.Partial {
			m.input.AddHistory(e.Text) // Up brings back a resumed session's prompts too
		}
	case "assistant":
		return append(items, &item{msg: &liveMessage{final: e.Text, done: true, partial: e.Partial}})
	case "activity":
		if a, ok := parseActivity(e.Text); ok {
			return append(items, &item{act: a})
		}
	case "activity_output":
		// The output of the call whose line is just before it.
		if n := len(items); n > 0 && items[n-1].act != nil {
			items[n-1].act.addOutput(0, e.Text, true, e.Partial)
			return items
		}
	case "approval":
		return append(items, &item{note: allowedLine(human.Printable(e.Text), e.Scope == "session")})
	case "usage":
		m.usage.count(e.counts)
		return items
	}
	block := renderEntry(e.Kind, e.Text, m.textWidth(), m.opts.Hyperlinks)
	if e.Partial {
		block += " " + styleDim().Render("(partial)")
	}
	return append(items, &item{note: block})
}

// parseActivity reads an activity entry's text, "NAME STATE[: SUMMARY]"
// (docs/protocol.md, history.page), as the activity it was live.
func parseActivity(text string) (*activity, bool) {
	name, rest, ok := strings.Cut(text, " ")
	if !ok || name == "" {
		return nil, false
	}
	state, summary, _ := strings.Cut(rest, ": ")
	switch state {
	case "started", "completed", "failed":
		return &activity{name: name, state: state, summary: summary}, true
	}
	return nil, false
}

// startTurn sends the prompt; one the backend would refuse for its size
// is not sent, and one-turn mode fails.
func (m *Model) startTurn(prompt string) tea.Cmd {
	if why := m.limits.tooBig(prompt); why != "" {
		return m.failed("the prompt was not sent: " + why)
	}
	return tea.Sequence(m.print(renderEntry("user", prompt, m.width, false)), m.begin(prompt))
}

// starting reports whether the backend is still starting or attaching a
// session with every chance of becoming ready: initialize has not
// answered, or answered ready, or a restart is under way.
func (m *Model) starting() bool {
	return m.readiness == "" || m.readiness == "starting" || m.readiness == "ready" || m.restarting
}

// startPending starts the prompt entered while the session was opening.
func (m *Model) startPending() tea.Cmd {
	prompt := m.pending
	m.pending = ""
	return m.begin(prompt)
}
