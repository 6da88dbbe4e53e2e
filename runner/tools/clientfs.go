package tools

import "context"

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

// clientWrite writes through ctx's client when there is one that takes
// the content; ok is false when the disk is to be written instead.
func clientWrite(ctx context.Context, path, content string) (ok bool, err error) {
	fs := clientFS(ctx)
	if fs == nil {
		return false, nil
	}
	return fs.WriteTextFile(ctx, path, content)
}
