package mission

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/magi-code/magi-code/client/human"
)

// usage is the token counts of the session's turns: the sums of what
// went in and came out, and the context the last response used of its
// model's window. They come from the usage run events of this app's turns
// and from the usage entries of a resumed session's history
// (docs/protocol.md, Optional capabilities), through count.
type usage struct {
	in, out, cached int64
	context, window int64 // the last own response's; window 0: unknown
	hasContext      bool  // an own response reported
	seen            bool
}

// counts is a usage event's data or a history usage entry's counts: an
// event is one response, whose context in use is its input and output when
// it is the turn's own (source turn; a compaction's or a subagent's
// response only costs tokens); an entry is a turn's sums with the context
// its last own response used (null: none).
type counts struct {
	In      int64  `json:"input_tokens"`
	Out     int64  `json:"output_tokens"`
	Cached  int64  `json:"cached_input_tokens"`
	Context *int64 `json:"context_tokens"`
	Window  *int64 `json:"context_window"`
	Source  string `json:"source"`
}

// add applies one usage event's data.
func (u *usage) add(data json.RawMessage) {
	var c counts
	if json.Unmarshal(data, &c) != nil {
		return
	}
	c.Context = nil
	if c.Source == "turn" {
		ctx := c.In + c.Out
		c.Context = &ctx
	}
	u.count(c)
}

// count adds c: its tokens to the sums, its context, if any, as the
// context in use.
func (u *usage) count(c counts) {
	if c.In < 0 || c.Out < 0 || c.Cached < 0 || (c.Context != nil && *c.Context < 0) {
		return
	}
	u.in, u.out, u.cached, u.seen = u.in+c.In, u.out+c.Out, u.cached+c.Cached, true
	if c.Context == nil {
		return
	}
	u.context, u.window, u.hasContext = *c.Context, 0, true
	if c.Window != nil && *c.Window > 0 {
		u.window = *c.Window
	}
}

// short is the status bar's part: the context left of the window, or
// the context used when the window is unknown; "" before the turn's own
// responses reported any.
func (u usage) short() string {
	switch {
	case !u.hasContext:
		return ""
	case u.window > 0:
		left := max(0, 100-u.context*100/u.window)
		return fmt.Sprintf("%d%% context left", left)
	}
	return tokens(u.context) + " context"
}

// tokens is a count for people: 950, 12.3k, 1.2M.
func tokens(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// statusText is /status: the selection, the approval mode, the sandbox,
// the session, and the tokens of the session's turns.
func (m *Model) statusText() string {
	var b strings.Builder
	row := func(k, v string) { fmt.Fprintf(&b, "  %-14s %s\n", k, v) }
	b.WriteString("status:\n")
	row("provider", orDash(m.provider))
	row("model", orDash(m.model))
	row("readiness", human.ReadinessWord(m.readiness))
	mode := "-"
	if m.opts.ApprovalMode != nil {
		mode = human.Visible(m.opts.ApprovalMode(), 32)
	}
	row("approval mode", mode)
	row("sandbox", orDash(m.sandbox))
	row("session", orDash(m.sessionID))
	row("directory", orDash(human.Visible(m.opts.Cwd, 4096)))
	if m.opts.BuildWarning != "" {
		row("build", human.Visible(m.opts.BuildWarning, 512))
	}
	u := m.usage
	if !u.seen {
		row("tokens", "none reported yet")
	} else {
		row("tokens in", fmt.Sprintf("%s (%s from the provider's cache)", tokens(u.in), tokens(u.cached)))
		row("tokens out", tokens(u.out))
		ctx := "-"
		if u.hasContext {
			ctx = tokens(u.context)
		}
		if u.hasContext && u.window > 0 {
			ctx += " of " + tokens(u.window) + " (" + u.short() + ")"
		}
		row("context", ctx)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// noSandbox reports whether the backend said that nothing confines the
// commands it runs (status's sandbox "unavailable" or "off"): what the
// person allows then runs with all their permissions, and under auto
// every shell command asks unless [tools] unsandboxed_auto is set. The
// status bar and each approval say so (docs/mission-control.md).
func (m *Model) noSandbox() bool { return m.sandbox == "unavailable" || m.sandbox == "off" }
