package diaglog

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestNothingCreatedBeforeOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	l := New(dir, "i1", 0)
	l.Info("before admission")
	l.Close(context.Background())
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("Stat(%s) = %v; want not exist (never opened)", dir, err)
	}
}

func TestLinesRedactedAndModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	l := New(dir, "i1", 0)
	l.Info("queued before open "+secret, "stderr", "token "+secret)
	l.Open()
	l.Debug("below the level")
	l.Info("exit", "cause", "output_deadline")
	l.Close(context.Background())
	raw, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), secret) {
		t.Fatalf("log holds the secret: %s", raw)
	}
	lines := readLines(t, l.Path())
	if len(lines) != 2 || lines[1]["cause"] != "output_deadline" {
		t.Fatalf("lines = %v; want the queued line, then the exit line", lines)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, l.Path(): 0o600} {
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != want {
			t.Fatalf("mode of %s = %v, %v; want %v", path, st.Mode().Perm(), err, want)
		}
	}
}

func TestFullQueueDropsAndCounts(t *testing.T) {
	dir := t.TempDir()
	l := New(dir, "i1", 0)
	for range QueueLines + 10 {
		l.Info("line")
	}
	if got := l.Lost(); got != 10 {
		t.Fatalf("Lost() = %d; want 10", got)
	}
	l.Open()
	l.Close(context.Background())
	lines := readLines(t, l.Path())
	if len(lines) != QueueLines+1 {
		t.Fatalf("%d lines; want %d and the drop report", len(lines), QueueLines+1)
	}
	var reported float64
	for _, m := range lines {
		if c, ok := m["count"].(float64); ok {
			reported += c
		}
	}
	if reported != 10 {
		t.Fatalf("dropped lines reported: %v; want 10", reported)
	}
}

func TestUnwritableDirectoryLosesLinesOnly(t *testing.T) {
	// A parent that is a regular file: no one, root included, can create
	// the log directory under it.
	t.Run("parent is a file", func(t *testing.T) {
		parent := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(parent, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		checkLinesLost(t, filepath.Join(parent, "logs"))
	})
	t.Run("read-only parent", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes into read-only directories")
		}
		parent := t.TempDir()
		if err := os.Chmod(parent, 0o500); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(parent, 0o700)
		checkLinesLost(t, filepath.Join(parent, "logs"))
	})
}

func checkLinesLost(t *testing.T, dir string) {
	t.Helper()
	l := New(dir, "i1", 0)
	l.Open()
	l.Info("a")
	l.Info("b")
	l.Close(context.Background())
	if got := l.Lost(); got != 2 {
		t.Fatalf("Lost() = %d; want both lines counted as lost", got)
	}
}

func TestPruneKeepsNewest(t *testing.T) {
	dir := t.TempDir()
	for i := range KeepFiles + 5 {
		l := New(dir, "c"+strconv.Itoa(i), 0)
		l.Open()
		l.Info("x")
		l.Close(context.Background())
	}
	files, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != KeepFiles {
		t.Fatalf("%d files kept; want %d", len(files), KeepFiles)
	}
}

// TestErrorAttributesRedacted: an error logged as an attribute (serve logs
// its exit cause so) is redacted like a string, at the top level, inside a
// group and among a logger's With attributes; a Stringer too.
func TestErrorAttributesRedacted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	l := New(dir, "i1", 0)
	l.Open()
	cause := fmt.Errorf("serve: %w", errors.New("provider said token "+secret))
	l.Error("exit", "err", cause)
	l.Error("exit", slog.Group("run", slog.Any("cause", cause)))
	l.With("cause", cause).Warn("with")
	l.Info("stringer", "value", stringer("key "+secret))
	l.Close(context.Background())
	raw, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), secret) {
		t.Fatalf("log holds the secret of an error or Stringer attribute: %s", raw)
	}
	lines := readLines(t, l.Path())
	if len(lines) != 4 {
		t.Fatalf("%d lines; want 4: %s", len(lines), raw)
	}
	if msg, _ := lines[0]["err"].(string); !strings.HasPrefix(msg, "serve: provider said token ") {
		t.Fatalf("err attribute = %q; want the error's redacted text", lines[0]["err"])
	}
}

type stringer string

func (s stringer) String() string { return string(s) }

// TestValueBound: a string value of MaxValueBytes is kept whole; a longer
// one is cut at a rune boundary, with a marker.
func TestValueBound(t *testing.T) {
	exact := strings.Repeat("a", MaxValueBytes)
	if got := bound(exact); got != exact {
		t.Fatalf("a value of exactly MaxValueBytes was cut to %d bytes", len(got))
	}
	long := strings.Repeat("a", MaxValueBytes-1) + "é" // the rune straddles the bound
	got := bound(long)
	if got != strings.Repeat("a", MaxValueBytes-1)+"…[cut]" {
		t.Fatalf("bound of %d bytes = %d bytes ending %q; want MaxValueBytes-1 bytes and the marker", len(long), len(got), got[len(got)-12:])
	}
	// Not UTF-8 at all: no rune starts before the bound.
	if got := bound(strings.Repeat("\x80", MaxValueBytes+1)); got != "…[cut]" {
		t.Fatalf("bound of continuation bytes only = %d bytes; want the marker alone", len(got))
	}
}

// TestDiskRefusesNothing: lines that were written, and the report of
// dropped lines, count as lost to neither the disk nor the queue.
func TestDiskRefusesNothing(t *testing.T) {
	l := New(t.TempDir(), "i1", 0)
	for range QueueLines + 3 {
		l.Info("line")
	}
	l.Open()
	l.Close(context.Background())
	if n := l.lost.Load(); n != 0 {
		t.Fatalf("%d lines counted as refused by the disk; want 0", n)
	}
	lines := readLines(t, l.Path())
	if len(lines) != QueueLines+1 || lines[0]["count"] != float64(3) {
		t.Fatalf("%d lines, first %v; want the report of 3 dropped, then %d lines", len(lines), lines[0], QueueLines)
	}
}

// TestRotation: a line that would take the file past MaxFileBytes moves it
// to NAME.1 first; one that fills it exactly does not; a file's size
// counts what an earlier child wrote to it; an empty file is never rotated,
// however long the line.
func TestRotation(t *testing.T) {
	line := []byte(`{"msg":"x"}` + "\n")
	cases := []struct {
		name    string
		before  int64 // bytes in the file before Open (-1: no file)
		line    []byte
		rotated bool
	}{
		{"fills exactly", MaxFileBytes - int64(len(line)), line, false},
		{"one byte over", MaxFileBytes - int64(len(line)) + 1, line, true},
		{"an earlier child's file", MaxFileBytes - 1, line, true},
		{"empty file, long line", 0, []byte(strings.Repeat("x", MaxFileBytes+1)), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName("i1"))
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, c.before); err != nil {
				t.Fatal(err)
			}
			f := openFile(path)
			if f == nil {
				t.Fatal("openFile failed")
			}
			defer func() { f.file.Close() }()
			if err := f.write(c.line); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(path + ".1")
			if rotated := err == nil; rotated != c.rotated {
				t.Fatalf("rotated = %v; want %v", rotated, c.rotated)
			}
			st, _ := os.Stat(path)
			want := c.before + int64(len(c.line))
			if c.rotated {
				want = int64(len(c.line))
			}
			if st.Size() != want || f.size != want {
				t.Fatalf("file %d bytes, counted %d; want %d", st.Size(), f.size, want)
			}
		})
	}
}
