// Package conformance runs protocol transcripts against a server process
// and checks what it writes: the conformance kit of magi-code.local-agent
// v1 (`magi-code conformance --server "COMMAND ..."`) and the runner of the
// worked examples in protocol/transcripts.
//
// A transcript is a txtar archive. Its comment says what it shows; a line
// "conformance: any server" marks it provider-independent, part of the
// kit. Its files are the settings and fixture script (settings.toml,
// script.json, or any file under home/ or work/: written into MC_HOME and
// the working directory; "$MC_HOME" and "$WORK" in their text become those
// paths) and one "transcript" file of steps, one per line:
//
//	# a comment
//	> {...}            send this request line (LF appended)
//	>raw "..."         send these bytes exactly (a Go string literal)
//	>fill N            send N bytes of 'x' (no LF)
//	< {...}            the next frame must match this pattern
//	<* {...}           any number of frames matching this pattern (lazily:
//	                   a frame the following step accepts ends the run)
//	unordered ... end  the enclosed < and <* lines match in any order
//	repeat N ... end   the enclosed > and < lines, N times, with "{i}"
//	                   replaced by the round's number (1..N)
//	close              close the server's stdin (EOF)
//	exit N             no further frame; the server exits with status N
//
// In patterns, a string "$name" matches any value and binds name to it;
// later patterns must match the same value, and "$name" in a sent line is
// replaced by it. "$_" matches anything and binds nothing. Everything else
// must be equal, objects with exactly the same keys.
//
// Every frame is also held to the checks that need no transcript: framing
// (LF-terminated lines of at most 65,536 bytes of UTF-8), the published
// schema (protocol/schema.json), one instance_id, seq starting at 1 and
// strictly increasing, responses only to IDs that were sent, no submitted
// text in an error frame, and the event grammar of every run (turn.start
// answered first; input.persisted first, or else a run.finished with
// persistence not_started that is failed or cancelled and names an
// error_code; delta parts increasing;
// reconcile parts contiguous from 0 ending with last_part; nothing after
// run.finished, which comes once).
//
// Package initialization does nothing: the transcripts are embedded bytes
// and the schema is compiled on first use.
package conformance
