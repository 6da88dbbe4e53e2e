// Package sandbox confines the commands the agent runs without asking (the
// shell tool and hooks under approval = "auto") with the kernel's own
// mechanism: Landlock on Linux. A sandboxed command may read and execute
// anything but the files of its Policy's Unreadable paths (MC_HOME), but may
// write, create, delete, rename or truncate only below its
// Policy's writable directories: the workspace, the temp directory, a Go
// build cache and an npm cache of its own (OwnCaches; no cache of the
// person's), and the configured writable_roots
// (docs/configuration.md, [tools.sandbox]). With Network false (the
// default) it opens no socket of any family, UNIX ones included: a seccomp
// filter the launcher installs refuses them (netfilter_linux.go), with
// Landlock's TCP rules as a second layer; socketpair stays allowed for
// UNIX stream and seqpacket pairs (a datagram pair's sendto names any
// bound address). The kernel keyring is closed whether or not the
// network is open.
// Protected paths in the writable directories (version control metadata,
// project settings, MC_HOME: Protect) stay read-only: where the kernel
// lets the launcher have a mount namespace of its own (ProbeMounts), as
// read-only mounts over themselves, the directories granted whole
// (mounts_linux.go); elsewhere by granting the directories that hold them
// entry by entry (grants_linux.go).
//
// Landlock restricts the calling process and everything it starts, for
// good. So the serve process never restricts itself: Policy.Wrap rewrites a
// command to start this same executable as a small launcher (argv[1] =
// LauncherArg) that restricts itself, then execs the command. Main runs the
// launcher; the binary's main and every test binary that runs sandboxed
// commands call it first thing.
//
// Where the kernel offers no Landlock (macOS, Windows, Linux before 5.19,
// whose Landlock ABI below 3 cannot restrict truncation), Probe says so
// with a fixed reason, Wrap is never called, and the shell guard rail
// (the destructive-command check that asks even under auto) stands alone.
// The launcher never runs a command unconfined: when it cannot restrict
// itself it exits 126 with a one-line reason.
package sandbox
