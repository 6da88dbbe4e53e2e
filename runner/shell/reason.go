package shell

// Reason says why a command line must be approved even under
// approval = "auto". It is one of a small fixed set of phrases, safe to show
// and to record: it never carries any part of the command.
type Reason string

// The reasons Destructive gives.
const (
	// ReasonDeleteOutside: a recursive delete (rm -r, find -delete or
	// -exec rm, git clean) of a path outside the workspace and the temp
	// directory, or of a path the text does not pin down.
	ReasonDeleteOutside Reason = "recursive delete outside the workspace"
	// ReasonDeleteWorkspace: a recursive delete of the workspace itself or
	// of everything in it.
	ReasonDeleteWorkspace Reason = "recursive delete of the workspace"
	// ReasonDeleteGit: a recursive delete of version control metadata
	// (runner/protected: .git, .hg, .jj...).
	ReasonDeleteGit Reason = "recursive delete of version control metadata (.git, .hg, .jj...)"
	// ReasonPermOutside: chmod, chown or chgrp -R of a path outside the
	// workspace and the temp directory.
	ReasonPermOutside Reason = "recursive permission change outside the workspace"
	// ReasonPermWorkspace: chmod, chown or chgrp -R of the workspace itself.
	ReasonPermWorkspace Reason = "recursive permission change of the workspace"
	// ReasonInterpreter: an inline program (python -c, perl -e, node -e,
	// ruby -e...) that names a delete primitive or runs other commands.
	ReasonInterpreter Reason = "inline interpreter program that deletes files"
	// ReasonUnparsable: the command line is not valid shell.
	ReasonUnparsable Reason = "command could not be parsed"
	// ReasonOpaque: the command runs a command whose text is not known
	// before it runs (sh -c "$X", eval "$X", a script piped into a shell).
	ReasonOpaque Reason = "runs a command that cannot be checked"
	// ReasonArithmetic: arithmetic ($((X)), ((X)), let, [[ X -eq 0 ]],
	// a subscript, declare -i...) on a variable whose value the check
	// cannot see: bash runs the command substitutions of an array
	// subscript in that value.
	ReasonArithmetic Reason = "arithmetic on a value the check cannot see (bash runs command substitutions in array subscripts)"
	// ReasonTooDeep: nesting (sh -c in sh -c, $( ) in $( ), functions)
	// beyond what the check follows.
	ReasonTooDeep Reason = "command nested too deeply to check"
	// ReasonGitPush: git push --force, --mirror, --delete or a :ref.
	ReasonGitPush Reason = "git push that overwrites or deletes remote history"
	// ReasonRemoteHistory: another client that rewrites or deletes a
	// remote repository's history: jj git push, sl push --force, hub
	// delete, gh/glab repo delete, and their api requests that delete or
	// change refs; and a git command that moves or deletes refs of a
	// repository outside the workspace (a local remote) or at an unknown
	// path.
	ReasonRemoteHistory Reason = "command that rewrites or deletes a remote repository's history"
	// ReasonGitReset: git reset --hard.
	ReasonGitReset Reason = "git reset --hard discards uncommitted changes"
	// ReasonGitDiscard: a git command that discards uncommitted changes
	// or untracked files (checkout of paths or -f, restore, clean,
	// stash drop/clear, switch -f, rm -f, mv -f, worktree remove -f,
	// reset --merge, apply -R, checkout-index -f, read-tree -u --reset,
	// --abort/--skip of a merge or rebase, submodule update/deinit -f).
	ReasonGitDiscard Reason = "git command that discards uncommitted changes"
	// ReasonGitWrite: under the OS sandbox, which holds the workspace's
	// .git read-only, a git command that writes it (commit, add,
	// checkout...); once approved it runs with .git writable.
	ReasonGitWrite Reason = "git command that writes the repository (.git)"
	// ReasonVCSWrite: under the OS sandbox, which holds every version
	// control system's metadata read-only, a command of another client
	// (hg, sl, jj, pijul, darcs, bzr, fossil) that may write it; once
	// approved it runs with the metadata writable.
	ReasonVCSWrite Reason = "version control command that writes the repository (.hg, .jj...)"
	// ReasonVCSHistory: a command of a client other than git that
	// destroys local history or uncommitted work (hg strip, prune,
	// rollback, purge, update --clean, revert --no-backup; jj op abandon,
	// util gc; darcs obliterate; bzr uncommit; fossil purge...).
	ReasonVCSHistory Reason = "version control command that destroys history or uncommitted changes"
	// ReasonDisk: formatting, wiping or writing a disk device.
	ReasonDisk Reason = "writes to, formats or wipes a disk"
	// ReasonKillAll: kill -1.
	ReasonKillAll Reason = "kills every process"
	// ReasonShutdown: shutdown, reboot, halt, poweroff.
	ReasonShutdown Reason = "shuts down or reboots the machine"
	// ReasonForkBomb: a function that pipes itself into itself.
	ReasonForkBomb Reason = "fork bomb"
)

// Reasons lists every Reason Destructive can give.
func Reasons() []Reason {
	return []Reason{
		ReasonDeleteOutside, ReasonDeleteWorkspace, ReasonDeleteGit, ReasonPermOutside,
		ReasonPermWorkspace, ReasonInterpreter, ReasonUnparsable, ReasonOpaque, ReasonArithmetic, ReasonTooDeep,
		ReasonGitPush, ReasonRemoteHistory, ReasonGitReset, ReasonGitDiscard, ReasonGitWrite, ReasonVCSWrite, ReasonVCSHistory, ReasonDisk, ReasonKillAll, ReasonShutdown, ReasonForkBomb,
	}
}
