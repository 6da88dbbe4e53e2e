package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/magi-code/magi-code/internal/diaglog"
	"github.com/magi-code/magi-code/runner"
)

// followPoll is how often `logs --follow` looks for new lines.
const followPoll = 200 * time.Millisecond

// logsMain prints a child's diagnostic log: the child with instance ID
// instance, else the latest one of this MC_HOME. With follow it keeps
// printing what is appended (and the new file after a rotation) until
// interrupted.
func logsMain(env runner.Env, instance string, follow bool) int {
	dir, err := env.LogDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "magi-code: logs:", err)
		return 1
	}
	path, err := logPath(dir, instance)
	if err != nil {
		fmt.Fprintln(os.Stderr, "magi-code: logs:", err)
		return 1
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "magi-code: logs:", err)
		return 1
	}
	defer func() { f.Close() }()
	var offset int64
	for {
		n, err := io.Copy(os.Stdout, f)
		offset += n
		if err != nil {
			return 1
		}
		if !follow {
			return 0
		}
		time.Sleep(followPoll)
		if st, err := os.Stat(path); err == nil && st.Size() < offset {
			// Rotated: the file at path is a new one.
			if nf, err := os.Open(path); err == nil {
				f.Close()
				f, offset = nf, 0
			}
		}
	}
}

// logPath is the log file of instance, or the newest child log of dir.
func logPath(dir, instance string) (string, error) {
	if instance != "" {
		path := filepath.Join(dir, diaglog.FileName(instance))
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("no log of instance %s in %s", instance, dir)
		}
		return path, nil
	}
	files, err := diaglog.List(dir)
	if err != nil {
		return "", fmt.Errorf("no logs in %s", dir)
	}
	for _, f := range files {
		if strings.HasSuffix(f.Name(), diaglog.Suffix) { // not a rotated NAME.1
			return filepath.Join(dir, f.Name()), nil
		}
	}
	return "", fmt.Errorf("no logs in %s", dir)
}
