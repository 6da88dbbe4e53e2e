package mission

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// tallSummary is a request of n lines, step-00 to step-(n-1).
func tallSummary(n int) string {
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf("step-%02d", i))
	}
	return "shell: " + strings.Join(lines, "\n")
}

// A request taller than the screen is never allowed by y before every
// line of it was on the screen: v opens the pager, y allows only once the
// pager showed its last line; n denies at any time; Esc closes the pager
// and leaves the turn running; scrolling keys never reach the draft.
func TestPagerBeforeY(t *testing.T) {
	for _, size := range []struct{ cols, rows int }{{30, 12}, {80, 24}, {30, 8}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			m, fb, clk := sized(t, size.cols, size.rows, Options{})
			send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": tallSummary(40), "expires_in_ms": 60000})
			clk.t = clk.t.Add(2 * time.Second)
			key(m, "y")
			if m.approval == nil || answered(fb) {
				t.Fatal("y allowed a request never shown whole")
			}
			clk.t = clk.t.Add(2 * time.Second)
			key(m, "v")
			if m.approval.pager != 0 || !strings.Contains(view(m), "step-00") {
				t.Fatalf("v did not open the pager at the request's start:\n%s", view(m))
			}
			checkFits(t, m, size.cols, size.rows)
			key(m, "down")
			key(m, "pgdown")
			clk.t = clk.t.Add(2 * time.Second)
			key(m, "y")
			if m.approval == nil || answered(fb) {
				t.Fatalf("y allowed before the request's end was shown:\n%s", view(m))
			}
			if m.input.Value() != "" {
				t.Fatalf("pager keys reached the draft: %q", m.input.Value())
			}
			for range 40 {
				if strings.Contains(view(m), "step-39") {
					break
				}
				key(m, "down")
			}
			if !strings.Contains(view(m), "step-39") {
				t.Fatalf("the pager never showed the last line:\n%s", view(m))
			}
			checkFits(t, m, size.cols, size.rows)
			key(m, "esc")
			if m.approval == nil || m.approval.pager != -1 || m.cancelling {
				t.Fatal("Esc in the pager did not close only the pager")
			}
			clk.t = clk.t.Add(2 * time.Second)
			key(m, "y")()
			if !lastAllow(fb) {
				t.Fatal("y did not allow once the whole request was paged through")
			}
		})
	}
}

// n denies a tall request without paging; End reaches its end at once.
func TestPagerEndAndDeny(t *testing.T) {
	m, fb, clk := sized(t, 30, 12, Options{})
	send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": tallSummary(40), "expires_in_ms": 60000})
	clk.t = clk.t.Add(2 * time.Second)
	key(m, "v")
	key(m, "end")
	if !m.approval.paged || !strings.Contains(view(m), "step-39") || strings.Contains(view(m), "step-00") {
		t.Fatalf("End did not show the request's end:\n%s", view(m))
	}
	key(m, "home")
	if !strings.Contains(view(m), "step-00") {
		t.Fatalf("Home did not go back to the start:\n%s", view(m))
	}
	clk.t = clk.t.Add(2 * time.Second)
	key(m, "n")()
	if !answered(fb) || lastAllow(fb) {
		t.Fatal("n did not deny")
	}
}

// A request that fits once the screen grew is allowed by y; one that
// fitted and no longer does after a resize needs the pager again.
func TestYFollowsTheSize(t *testing.T) {
	m, fb, clk := sized(t, 80, 24, Options{})
	send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": tallSummary(12), "expires_in_ms": 60000})
	if m.approval.printed {
		t.Fatal("12 lines printed above at 80x24")
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 10})
	clk.t = clk.t.Add(2 * time.Second)
	key(m, "y")
	if m.approval == nil || answered(fb) {
		t.Fatal("y allowed a request that no longer fits and was not paged")
	}
	if !m.approval.printed {
		t.Fatal("the request that no longer fits was not printed above")
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 40})
	clk.t = clk.t.Add(2 * time.Second)
	key(m, "y")()
	if !lastAllow(fb) {
		t.Fatalf("y did not allow a request shown whole:\n%s", view(m))
	}
}

// With the whole request (approval.request), a command the summary cut
// is shown whole, its size the request's, and y allows it; a request
// that was itself cut at its bound keeps y off.
func TestWholeRequestReplacesTheCutSummary(t *testing.T) {
	command := "shell: echo harmless" + strings.Repeat(" ", 1000) + "; touch ~/x"
	for _, truncated := range []bool{false, true} {
		m, fb, clk := sized(t, 30, 24, Options{})
		send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": command[:893] + "...", "expires_in_ms": 60000,
			"request": command, "request_truncated": truncated})
		flat := strings.Join(strings.Fields(view(m)), " ")
		if !strings.Contains(flat, "␠×1000 ; touch ~/x") || !strings.Contains(flat, "(1.0 KiB)") {
			t.Fatalf("the whole request is not shown:\n%s", view(m))
		}
		clk.t = clk.t.Add(2 * time.Second)
		if cmd := key(m, "y"); cmd != nil {
			cmd()
		}
		if allowed := answered(fb) && lastAllow(fb); allowed == truncated {
			t.Fatalf("request_truncated %v: y allowed %v", truncated, allowed)
		}
	}
}
