package history

import (
	"bufio"
	"encoding/json"
	"io"
	"path/filepath"
)

// FirstInput returns the text of the first user input stored in session
// id of sessionsDir, for a session list shown to a person: "" when there
// is none in the first headerBytes of the file or it cannot be read. It
// takes no lease and opens no symlink, FIFO or device.
func FirstInput(sessionsDir, id string) string {
	f, _, code := openSession(filepath.Join(sessionsDir, id+".jsonl"))
	if code != "" {
		return ""
	}
	defer f.Close()
	lines := bufio.NewScanner(io.LimitReader(f, headerBytes))
	lines.Buffer(make([]byte, 0, 4096), headerBytes)
	for lines.Scan() {
		var r struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(lines.Bytes(), &r) == nil && r.Type == typeNames[TypeInput] {
			return r.Text
		}
	}
	return ""
}
