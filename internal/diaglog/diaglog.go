// Package diaglog is a child's diagnostic log, for people who debug a
// frontend: JSON lines (log/slog) in $MC_HOME/logs/serve-<instance_id>.log,
// never on stdout or stderr.
//
// Logging never slows or blocks the caller: a record is encoded on the
// caller's goroutine and handed to one writer goroutine through a bounded
// queue (QueueLines); when the queue is full the line is dropped and
// counted, and the count is logged when room returns. A disk that fails or
// fills loses log lines only. Every string passes through the redactor
// before it is encoded.
//
// Nothing is created before Open: lines logged earlier wait in the queue,
// and a Log closed without Open creates nothing. The directory is made with
// mode 0700, files with 0600; a file past MaxFileBytes is rotated to
// NAME.1, and Open keeps the KeepFiles newest log files of the directory.
package diaglog

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/magi-code/magi-code/redact"
)

// Bounds of the log.
const (
	// QueueLines is how many encoded lines wait for the writer goroutine.
	QueueLines = 1024
	// MaxValueBytes bounds one string value in a line (cut at a rune
	// boundary, with a marker).
	MaxValueBytes = 16 << 10
	// MaxFileBytes is the size past which a log file is rotated.
	MaxFileBytes = 8 << 20
	// KeepFiles is how many log files (current and rotated) Open keeps in
	// the directory, newest first.
	KeepFiles = 20
)

// Prefix and Suffix frame a child's log file name: serve-<instance_id>.log.
const (
	Prefix = "serve-"
	Suffix = ".log"
)

// FileName is the log file of the child with instance ID id.
func FileName(id string) string { return Prefix + id + Suffix }

// ParseLevel reads a log level: "debug", "info" (or ""), "warn", "error".
func ParseLevel(s string) (slog.Level, bool) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, true
	case "", "info":
		return slog.LevelInfo, true
	case "warn":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	}
	return 0, false
}

// Log is one child's diagnostic log. Its methods are safe for concurrent
// use. Create it with New, call Open once the file may exist, and Close it
// before the process exits.
type Log struct {
	*slog.Logger

	path  string
	level slog.LevelVar

	lines   chan []byte
	dropped atomic.Uint64 // lines dropped on a full queue, not yet reported
	lost    atomic.Uint64 // lines the disk refused
	closing atomic.Bool

	openOnce, closeOnce sync.Once
	opened              chan struct{} // closed by Open
	quit                chan struct{} // closed by Close
	done                chan struct{} // closed when the writer goroutine ends
}

// New returns a log that will write to dir/serve-<instanceID>.log, and
// starts its writer goroutine, which creates nothing before Open and ends
// with Close.
func New(dir, instanceID string, level slog.Level) *Log {
	l := &Log{
		path:   filepath.Join(dir, FileName(instanceID)),
		lines:  make(chan []byte, QueueLines),
		opened: make(chan struct{}),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	l.level.Set(level)
	l.Logger = slog.New(slog.NewJSONHandler(queueWriter{l}, &slog.HandlerOptions{Level: &l.level, ReplaceAttr: redactAttr}))
	go l.run() // ends after Close (see run)
	return l
}

// Discard returns a log that writes nothing and starts no goroutine.
func Discard() *Log {
	l := &Log{opened: make(chan struct{}), quit: make(chan struct{}), done: make(chan struct{})}
	l.Logger = slog.New(slog.DiscardHandler)
	close(l.done)
	return l
}

// Path is the log file's path.
func (l *Log) Path() string { return l.path }

// SetLevel changes the level of later records.
func (l *Log) SetLevel(level slog.Level) { l.level.Set(level) }

// Lost reports the lines lost so far: dropped on a full queue, or refused
// by the disk.
func (l *Log) Lost() uint64 { return l.dropped.Load() + l.lost.Load() }

// Open lets the writer create the directory and the file and write what is
// queued. Later calls do nothing.
func (l *Log) Open() { l.openOnce.Do(func() { close(l.opened) }) }

// Close stops taking lines, and has the writer write what is queued, sync
// and close the file. It returns when that is done or when ctx ends (the
// writer is then left to process exit). Without Open, nothing is written.
func (l *Log) Close(ctx context.Context) {
	l.closeOnce.Do(func() {
		l.closing.Store(true)
		close(l.quit)
	})
	select {
	case <-l.done:
	case <-ctx.Done():
	}
}

// queueWriter hands each encoded record to the writer goroutine without
// blocking. The JSON handler makes one Write per record.
type queueWriter struct{ l *Log }

func (w queueWriter) Write(p []byte) (int, error) {
	l := w.l
	if l.closing.Load() {
		return len(p), nil
	}
	select {
	case l.lines <- slices.Clone(p):
	default:
		l.dropped.Add(1)
	}
	return len(p), nil
}

// redactAttr passes every string (the message included) through the
// redactor and bounds it.
func redactAttr(_ []string, a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(bound(redact.String(a.Value.String())))
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			a.Value = slog.StringValue(bound(redact.String(err.Error())))
		} else {
			a.Value = slog.StringValue(bound(redact.String(a.Value.String())))
		}
	}
	return a
}

