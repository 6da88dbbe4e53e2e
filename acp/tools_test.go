package acp

import (
	"strings"
	"testing"
)

// TestToolPathsRedacted: a path that holds a secret never goes out as it
// is: the title and the diff's path are redacted, and the call has no
// location (a redacted path names no file); a path too long for the frame
// is left out of locations rather than cut into a path that does not
// exist. An ordinary path is the location, whole.
func TestToolPathsRedacted(t *testing.T) {
	const tok = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
	for _, tt := range []struct {
		name, args string
		location   bool
	}{
		{"write_file", `{"path":"s_` + tok + `.txt","content":"k"}`, false},
		{"edit_file", `{"path":"d/` + tok + `/f","old":"a","new":"b"}`, false},
		{"read_file", `{"path":"/abs/` + tok + `"}`, false},
		{"grep", `{"pattern":"x","path":"` + tok + `"}`, false},
		{"write_file", `{"path":"` + strings.Repeat("d/", titleEscBytes) + `f","content":"k"}`, false},
		{"write_file", `{"path":"plain.txt","content":"k"}`, true},
	} {
		ts := &toolState{id: "c1", name: tt.name, status: "completed"}
		describe(ts, "/work", []byte(tt.args))
		for div := 1; div <= 4; div *= 2 {
			u := ts.fields(div, true)
			frame := string(marshal(u)) + string(marshal(resultContent(ts, "done", false, div)))
			if strings.Contains(frame, tok) {
				t.Errorf("%s %s: the secret went out: %.300s", tt.name, tt.args, frame)
			}
			_, has := u["locations"]
			if has != tt.location {
				t.Errorf("%s %.60s: locations %.100v, want %v", tt.name, tt.args, u["locations"], tt.location)
			}
			if has && u["locations"].([]obj)[0]["path"] != "/work/plain.txt" {
				t.Errorf("location %v", u["locations"])
			}
		}
	}
}

// TestMCPNoticeRedacted: a client's server name that holds a secret is
// redacted in the notice of the servers that did not start.
func TestMCPNoticeRedacted(t *testing.T) {
	const tok = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
	text := mcpNoticeText([]string{"plain", "srv_" + tok})
	if strings.Contains(text, tok) || strings.Contains(text, tok[:12]) || !strings.Contains(text, "plain, srv_") {
		t.Errorf("notice %q", text)
	}
}

// TestLocationLine: a read_file call's location is at line 1 (it reads
// from the start); an edit's location has no line until the runner says
// which line the edit changed first (ToolLine), then that line; another
// activity's line goes nowhere.
func TestLocationLine(t *testing.T) {
	line := func(ts *toolState) any {
		locs, _ := ts.fields(1, false)["locations"].([]obj)
		if len(locs) != 1 {
			t.Fatalf("%s: locations %v", ts.name, locs)
		}
		return locs[0]["line"]
	}
	read := &toolState{id: "r", name: "read_file"}
	describe(read, "/work", []byte(`{"path":"a.go"}`))
	if got := line(read); got != 1 {
		t.Errorf("read_file line %v, want 1", got)
	}
	edit := &toolState{id: "e", name: "edit_file"}
	describe(edit, "/work", []byte(`{"path":"a.go","old":"x","new":"y"}`))
	if got := line(edit); got != nil {
		t.Errorf("edit_file line before it ran: %v", got)
	}
	k := &sink{calls: map[string]*toolState{"act-1": edit}}
	k.ToolLine("act-2", 9)
	if got := line(edit); got != nil {
		t.Errorf("another activity's line: %v", got)
	}
	k.ToolLine("act-1", 7)
	if got := line(edit); got != 7 {
		t.Errorf("edit_file line %v, want 7", got)
	}
}
