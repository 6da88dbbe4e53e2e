// Package shell is the destructive-command guard rail of the shell tool.
// Destructive reads a command line with mvdan.cc/sh/v3/syntax (the bash
// dialect, the parser behind shfmt) and reports whether it may do
// something hard to undo, with a Reason from a small fixed set. Under
// approval = "auto" such a command still asks.
//
// A command line that does not parse asks. The reading follows bash:
// brace expansion, quoting ($'...', $"..."), process and command
// substitution (their commands are checked too), here-documents and
// here-strings fed to a shell or an interpreter, functions (checked at
// each call with its arguments, and once with unknown arguments when never
// called by name), aliases, cd, and the commands that run other commands:
// sh/bash -c, eval, trap, watch, su -c, env (-S), sudo, doas, command,
// exec, nice, nohup, timeout, xargs (the arguments it reads are unknown),
// find -exec and others (see wrappers).
//
// Values: HOME and TMPDIR come from the environment given, PWD and $(pwd)
// from the tracked directory, unless the command line may assign them (by
// name, or a name it computes: then all of them and the positional
// parameters are unknown, see forget);
// every other variable, command substitution or ~user is unknown, and a
// path holding an unknown part is outside the workspace. An unknown
// command name ("$X") is read as each command below; an unquoted one
// ($CMD) asks.
//
// What asks:
//   - rm -r (any spelling of -r, -R, --recursive), find -delete or
//     find -exec/-ok of a command, git clean -f: of a path outside the
//     workspace and the temp directory (TMPDIR, else /tmp), of the
//     workspace itself or everything in it (*, .*), of a .git directory;
//     rm --no-preserve-root. Paths are resolved as the kernel walks them
//     (symbolic links of existing components, then ".."); globs are
//     matched against the directory. The innermost of the workspace, the
//     temp directory and HOME decides, so a home below /tmp is still home.
//     find over the workspace narrowed by a test (-name, -mtime...) is
//     allowed; find -L and -follow are treated as leaving it.
//   - chmod, chown, chgrp -R of a path outside the workspace and the temp
//     directory, or of the workspace itself.
//   - rsync --del* into such a path; after an ln in the same command line,
//     any path (the link is not seen yet).
//   - python/pypy -c, perl -e, node/bun -e/-p, deno eval, ruby -e, php -r,
//     awk, or such a program read from a here-document or a pipe, whose text
//     names a delete primitive (rmtree, unlink, remove, rmdir, rm_r,
//     fs.rm, FileUtils...) or a way to run commands or hide names
//     (system, exec, subprocess, spawn, eval, __import__, getattr...).
//   - git push --force (and -f, --force-with-lease, +ref), --mirror,
//     --delete, -d, --prune, :ref; git reset --hard; git -c
//     alias.X='!command' is checked as a command.
//   - mkfs and the like with an operand, wipefs -a, diskutil erase*, dd of=
//     or shred of a /dev disk, a redirection writing to one; kill -1;
//     shutdown, reboot, halt, poweroff; a fork bomb.
//   - a script whose text is not known (sh -c "$X", eval "$X", a pipe into
//     a shell, bash <(...), source <(...)), nesting past maxDepth, more
//     than maxSteps of work.
//
// It is a guard rail, not a sandbox. It does not read script files (sh
// x.sh, python x.py, source), follow data written by one command and run
// by another, or understand an interpreter program beyond the names it
// mentions (sed's e command and other programs that run commands are not
// known), see links mv, cp or tar put in place; non-recursive rm, mv and
// truncating redirections are not checked. The OS sandbox of auto mode is what holds against those.
package shell
