package runner

import (
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/config"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRestoreSelection(t *testing.T) {
	rt := &Runtime{snap: &config.Snapshot{Provider: "fixture", Model: "fixture-model", ContextID: "c"}}
	cases := []struct {
		name    string
		info    history.OpenInfo
		model   string
		notices []string
	}{
		{"no header", history.OpenInfo{}, "fixture-model", nil},
		{"same", history.OpenInfo{HasSaved: true, Saved: history.Selection{Provider: "fixture", Model: "fixture-model"}}, "fixture-model", nil},
		{"other model", history.OpenInfo{HasSaved: true, Saved: history.Selection{Provider: "fixture", Model: "m2"}}, "m2", []string{protocol.NoticeSavedSelectionNotice}},
		{"other provider", history.OpenInfo{HasSaved: true, Saved: history.Selection{Provider: "openai", Model: "gpt"}}, "fixture-model", []string{protocol.NoticeSavedSelectionUnavailable}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sel, notices, _ := rt.Restore(c.info)
			if sel.Model != c.model || strings.Join(notices, ",") != strings.Join(c.notices, ",") {
				t.Fatalf("restoreSelection = %+v, %v; want model %q, %v", sel, notices, c.model, c.notices)
			}
		})
	}
}
