package approval

import "testing"

func TestOutcome(t *testing.T) {
	const reason = "recursive delete outside the workspace"
	for _, tc := range []struct {
		d                  Decision
		reason             string
		wantText, wantSumm string
	}{
		{Denied, "", "denied by user", "shell: denied by user"},
		{Denied, reason, "denied by user", "shell: denied by user (protected: " + reason + ")"},
		{Expired, "", TextExpired, "shell: approval expired, not run"},
		{Expired, reason, "refused: " + reason + "; " + TextExpired, "shell: refused: " + reason + " (approval expired)"},
		{Cancelled, "", "cancelled", "shell: cancelled"},
		{Cancelled, reason, "cancelled", "shell: cancelled"},
		{Refused, reason, "refused: " + reason, "shell: refused: " + reason},
		{Refused, "", "refused: nobody to approve the call", "shell: refused: nobody to approve the call"},
	} {
		text, summary := Outcome("shell", tc.d, tc.reason)
		if text != tc.wantText || summary != tc.wantSumm {
			t.Errorf("Outcome(shell, %v, %q) = %q, %q; want %q, %q", tc.d, tc.reason, text, summary, tc.wantText, tc.wantSumm)
		}
	}
}

// TestOutcomesDistinct: every decision that stops a call reads differently,
// so nobody mistakes an expiry or a refusal for the person's denial.
func TestOutcomesDistinct(t *testing.T) {
	for _, reason := range []string{"", "fork bomb"} {
		seen := map[string]Decision{}
		for _, d := range []Decision{Denied, Expired, Cancelled, Refused} {
			_, s := Outcome("shell", d, reason)
			if prev, dup := seen[s]; dup {
				t.Errorf("reason %q: %v and %v both read %q", reason, prev, d, s)
			}
			seen[s] = d
		}
	}
}
