package runner

import (
	"time"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/runner/config"
)

// Session retention, for the terminal CLI only: serve never prunes
// (docs/protocol.md, Sessions: "this endpoint adds no pruning sweep, and
// attached sessions retain active deletion protection").

// ListSessions returns the stored sessions of env's MC_HOME, most recently
// active first (`magi-code sessions list`). It reads the settings to find
// the storage root; errors are for a person and may name paths.
func ListSessions(env Env) ([]history.SessionInfo, error) {
	dir, _, err := config.Retention(env)
	if err != nil {
		return nil, err
	}
	return history.List(dir)
}

// SessionsDir is the directory of env's stored sessions (the ACP front
// door lists them without a runtime).
func SessionsDir(env Env) (string, error) {
	dir, _, err := config.Retention(env)
	return dir, err
}

// PruneSessions deletes the sessions of env's MC_HOME idle for at least
// session_retention_days (global setting, default 30) at now, never one
// whose lease another child holds, and returns what it removed and the
// setting's value. With session_retention_days = 0 it deletes nothing.
// The interactive CLI calls it at start, and `magi-code sessions prune`
// prints its result; errors are for a person and may name paths.
func PruneSessions(env Env, now time.Time) (removed []history.SessionInfo, days int, err error) {
	dir, days, err := config.Retention(env)
	if err != nil || days == 0 {
		return nil, days, err
	}
	removed, err = history.Prune(dir, time.Duration(days)*24*time.Hour, now)
	return removed, days, err
}
