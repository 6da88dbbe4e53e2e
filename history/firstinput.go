package history

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"unicode/utf8"
)

// FirstInput returns the text of the first user input stored in session
// id of sessionsDir, for a session list shown to a person: "" when there
// is none in the first headerBytes of the file or it cannot be read. An
// input whose record runs past headerBytes (a first prompt with a long
// mentioned file) gives the part of its text that lies within them. It
// takes no lease and opens no symlink, FIFO or device.
func FirstInput(sessionsDir, id string) string {
	f, _, code := openSession(filepath.Join(sessionsDir, id+".jsonl"))
	if code != "" {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, headerBytes))
	if err != nil {
		return ""
	}
	for len(data) > 0 {
		line, rest, whole := bytes.Cut(data, []byte{'\n'})
		data = rest
		var r struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if whole && json.Unmarshal(line, &r) == nil && r.Type == typeNames[TypeInput] {
			return r.Text
		}
		if !whole && bytes.HasPrefix(line, inputPrefix) {
			return textPrefix(line)
		}
	}
	return ""
}

// inputPrefix starts an input record as the store writes it.
var inputPrefix = []byte(`{"type":"` + typeNames[TypeInput] + `",`)

// textPrefix decodes what a cut record line holds of its text: from its
// "text" key (a key: quotes inside string values are escaped) up to the
// cut, less an escape the cut split.
func textPrefix(line []byte) string {
	_, b, ok := bytes.Cut(line, []byte(`"text":"`))
	if !ok {
		return ""
	}
	end := 0
	for end < len(b) && b[end] != '"' {
		n := 1
		if b[end] == '\\' {
			n = 2
			if end+1 < len(b) && b[end+1] == 'u' {
				n = 6
			}
		}
		if end+n > len(b) {
			break
		}
		end += n
	}
	if end == len(b) { // the cut may split a character too
		for k := end - 1; k >= 0 && k >= end-utf8.UTFMax; k-- {
			if utf8.RuneStart(b[k]) {
				if !utf8.FullRune(b[k:end]) {
					end = k
				}
				break
			}
		}
	}
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, b[:end]...), '"'), &s) != nil {
		return ""
	}
	return s
}
