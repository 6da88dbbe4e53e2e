package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// ClientFS is a client's file system: an editor that holds the files'
// unsaved buffers and reviews each write (ACP's fs/read_text_file and
// fs/write_text_file). When a tool call's context carries one
// (WithClientFS), read_file reads through it and write_file and edit_file
// read and write through it, after every protection and the approval:
// the guard decides, the client only carries the bytes. Errors are for
// the log; the model reads a fixed text.
type ClientFS interface {
	// ReadTextFile returns the text of the file at the absolute path.
	ReadTextFile(ctx context.Context, path string) (string, error)
	// WriteTextFile replaces the file at the absolute path with content;
	// ok is false when the client cannot take it (the tool then writes the
	// disk itself, as without a client).
	WriteTextFile(ctx context.Context, path, content string) (ok bool, err error)
}

type clientFSKey struct{}

// WithClientFS returns ctx carrying fs for the tool calls run under it.
func WithClientFS(ctx context.Context, fs ClientFS) context.Context {
	return context.WithValue(ctx, clientFSKey{}, fs)
}

// clientFS is the ClientFS ctx carries, or nil.
func clientFS(ctx context.Context) ClientFS {
	fs, _ := ctx.Value(clientFSKey{}).(ClientFS)
	return fs
}

// clientFailed is what the model reads when the client's file system
// failed a call.
const clientFailed = "the editor could not complete the file operation"

// The client reads and writes by path, following whatever symlink it
// meets, so it is handed a path only once the tools' own open of it holds:
// clientRead opens the file itself first, as a disk read would
// (openRegular: a regular file, no symlink on the way, not on procfs), and
// clientWrite checks the file, or the directory it will be created in, the
// same way (clientTarget). A file with more than one hard link got an
// inode of its own before (ownInode).

// clientRead reads real through the client fs after checking it: its
// text, or the result that stops tool's call.
func clientRead(ctx context.Context, fs ClientFS, tool, real string) (string, *Result) {
	f, bad := openRegular(real)
	if bad != "" {
		res := fail(tool, bad)
		return "", &res
	}
	f.Close()
	text, err := fs.ReadTextFile(ctx, real)
	if err != nil {
		res := errResult(tool, clientFailed)
		return "", &res
	}
	return text, nil
}

// clientWrite writes through ctx's client when there is one that takes
// the content and clientTarget finds the path fit for it; ok is false
// when the disk is to be written instead: writeFileAt, whose own checks
// then decide (and refuse what clientTarget did not pass).
func clientWrite(ctx context.Context, path, content string) (ok bool, err error) {
	cfs := clientFS(ctx)
	if cfs == nil || !clientTarget(path) {
		return false, nil
	}
	return cfs.WriteTextFile(ctx, path, content)
}

// clientTarget reports whether the client may write real, a path
// writeTarget resolved: an existing file opens as openRegular opens it; a
// missing one's nearest existing directory opens without following a
// symlink, off procfs.
func clientTarget(real string) bool {
	if _, err := os.Lstat(real); err == nil {
		f, bad := openRegular(real)
		if bad != "" {
			return false
		}
		f.Close()
		return true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	dir := filepath.Dir(real)
	for dir != filepath.Dir(dir) {
		if _, err := os.Lstat(dir); err == nil {
			break
		}
		dir = filepath.Dir(dir)
	}
	d, err := openDirResolved(dir)
	if err != nil {
		return false
	}
	defer d.Close()
	return !onProcFS(d)
}
