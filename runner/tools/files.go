package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// MaxEditBytes bounds the file size edit_file rewrites (it must hold the
// whole file to replace text in it).
const MaxEditBytes = 8 << 20

// MaxDirEntries bounds how many entries list_dir reads.
const MaxDirEntries = 10000

type pathArgs struct {
	Path string `json:"path"`
}

// Sentinels of the file tools' own type checks.
var (
	errNotDir     = errors.New("not a directory")
	errNotRegular = errors.New("not a regular file")
)

// fsError turns a filesystem error into a short safe outcome: never the
// error text, which quotes the path.
func fsError(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "not found"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, fs.ErrExist):
		return "already exists"
	case errors.Is(err, errNotDir), errors.Is(err, syscall.ENOTDIR):
		return "not a directory"
	case errors.Is(err, errNotRegular):
		return "not a regular file"
	case errors.Is(err, errTooManyLinks), errors.Is(err, syscall.ELOOP):
		return "too many symbolic links"
	}
	return "i/o error"
}

// regularOr checks a path's type before it is opened, so that the common
// case of a FIFO or device never reaches open(2) at all.
func regularOr(fi fs.FileInfo) string {
	if fi.IsDir() {
		return "is a directory"
	}
	if !fi.Mode().IsRegular() {
		return "not a regular file"
	}
	return ""
}

// openRegular opens real (a path realPath resolved) for reading if it is a
// regular file. A FIFO or device could block or never end, so the type is
// checked before the open and again on the opened file (fstat), and the
// open itself neither blocks nor follows a symlink swapped in meanwhile
// (openResolved). A file of the process file system, wherever it is
// mounted, is refused (RefusedProcess).
func openRegular(real string) (*os.File, string) {
	fi, err := os.Lstat(real)
	if err != nil {
		return nil, fsError(err)
	}
	if bad := regularOr(fi); bad != "" {
		return nil, bad
	}
	f, err := openResolved(real, os.O_RDONLY, 0, false)
	if err != nil {
		return nil, fsError(err)
	}
	if bad := fileChecked(f); bad != "" {
		f.Close()
		return nil, bad
	}
	return f, ""
}

// fileChecked checks an opened file before a byte is read or written: it
// must be regular (fstat) and not on the process file system (fstatfs).
func fileChecked(f *os.File) string {
	if bad := fileRegular(f); bad != "" {
		return bad
	}
	if onProcFS(f) {
		return RefusedProcess
	}
	return ""
}

// fileRegular checks an opened file's type (fstat): it must be regular.
func fileRegular(f *os.File) string {
	fi, err := f.Stat()
	if err != nil {
		return fsError(err)
	}
	return regularOr(fi)
}

// fail is the result of a call stopped with outcome: a refusal when the
// outcome is one of the fixed refusals, a filesystem error otherwise.
func fail(tool, outcome string) Result {
	if strings.HasPrefix(outcome, "refused: ") {
		return refused(tool, outcome)
	}
	return errResult(tool, outcome)
}

// writeFileAt replaces the content of real (a path writeTarget resolved)
// with data, creating it (mode 0644) and its missing parent directories
// when create is set. An existing target must be a regular file; the open
// neither blocks nor follows a symlink swapped in after the check, and the
// opened file is checked again before a byte is written. An existing
// file's mode is kept.
//
// A file with more than one hard link is never written in place: another
// of its names may lie outside the working directory (pnpm's store links
// every package file into node_modules). Its new content goes to a new
// file in the same directory, renamed over this name (replaceFile); the
// other names keep the old content.
func writeFileAt(real string, data []byte, create bool) string {
	fi, err := os.Lstat(real)
	switch {
	case err == nil:
		if bad := regularOr(fi); bad != "" {
			return bad
		}
	case !errors.Is(err, fs.ErrNotExist) || !create:
		return fsError(err)
	}
	flag := os.O_WRONLY
	if create {
		flag |= os.O_CREATE
	}
	f, err := openResolved(real, flag, 0o644, create)
	if err != nil {
		return fsError(err)
	}
	// Nothing is truncated before these checks: a FIFO or device swapped
	// in meanwhile never gets data, and a linked file keeps its content.
	if bad := fileChecked(f); bad != "" {
		f.Close()
		return bad
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fsError(err)
	}
	if linkCount(st) > 1 {
		f.Close()
		if err := replaceFile(real, bytes.NewReader(data), st.Mode().Perm()); err != nil {
			return fsError(err)
		}
		return ""
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fsError(err)
	}
	return ""
}