func bound(s string) string {
	if len(s) <= MaxValueBytes {
		return s
	}
	cut := MaxValueBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…[cut]"
}

// run is the writer goroutine. It waits for Open (or Close), then writes
// queued lines until Close, and finally syncs.
func (l *Log) run() {
	defer close(l.done)
	select {
	case <-l.opened:
	case <-l.quit:
		select {
		case <-l.opened: // opened, then closed at once
		default:
			return // never opened: create nothing
		}
	}
	f := openFile(l.path)
	defer func() {
		if f != nil {
			_ = f.file.Sync()
			_ = f.file.Close()
		}
	}()
	for {
		select {
		case line := <-l.lines:
			l.write(&f, line)
		case <-l.quit:
			for {
				select {
				case line := <-l.lines:
					l.write(&f, line)
				default:
					l.reportDropped(&f)
					return
				}
			}
		}
	}
}

// write writes one line, after reporting the lines dropped since the last
// report (room has returned). A failed write loses the line.
func (l *Log) write(f **file, line []byte) {
	l.reportDropped(f)
	if *f == nil || (*f).write(line) != nil {
		l.lost.Add(1)
	}
}

func (l *Log) reportDropped(f **file) {
	n := l.dropped.Swap(0)
	if n == 0 {
		return
	}
	line := []byte(`{"level":"WARN","msg":"log lines dropped: the log queue was full","count":` + strconv.FormatUint(n, 10) + "}\n")
	if *f == nil || (*f).write(line) != nil {
		l.lost.Add(n + 1)
	}
}

// file is the open log file and its size, rotated past MaxFileBytes.
type file struct {
	path string
	file *os.File
	size int64
}

// openFile makes the directory (0700) and opens the log file (0600) for
// appending, after pruning the directory to the newest KeepFiles log files.
// It returns nil when either fails: the log then loses its lines.
func openFile(path string) *file {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil
	}
	prune(dir, KeepFiles-1)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil
	}
	size := int64(0)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return &file{path: path, file: f, size: size}
}

func (f *file) write(line []byte) error {
	if f.size > 0 && f.size+int64(len(line)) > MaxFileBytes {
		if err := f.rotate(); err != nil {
			return err
		}
	}
	n, err := f.file.Write(line)
	f.size += int64(n)
	return err
}

// rotate moves the full file to NAME.1 (replacing an older one) and starts
// an empty file.
func (f *file) rotate() error {
	_ = f.file.Sync()
	_ = f.file.Close()
	_ = os.Rename(f.path, f.path+".1")
	nf, err := os.OpenFile(f.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		f.file = nil
		return err
	}
	f.file, f.size = nf, 0
	return nil
}

// prune removes all but the keep newest log files of dir.
func prune(dir string, keep int) {
	files, _ := List(dir)
	for i := keep; i < len(files); i++ {
		_ = os.Remove(filepath.Join(dir, files[i].Name()))
	}
}

// List returns the log files of dir (current and rotated), newest first.
func List(dir string) ([]fs.FileInfo, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []fs.FileInfo
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, Prefix) || !strings.Contains(name, Suffix) {
			continue
		}
		if info, err := e.Info(); err == nil {
			files = append(files, info)
		}
	}
	slices.SortFunc(files, func(a, b fs.FileInfo) int { return b.ModTime().Compare(a.ModTime()) })
	return files, nil
}
