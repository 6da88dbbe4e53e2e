// Package hooks runs the commands configured in settings ([[hooks]]) before
// and after a tool call and at the end of a turn. Runner implements
// agent.Hooks; New builds it from config.Settings.Hooks.
//
// The shape is the one other coding agents use (event, matcher, command):
//
//	[[hooks]]
//	event = "pre_tool_use"          # pre_tool_use | post_tool_use | stop
//	matcher = "shell|write_file"    # which tools; see Matching
//	command = "./check.sh"          # run with /bin/sh -c in the session cwd
//	timeout_ms = 10000              # default 10 s
//
// # Matching
//
// A hook's matcher selects the tools it runs for (pre_tool_use and
// post_tool_use; stop hooks ignore it):
//
//   - "" or "*" matches every tool;
//   - anything else is an RE2 regular expression (Go regexp syntax) that
//     must match the WHOLE tool name: it is compiled as ^(?:matcher)$.
//
// So a plain name is an exact match ("shell" matches shell, not
// shell_extra), a |-separated list of names is a set ("write_file|edit_file"),
// and a pattern selects a family ("mcp__github__.*", "mcp__.*"). Tool names
// are the names offered to the model: the built-ins (read_file, write_file,
// edit_file, list_dir, grep, shell), mcp__SERVER__TOOL, run_code, task.
// A matcher that does not compile never matches silently: every event of its
// kind reports that hook as failed (a diagnostic), so a broken guard is seen.
// CheckMatcher gives the same verdict for configuration checks.
//
// # Running a hook
//
// Each matching hook runs, in settings order, as /bin/sh -c COMMAND (on
// Windows cmd.exe; see runner/subproc):
//
//   - in the session cwd, in its own process group (on timeout, on ctx end
//     and after the shell exits the whole group gets SIGKILL, so background
//     children never outlive the hook);
//   - with the minimal environment (docs/protocol.md, Choices; tools.MinimalEnv: PATH,
//     HOME, LANG, TERM), never the provider credentials;
//   - with stdin a JSON document describing the event (see Input), where
//     arguments and result are bounded by InputFieldBytes;
//   - with stdout and stderr captured separately, each bounded by
//     OutputBytes (the rest is read and discarded, so the hook never blocks
//     on a full pipe); our own stdout and stderr are never inherited;
//   - for at most timeout_ms (DefaultTimeout when zero).
//
// # Outcomes
//
// pre_tool_use: exit 0 allows the call; exit 2 blocks it, and the hook's
// stderr (trimmed, redacted with stages/redact, at most OutputBytes) is the
// reason the model sees; any other exit status, a signal, a timeout or a
// failure to start is a hook failure, returned as err: the agent reports it
// as a diagnostic and the call goes on. Hooks run in settings order; the
// first block wins and the later hooks do not run. A block is returned with
// a nil err even when an earlier hook failed (that failure is logged), so a
// caller that checks err first can never lose a block.
//
// post_tool_use and stop: every matching hook runs; failures are joined
// into err; output is only logged.
//
// Errors are *Error values whose Error text is fixed and safe for a
// diagnostic summary ("pre_tool_use hook 2 failed (exit status 1)"): never
// the command, its output or a path. Details go to the injected logf, with
// output redacted and bounded.
//
// Goroutines: each hook run starts, under a conc.WaitGroup, one goroutine
// per captured stream and one feeding stdin, and waits for all of them
// before returning. A Runner is immutable after New and safe for
// concurrent use.
package hooks