// ownInode gives real (a path writeTarget resolved), when it is a regular
// file with more than one hard link, an inode of its own holding the same
// content (a copy beside it, renamed over it: replaceFile), before the
// editor writes it: an editor may write in place, through every name of
// the inode, one of which may lie outside the working directory (pnpm's
// store). A missing file, or one with one link, is left as it is.
func ownInode(real string) string {
	if fi, err := os.Lstat(real); err != nil || !fi.Mode().IsRegular() {
		return "" // a new file, or one the editor refuses as it is
	}
	f, bad := openRegular(real)
	if bad != "" {
		return bad
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fsError(err)
	}
	if linkCount(st) < 2 {
		return ""
	}
	if err := replaceFile(real, f, st.Mode().Perm()); err != nil {
		return fsError(err)
	}
	return ""
}

func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// ---- read_file ----

type readFile struct{ o Options }

func (*readFile) Name() string { return "read_file" }
func (*readFile) Description() string {
	return "Read a text file. Relative paths resolve against the session working directory. Long files are truncated. Credential files (.env, keys, auth files) and /proc are refused; a file outside the working directory needs the user's approval."
}
func (*readFile) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file path"}},"required":["path"]}`)
}
func (*readFile) Mutating() bool { return false }
func (t *readFile) Describe(args json.RawMessage) string {
	var a pathArgs
	_ = decode(args, &a)
	return describe("read_file: " + a.Path)
}

// ForceApproval asks before a read outside the working directory and the
// read roots, under AskOutsideReads (see protect.go).
func (t *readFile) ForceApproval(args json.RawMessage) (bool, string) {
	var a pathArgs
	if decode(args, &a) != nil {
		return false, ""
	}
	return t.o.askOutside(a.Path, false)
}

func (t *readFile) Run(ctx context.Context, args json.RawMessage) Result {
	var a pathArgs
	if err := decode(args, &a); err != nil || a.Path == "" {
		return errResult(t.Name(), "invalid arguments")
	}
	real, stop := t.o.checkRead(ctx, t.Name(), args, a.Path, false)
	if stop != nil {
		return *stop
	}
	if fs := clientFS(ctx); fs != nil {
		// The editor's buffer, which may hold unsaved changes.
		data, stop := clientRead(ctx, fs, t.Name(), real)
		if stop != nil {
			return *stop
		}
		return readResult(data, t.o.MaxOutput)
	}
	f, bad := openRegular(real)
	if bad != "" {
		return fail(t.Name(), bad)
	}
	defer f.Close()
	// Read one byte past the limit to know whether the file was cut.
	data, err := io.ReadAll(io.LimitReader(f, int64(t.o.MaxOutput)+1))
	if err != nil {
		return errResult(t.Name(), fsError(err))
	}
	return readResult(string(data), t.o.MaxOutput)
}

// readResult is read_file's result for the text data (at most max bytes
// of it reach the model).
func readResult(data string, max int) Result {
	text, truncated := clip(data, max, false)
	summary := "read_file: " + strconv.Itoa(countLines(data)) + " lines"
	if truncated {
		summary += " (truncated)"
	}
	return Result{Text: text, Summary: summary}
}

// ---- write_file ----

type writeFile struct{ o Options }

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func (*writeFile) Name() string { return "write_file" }
func (*writeFile) Description() string {
	return "Create or overwrite a file with the given content, creating parent directories. Writes outside the working directory, into .git, .magi-code or .claude and to credential files are refused."
}
func (*writeFile) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file path"},"content":{"type":"string","description":"the complete new content"}},"required":["path","content"]}`)
}
func (*writeFile) Mutating() bool { return true }
func (t *writeFile) Describe(args json.RawMessage) string {
	var a writeArgs
	_ = decode(args, &a)
	n := 0
	if a.Content != nil {
		n = len(*a.Content)
	}
	if a.Content == nil {
		return describe("write_file: " + a.Path + " (0 bytes)")
	}
	return changed("write_file: "+a.Path+" ("+strconv.Itoa(n)+" bytes)", nil, *a.Content)
}

