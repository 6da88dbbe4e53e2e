// Package shell reads shell command lines for the destructive-command
// guard rail of the shell tool: Destructive reports whether a command line
// would, as far as its text tells, do something hard to undo (a recursive
// delete of the workspace, home or root, a force-push, formatting a disk...).
// It is pure (no I/O, no execution) and bounded; parse.go is the small
// POSIX-shell reader it uses.
package shell
