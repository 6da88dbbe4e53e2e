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
	root := resolve(t.o.Cwd, a.Path)
	fi, err := os.Stat(root)
	if err != nil {
		return errResult(t.Name(), fsError(err))
	}
	// A directory whose every entry is protected (.ssh, MC_HOME) is refused
	// as a whole rather than searched to no matches.
	if !t.o.readAllowed(a.Path) || fi.IsDir() && !t.o.readAllowed(filepath.Join(a.Path, "x")) {
		return refused(t.Name(), RefusedCredentialRead)
	}
	// Walked paths are checked as walked and as placed under the resolved
	// root, so that a symlinked root into a protected tree is caught too.
	realRoot := realOrSelf(root)
	protected := func(p string) bool {
		return !t.o.AllowCredentialFiles &&
			(t.o.credentialPath(p) || t.o.credentialPath(realRoot+strings.TrimPrefix(p, root)))
	}
	g := grepRun{re: re, cwd: t.o.Cwd, limit: t.o.MaxOutput}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			return nil // unreadable entries are skipped
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != root {
				return filepath.SkipDir
			}
			if p != root && protected(p+"/x") {
				return filepath.SkipDir // a credential directory (.ssh, MC_HOME)
			}
			return nil
		}
		if !d.Type().IsRegular() || protected(p) {
			return nil // credential files are skipped, like binaries
		}
		return g.file(p)
	})
	if ctx.Err() != nil {
		return errResult(t.Name(), "cancelled")
	}
	text, truncated := clip(g.out.String(), t.o.MaxOutput, err == errGrepFull)
	summary := "grep: " + strconv.Itoa(g.matches) + " matches"
	if truncated {
		summary += " (truncated)"
	}
	if g.matches == 0 {
		text = "no matches"
	}
	return Result{Text: text, Summary: summary}
}

// grepRun is the state of one search.
type grepRun struct {
	re      *regexp.Regexp
	cwd     string
	limit   int
	out     strings.Builder // at most limit bytes plus one line
	matches int
	reader  *bufio.Reader
}

// file searches one file, appending matches to out.
func (g *grepRun) file(p string) error {
	// The walk saw a regular file, but it may have been swapped for a FIFO
	// or a symlink since: open without blocking or following, and check
	// the opened file's type.
	f, err := openNoFollow(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fileRegular(f) != "" {
		return nil
	}
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
