// Package console shows a protocol session the way a terminal frontend
// would: streamed assistant text, reconciliation, tool activity, approval
// requests and the run's end. The demo and the interactive terminal mode of
// magi-code share it.
package console

import (
	"context"
	"fmt"
	"io"

	"github.com/magi-code/magi-code/client"
)

// Approve decides an approval request; summary is the backend's safe text.
type Approve func(summary string) bool

// Show prints the events of one run until its run.finished and answers
// approval requests with approve. It returns the run.finished revision
// ("" when null) and outcome.
func Show(ctx context.Context, c *client.Client, w io.Writer, sessionID, runID string, approve Approve) (revision, outcome string, err error) {
	streaming := false
	endLine := func() {
		if streaming {
			fmt.Fprintln(w)
			streaming = false
		}
	}
	for {
		ev, err := c.WaitEvent(ctx, func(e client.Event) bool { return e.RunID == runID })
		if err != nil {
			return "", "", err
		}
		d, err := ev.Fields()
		if err != nil {
			return "", "", err
		}
		switch ev.Name {
		case "input.persisted":
			fmt.Fprintln(w, "  [input persisted]")
		case "message.delta":
			if !streaming {
				fmt.Fprint(w, "assistant> ")
				streaming = true
			}
			fmt.Fprint(w, d.Text)
		case "message.reconcile":
			endLine()
			if d.LastPart {
				fmt.Fprintln(w, "  [reconciled]")
			}
		case "activity":
			endLine()
			label := d.Kind + " " + d.Name
			if d.Name == d.Kind || d.Name == "" {
				label = d.Kind
			}
			fmt.Fprintf(w, "  [%s %s] %s\n", label, d.State, d.Summary)
		case "approval.requested":
			endLine()
			fmt.Fprintf(w, "  [approval requested] %s\n", d.Summary)
			allow := approve(d.Summary)
			if _, err := c.Call(ctx, "approval.answer", map[string]any{"session_id": sessionID, "run_id": runID, "approval_id": d.ApprovalID, "allow": allow}); err != nil {
				return "", "", err
			}
		case "diagnostic":
			endLine()
			fmt.Fprintf(w, "  [diagnostic %s] %s\n", d.Code, d.Summary)
		case "run.finished":
			endLine()
			code := ""
			if d.ErrorCode != nil {
				code = " (" + *d.ErrorCode + ")"
			}
			fmt.Fprintf(w, "  [run finished: %s%s, history %s]\n", d.Outcome, code, d.Persistence)
			if d.Revision != nil {
				revision = *d.Revision
			}
			return revision, d.Outcome, nil
		}
	}
}