func (t *writeFile) Run(ctx context.Context, args json.RawMessage) Result {
	var a writeArgs
	if err := decode(args, &a); err != nil || a.Path == "" || a.Content == nil {
		return errResult(t.Name(), "invalid arguments")
	}
	if ctx.Err() != nil {
		return errResult(t.Name(), "cancelled")
	}
	p, reason, bad := t.o.writeTarget(a.Path)
	if reason != "" {
		return refused(t.Name(), reason)
	}
	if bad != "" {
		return errResult(t.Name(), bad)
	}
	if clientFS(ctx) != nil {
		if bad := ownInode(p); bad != "" {
			return fail(t.Name(), bad)
		}
	}
	if ok, err := clientWrite(ctx, p, *a.Content); err != nil {
		return errResult(t.Name(), clientFailed)
	} else if !ok {
		if bad := writeFileAt(p, []byte(*a.Content), true); bad != "" {
			return fail(t.Name(), bad)
		}
	}
	s := "write_file: " + strconv.Itoa(len(*a.Content)) + " bytes written"
	return Result{Text: changed(s, nil, *a.Content), Summary: s}
}

// ---- edit_file ----

type editFile struct{ o Options }

type editArgs struct {
	Path string  `json:"path"`
	Old  string  `json:"old"`
	New  *string `json:"new"`
}

func (*editFile) Name() string { return "edit_file" }
func (*editFile) Description() string {
	return "Replace the only occurrence of old with new in a file. old must match exactly once. Edits outside the working directory, in .git, .magi-code or .claude and of credential files are refused."
}
func (*editFile) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file path"},"old":{"type":"string","description":"exact text to replace; must occur exactly once"},"new":{"type":"string","description":"replacement text"}},"required":["path","old","new"]}`)
}
func (*editFile) Mutating() bool { return true }
func (t *editFile) Describe(args json.RawMessage) string {
	var a editArgs
	_ = decode(args, &a)
	if a.New == nil {
		return describe("edit_file: " + a.Path)
	}
	// The change itself, so that the person sees what they allow (the
	// approval request is redacted and bounded by the caller).
	return changed("edit_file: "+a.Path, &a.Old, *a.New)
}

// changed is an edit's or a write's change as the person sees it, in its
// approval (Describe) and in its result, which the model and the person
// (the call's output) read after the fact, approved or not: head, then
// old's lines prefixed "- " (none for a write), then new's prefixed "+ ",
// bounded like a description.
func changed(head string, old *string, new string) string {
	s := head
	if old != nil {
		s += "\n" + diffLines("- ", *old)
	}
	return describe(s + "\n" + diffLines("+ ", new))
}

// diffLines prefixes each of the first describeLines lines of s, and says
// how many more there are.
func diffLines(prefix, s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	more := 0
	if len(lines) > describeLines {
		lines, more = lines[:describeLines], len(lines)-describeLines
	}
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	if more > 0 {
		lines = append(lines, prefix+"… "+strconv.Itoa(more)+" more lines")
	}
	return strings.Join(lines, "\n")
}

// describeLines bounds each side of an edit's change in its description.
const describeLines = 8

