package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/magi-code/magi-code/protocol"
)

// Retention: the terminal CLI lists sessions and prunes old ones
// (session_retention_days). serve never calls these: spec, "this endpoint
// adds no pruning sweep, and attached sessions retain active deletion
// protection".

// SessionInfo describes one stored session for a person.
type SessionInfo struct {
	ID string
	// Cwd is the workspace its header records; "" when the header records
	// none or cannot be read.
	Cwd string
	// LastActivity is the file's modification time: its last append.
	LastActivity time.Time
	Size         int64
}

// headerBytes bounds what List reads of a session's first line.
const headerBytes = 64 << 10

// List returns the sessions stored in sessionsDir (files <id>.jsonl with
// an ID of the session grammar, regular files only), most recently active
// first. A missing directory has no sessions. It takes no lease and reads
// at most headerBytes of each file.
func List(sessionsDir string) ([]SessionInfo, error) {
	entries, err := os.ReadDir(sessionsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []SessionInfo
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !protocol.ValidSessionID(id) || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue // removed meanwhile, or not a regular file
		}
		out = append(out, SessionInfo{ID: id, Cwd: headerCwd(filepath.Join(sessionsDir, e.Name())),
			LastActivity: fi.ModTime(), Size: fi.Size()})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].LastActivity.Equal(out[j].LastActivity) {
			return out[i].LastActivity.After(out[j].LastActivity)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// headerCwd reads the cwd of a session file's header line, or "".
func headerCwd(path string) string {
	f, _, code := openSession(path) // no symlink, FIFO or device is opened
	if code != "" {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, headerBytes))
	line, _, found := bytes.Cut(b, []byte{'\n'})
	if !found {
		return ""
	}
	var h struct {
		Type string `json:"type"`
		Cwd  string `json:"cwd"`
	}
	if json.Unmarshal(line, &h) != nil || h.Type != typeNames[TypeHeader] {
		return ""
	}
	return h.Cwd
}

// Prune deletes every session of sessionsDir idle for at least maxAge at
// now (LastActivity <= now-maxAge), with its lock files, and returns what
// it removed. A session whose leases another holder has (a child that has
// it attached, idle or not) is never deleted: Prune takes both leases
// first and checks the age again under them. maxAge <= 0 deletes nothing.
// Errors of single sessions are joined; the others are still pruned.
func Prune(sessionsDir string, maxAge time.Duration, now time.Time) ([]SessionInfo, error) {
	if maxAge <= 0 {
		return nil, nil
	}
	list, err := List(sessionsDir)
	if err != nil {
		return nil, err
	}
	return prune(sessionsDir, list, now.Add(-maxAge))
}

// prune deletes the sessions of list idle since cutoff. The list may be
// stale by then: each session's age and type are checked again under its
// leases.
func prune(sessionsDir string, list []SessionInfo, cutoff time.Time) ([]SessionInfo, error) {
	var removed []SessionInfo
	var errs []error
	for _, s := range list {
		if s.LastActivity.After(cutoff) {
			continue
		}
		l, code := acquireLease(sessionsDir, s.ID)
		if code != "" {
			continue // attached elsewhere (or its lease is unusable): kept
		}
		path := filepath.Join(sessionsDir, s.ID+".jsonl")
		// An append may have happened between List and the lease.
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() || fi.ModTime().After(cutoff) {
			l.release()
			continue
		}
		if err := os.Remove(path); err != nil {
			l.release()
			errs = append(errs, err)
			continue
		}
		l.removeFiles(sessionsDir, s.ID)
		l.release()
		removed = append(removed, s)
	}
	return removed, errors.Join(errs...)
}
