package mission

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// PromptHistory keeps the prompts and commands sent, across runs, in one
// file of JSON strings, one a line, mode 0600: the newest keptPrompts
// entries, each at most maxPromptEntry bytes. The file is read from its
// last historyReadBytes, so a file grown by hand cannot make start-up read
// more; a file past historyRewriteBytes is rewritten with the kept entries
// (a temporary file renamed over it). Failures to read or write it are
// silent: it is a convenience, and the app works without it.
type PromptHistory struct {
	mu      sync.Mutex
	path    string
	entries []string
	size    int64 // the file's size as last known
}

const (
	keptPrompts         = 500
	maxPromptEntry      = 16 << 10
	historyReadBytes    = 2 << 20
	historyRewriteBytes = 1 << 20
)

// OpenHistory loads the history kept in path (none when it does not exist).
func OpenHistory(path string) *PromptHistory {
	h := &PromptHistory{path: path}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		h.size = st.Size()
		if h.size > historyReadBytes {
			if _, err := f.Seek(h.size-historyReadBytes, io.SeekStart); err != nil {
				return h
			}
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 8*maxPromptEntry) // escapes grow a line up to 6x
	first := h.size > historyReadBytes                   // the first line read may be a tail
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" && len(s) <= maxPromptEntry {
			h.keep(s)
		}
	}
	if h.size > historyRewriteBytes {
		h.rewrite()
	}
	return h
}

// keep adds s to the entries in memory, the oldest dropped past the bound.
func (h *PromptHistory) keep(s string) {
	if n := len(h.entries); n > 0 && h.entries[n-1] == s {
		return
	}
	h.entries = append(h.entries, s)
	if len(h.entries) > keptPrompts {
		h.entries = append(h.entries[:0], h.entries[len(h.entries)-keptPrompts:]...)
	}
}

// Entries are the kept prompts, oldest first.
func (h *PromptHistory) Entries() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.entries...)
}

// Add keeps s and appends it to the file (created 0600; an existing file
// is made 0600 too).
func (h *PromptHistory) Add(s string) {
	if s == "" || len(s) > maxPromptEntry {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.keep(s)
	line, err := json.Marshal(s)
	if err != nil {
		return
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	_ = f.Chmod(0o600)
	n, _ := f.Write(append(line, '\n'))
	_ = f.Close()
	h.size += int64(n)
	if h.size > historyRewriteBytes {
		h.rewrite()
	}
}

// rewrite replaces the file with the kept entries.
func (h *PromptHistory) rewrite() {
	tmp, err := os.CreateTemp(filepath.Dir(h.path), ".prompt-history-*")
	if err != nil {
		return
	}
	w := bufio.NewWriter(tmp)
	var size int64
	for _, s := range h.entries {
		line, _ := json.Marshal(s)
		n, _ := w.Write(append(line, '\n'))
		size += int64(n)
	}
	if w.Flush() != nil || tmp.Chmod(0o600) != nil || tmp.Close() != nil || os.Rename(tmp.Name(), h.path) != nil {
		_ = os.Remove(tmp.Name())
		return
	}
	h.size = size
}
