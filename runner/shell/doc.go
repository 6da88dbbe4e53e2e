// Package shell is the destructive-command guard rail of the shell tool.
// Destructive parses a command line with mvdan.cc/sh/v3/syntax (the bash
// dialect) and reports whether, read as bash reads it, it may do something
// hard to undo: a recursive delete or permission change outside the
// workspace and the temp directory, an inline interpreter program that
// deletes, a force push, formatting a disk... with a Reason from a small
// fixed set. A command line that does not parse, or whose script is not
// known before it runs, counts as destructive. Under approval = "auto" such
// a command still asks.
//
// What is read and what asks is described, for users, in
// docs/configuration.md ("The shell guard rail"); words.go expands words,
// destructive.go walks statements, commands.go follows the commands that
// run other commands, rules.go holds the rules and paths.go places paths;
// git.go and gitconfig.go read git as git does, vcs.go and vcsconfig.go
// the other version control clients (Mercurial, Sapling, jj...), arith.go
// the values bash evaluates as arithmetic and the names whose subscripts
// it evaluates.
//
// It is a guard rail, not a sandbox: script files, data one command writes
// and another runs, and what an interpreter program does beyond the names
// it mentions are not followed. The OS sandbox of auto mode is what holds
// against those.
package shell
