// Package proctest tells tests whether processes are gone. A killed
// process is gone once it no longer runs: absent, or a zombie. Zombies count
// as gone because nobody may reap them: when the test binary (or go test)
// is PID 1 of its namespace, as in a container without an init, orphans are
// reparented to it and never waited for, and kill(pid, 0) keeps succeeding.
package proctest
