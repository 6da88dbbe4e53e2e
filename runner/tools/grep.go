package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Grep bounds.
const (
	maxPatternBytes  = 4096     // longer patterns are refused
	maxGrepLineBytes = 4096     // longer lines are matched on their first part only
	maxGrepShowBytes = 300      // of each matching line shown to the model
	maxGrepFileBytes = 64 << 20 // read at most this much of one file
	binaryProbeBytes = 8192     // a NUL in this many leading bytes marks a binary file
)

type grepTool struct{ o Options }

type grepArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

func (*grepTool) Name() string { return "grep" }
func (*grepTool) Description() string {
	return "Search files for lines matching a regular expression (RE2 syntax). Searches a file, or a directory recursively (skipping .git, binary and credential files). Prints path:line:text."
}
func (*grepTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string","description":"regular expression (RE2)"},"path":{"type":"string","description":"file or directory to search"}},"required":["pattern","path"]}`)
}
func (*grepTool) Mutating() bool { return false }
func (t *grepTool) Describe(args json.RawMessage) string {
	var a grepArgs
	_ = decode(args, &a)
	return describe("grep: " + a.Pattern + " in " + a.Path)
}

// errGrepFull stops the walk once the output bound is reached.
var errGrepFull = errors.New("grep: output full")

func (t *grepTool) Run(ctx context.Context, args json.RawMessage) Result {
	var a grepArgs
	if err := decode(args, &a); err != nil || a.Pattern == "" || len(a.Pattern) > maxPatternBytes {
		return errResult(t.Name(), "invalid arguments")
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return errResult(t.Name(), "invalid pattern")
	}
	if a.Path == "" {
		a.Path = "."
	}
	// The root is resolved and checked like read_file's path (a directory
	// of credentials, such as ~/.ssh or $MC_HOME, is refused as a whole);
	// below it nothing is followed: the walk goes by directory descriptor
	// and skips symlinks, so it never leaves the resolved root.
	root, stop := t.o.checkRead(ctx, t.Name(), args, a.Path, true)
	if stop != nil {
		return *stop
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return errResult(t.Name(), fsError(err))
	}
	g := grepRun{re: re, o: t.o, cwd: t.o.cwdRealOrSelf(), limit: t.o.MaxOutput}
	switch {
	case fi.IsDir():
		d, err := openDirResolved(root)
		if err != nil {
			return errResult(t.Name(), fsError(err))
		}
		if onProcFS(d) {
			d.Close()
			return refused(t.Name(), RefusedProcess)
		}
		err = g.dir(ctx, d, root, 0)
		d.Close()
		if err != nil && err != errGrepFull && ctx.Err() == nil {
			return errResult(t.Name(), fsError(err))
		}
		g.full = err == errGrepFull
	case fi.Mode().IsRegular():
		f, bad := openRegular(root)
		if bad != "" {
			return fail(t.Name(), bad)
		}
		g.full = g.file(f, root) == errGrepFull
		f.Close()
	}
	if ctx.Err() != nil {
		return errResult(t.Name(), "cancelled")
	}
	text, truncated := clip(g.out.String(), t.o.MaxOutput, g.full)
	summary := "grep: " + strconv.Itoa(g.matches) + " matches"
	if truncated {
		summary += " (truncated)"
	}
	if g.matches == 0 {
		text = "no matches"
	}
	return Result{Text: text, Summary: summary}
}

// ForceApproval asks before searching outside the working directory and
// the read roots, under AskOutsideReads (see protect.go).
func (t *grepTool) ForceApproval(args json.RawMessage) (bool, string) {
	var a grepArgs
	if decode(args, &a) != nil {
		return false, ""
	}
	if a.Path == "" {
		a.Path = "."
	}
	return t.o.askOutside(a.Path, true)
}

// maxGrepDepth bounds how deep grep descends below its root: the walk holds
// one open directory per level.
const maxGrepDepth = 128

// grepRun is the state of one search.
type grepRun struct {
	re      *regexp.Regexp
	o       Options
	cwd     string // resolved
	limit   int
	out     strings.Builder // at most limit bytes plus one line
	matches int
	full    bool // the output bound was reached
	reader  *bufio.Reader
}

// skipped reports whether the walk leaves p (a resolved path below the
// root) alone: a credential file or directory (tested as p/x), or the
// process file system.
func (g *grepRun) skipped(p string) bool {
	return procPath(p) || !g.o.AllowCredentialFiles && g.o.credentialPath(p)
}

// dir searches the directory d (open, at the resolved path p), its entries
// in name order, depth first. Each entry is opened relative to d without
// following a symlink (openChild), so a directory swapped for a link while
// the walk runs is not entered; symlinks, .git below the root, credential
// files and directories, and files that are not regular or live on procfs
// are skipped, as are levels past maxGrepDepth. It returns errGrepFull
// once the output is full, ctx's error once ctx ends.
func (g *grepRun) dir(ctx context.Context, d *os.File, p string, depth int) error {
	entries, err := d.ReadDir(-1)
	if err != nil && len(entries) == 0 {
		return nil // an unreadable directory is skipped
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		child := filepath.Join(p, name)
		switch {
		case e.IsDir():
			// A directory of credentials or /proc is not entered: every
			// file below would be skipped anyway.
			if name == ".git" || depth >= maxGrepDepth || g.skipped(filepath.Join(child, "x")) {
				continue
			}
			sub, err := openChild(d, name, true)
			if err != nil {
				continue
			}
			if onProcFS(sub) {
				sub.Close()
				continue
			}
			err = g.dir(ctx, sub, child, depth+1)
			sub.Close()
			if err != nil {
				return err
			}
		case e.Type().IsRegular():
			if g.skipped(child) {
				continue
			}
			f, err := openChild(d, name, false)
			if err != nil {
				continue
			}
			if fileChecked(f) != "" {
				f.Close() // swapped for a FIFO, a device, or on procfs
				continue
			}
			err = g.file(f, child)
			f.Close()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// file searches f, opened and checked, at the resolved path p, appending
// matches to out.
func (g *grepRun) file(f *os.File, p string) error {
	lr := io.LimitReader(f, maxGrepFileBytes)
	if g.reader == nil {
		g.reader = bufio.NewReaderSize(lr, maxGrepLineBytes)
	} else {
		g.reader.Reset(lr)
	}
	if head, _ := g.reader.Peek(binaryProbeBytes); bytes.IndexByte(head, 0) >= 0 {
		return nil
	}
	name := p
	if rel, err := filepath.Rel(g.cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
		name = rel
	}
	for lineNo := 1; ; lineNo++ {
		line, err := g.reader.ReadSlice('\n')
		long := err == bufio.ErrBufferFull
		if len(line) > 0 && g.re.Match(bytes.TrimRight(line, "\r\n")) {
			if err := g.add(name, lineNo, line); err != nil {
				return err
			}
		}
		// Skip the rest of a line longer than the buffer.
		for long {
			_, err = g.reader.ReadSlice('\n')
			long = err == bufio.ErrBufferFull
		}
		if err != nil {
			return nil
		}
	}
}

func (g *grepRun) add(name string, lineNo int, line []byte) error {
	g.matches++
	text := bound(string(bytes.TrimRight(line, "\r\n")), maxGrepShowBytes, "...")
	g.out.WriteString(name)
	g.out.WriteByte(':')
	g.out.WriteString(strconv.Itoa(lineNo))
	g.out.WriteByte(':')
	g.out.WriteString(text)
	g.out.WriteByte('\n')
	if g.out.Len() > g.limit {
		return errGrepFull
	}
	return nil
}