func (t *editFile) Run(ctx context.Context, args json.RawMessage) Result {
	var a editArgs
	if err := decode(args, &a); err != nil || a.Path == "" || a.Old == "" || a.New == nil {
		return errResult(t.Name(), "invalid arguments")
	}
	p, reason, bad := t.o.writeTarget(a.Path)
	if reason != "" {
		return refused(t.Name(), reason)
	}
	if bad != "" {
		return errResult(t.Name(), bad)
	}
	var data []byte
	if fs := clientFS(ctx); fs != nil {
		text, stop := clientRead(ctx, fs, t.Name(), p)
		if stop != nil {
			return *stop
		}
		data = []byte(text)
	} else {
		f, bad := openRegular(p)
		if bad != "" {
			return fail(t.Name(), bad)
		}
		var err error
		data, err = io.ReadAll(io.LimitReader(f, MaxEditBytes+1))
		f.Close()
		if err != nil {
			return errResult(t.Name(), fsError(err))
		}
	}
	if len(data) > MaxEditBytes {
		return errResult(t.Name(), "file too large")
	}
	content := string(data)
	switch n := strings.Count(content, a.Old); n {
	case 0:
		return errResult(t.Name(), "old text not found")
	case 1:
	default:
		return errResult(t.Name(), "old text occurs "+strconv.Itoa(n)+" times")
	}
	if ctx.Err() != nil {
		return errResult(t.Name(), "cancelled")
	}
	at := strings.Index(content, a.Old)
	edited := content[:at] + *a.New + content[at+len(a.Old):]
	if clientFS(ctx) != nil {
		if bad := ownInode(p); bad != "" {
			return fail(t.Name(), bad)
		}
	}
	if ok, err := clientWrite(ctx, p, edited); err != nil {
		return errResult(t.Name(), clientFailed)
	} else if !ok {
		if bad := writeFileAt(p, []byte(edited), false); bad != "" {
			return fail(t.Name(), bad)
		}
	}
	const s = "edit_file: 1 replacement"
	return Result{Text: changed(s, &a.Old, *a.New), Summary: s, Line: firstChangedLine(content, edited, at)}
}

// firstChangedLine is the 1-based line of content where edited, content
// with a replacement at byte offset at, first differs from it (the line of
// old's start when the replacement changed nothing).
func firstChangedLine(content, edited string, at int) int {
	p := at
	for p < len(content) && p < len(edited) && content[p] == edited[p] {
		p++
	}
	if p == len(content) && p == len(edited) {
		p = at
	}
	return strings.Count(content[:p], "\n") + 1
}

// ---- list_dir ----

type listDir struct{ o Options }

func (*listDir) Name() string { return "list_dir" }
func (*listDir) Description() string {
	return "List a directory's entries, sorted; directories end with /. A directory outside the working directory needs the user's approval."
}
func (*listDir) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"directory path"}},"required":["path"]}`)
}
func (*listDir) Mutating() bool { return false }
func (t *listDir) Describe(args json.RawMessage) string {
	var a pathArgs
	_ = decode(args, &a)
	return describe("list_dir: " + a.Path)
}

// ForceApproval asks before listing a directory outside the working
// directory and the read roots, under AskOutsideReads (see protect.go).
func (t *listDir) ForceApproval(args json.RawMessage) (bool, string) {
	var a pathArgs
	if decode(args, &a) != nil {
		return false, ""
	}
	if a.Path == "" {
		a.Path = "."
	}
	return t.o.askOutside(a.Path, true)
}

func (t *listDir) Run(ctx context.Context, args json.RawMessage) Result {
	var a pathArgs
	if err := decode(args, &a); err != nil {
		return errResult(t.Name(), "invalid arguments")
	}
	if a.Path == "" {
		a.Path = "."
	}
	real, stop := t.o.checkRead(ctx, t.Name(), args, a.Path, true)
	if stop != nil {
		return *stop
	}
	// openDirResolved refuses anything but a directory without blocking:
	// open(2) of a FIFO would wait for a writer, beyond the reach of ctx.
	f, err := openDirResolved(real)
	if err != nil {
		return errResult(t.Name(), fsError(err))
	}
	defer f.Close()
	if onProcFS(f) {
		return refused(t.Name(), RefusedProcess)
	}
	// Read at most MaxDirEntries+1 entries: a huge directory stays bounded.
	entries, err := f.ReadDir(MaxDirEntries + 1)
	if err != nil && err != io.EOF {
		return errResult(t.Name(), fsError(err))
	}
	truncated := len(entries) > MaxDirEntries
	if truncated {
		entries = entries[:MaxDirEntries]
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
		if e.IsDir() {
			names[i] += "/"
		}
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		if b.Len()+len(n)+1 > t.o.MaxOutput {
			truncated = true
			break
		}
		b.WriteString(n)
		b.WriteByte('\n')
	}
	text, truncated := clip(b.String(), t.o.MaxOutput, truncated)
	summary := "list_dir: " + strconv.Itoa(len(names)) + " entries"
	if truncated {
		summary += " (truncated)"
	}
	return Result{Text: text, Summary: summary}
}
