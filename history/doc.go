// Package history is the durable session store of magi-code: one JSONL file
// per session at <sessionsDir>/<session_id>.jsonl, the writer and active
// leases that keep two children from attaching one session, and the paged,
// immutable history projection behind history.page.
//
// # Rooms
//
// Pure code: record.go (schema, validation, append-based encoder),
// decode.go (the strict one-line decoder), project.go (Builder: records ->
// reconciled, redacted, chunked entries) and page.go (Projection: page
// layout, cursors, the serialized history.page result). I/O: reader.go (the
// streaming reader), store.go (Store, Attachment), lease.go (the two
// leases), fs_unix.go (flock, O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC opens, fsync)
// and fs_windows.go (LockFileEx, no-follow opens, FlushFileBuffers; no
// directory sync). No goroutines start here;
// no frame, seq number or protocol loop is known here.
//
// # File format (JSONL, one flat JSON object per LF-terminated line)
//
// Every value is a string, a boolean, null (= absent) or, for version and
// a usage record's token counts, an unsigned integer. Keys are exact (no case folding), never duplicated, never
// unknown for the record's type; text is valid UTF-8. Every record carries
// "type" and "session_id" (equal to the file's session ID). Optional fields
// are omitted when empty. The first line is the header:
//
//	{"type":"session","session_id":"S","version":2,"cwd":"/abs/canonical",
//	 "provider":"fixture","model":"fixture-model","thinking":"medium",
//	 "created_at":"2026-11-30T08:00:00Z"}
//
// version 2 is written now; version 1 headers (older) may lack cwd, which
// opens with the cwd_unverified notice. Events follow, in append order:
//
//	input             run_id, message_id, text[, cwd]  required user input (fsynced)
//	internal_input    run_id, [message_id], text       automatic/provider-only prompt: replay only, never projected
//	assistant_chunk   run_id, message_id, text         one accepted delta of a segment
//	assistant         run_id, message_id, [text], [partial]
//	                                                    segment completion: text is the reconciled
//	                                                    text; absent text (legacy) means "use chunks"
//	reasoning_summary run_id, [id], text, [provider_summary]
//	activity          run_id, activity_id, kind (tool|subagent|compaction),
//	                  state (started|completed|failed), name, summary (<= 1024 bytes; never raw params/results)
//	compaction        run_id, text                     the summary; replay restarts from it
//	diagnostic        run_id, code (ID grammar), summary (<= 1024 bytes)
//	run_completed     run_id, outcome (completed|cancelled|failed), [error_code]
//	tool_call         run_id, call_id, name, arguments (raw JSON as a string): replay only
//	tool_result       run_id, call_id, text, [is_error]: replay only
//	task_scope        run_id, ceiling                  a delegated task-scope ceiling the attachment retains
//	usage             run_id, [model], input_tokens, output_tokens, [cached_input_tokens], [reasoning_tokens]
//	                                                    token counts of one model response (integers of at most
//	                                                    15 digits); projected only with Detail.Usage, never replayed
//	side_usage        run_id, kind (compaction|subagent), [model], input_tokens, output_tokens, [cached..], [reasoning..]
//	                                                    token counts of a compaction's summary request or a
//	                                                    subagent's response; projected like usage (its sums only)
//	approval          run_id, summary (<= 1024 bytes), [scope] ("session": for the rest of the session)
//	                                                    a request the person allowed; projected only with
//	                                                    Detail.Output, never replayed
//	selection         provider, [model], [thinking], [mode]
//	                                                    the session's selection changed after the header was
//	                                                    written (Attachment.SaveSelection); the last one is the
//	                                                    saved selection Open reports; neither projected nor replayed
//
// Compatibility: a record of a type this build does not know (a later
// build's) is skipped, so a new kind of record never makes a session
// unreadable: it must still be one JSON object (any values, no duplicate
// key) of this session, after the header, with a string "type" in the ID
// grammar, and it counts toward the stored-history bounds. A record of a
// known type stays strict: an unknown field in it is session_invalid, so a
// later build adds meaning with a new type (or a new header version, which
// older builds refuse), never with a field. Builds from before this rule
// (and before the usage record) reject usage records. The projection and
// replay skip usage records.
//
// Stored message IDs follow the session ID grammar [A-Za-z0-9_-]{1,64};
// run IDs and diagnostic codes the ID grammar [A-Za-z0-9._-]{1,64}.
//
// # Reading
//
// A read streams the file through a capped reader (never the whole file in
// memory): past 64 MiB or 100,000 lines it stops with history_limit. A line
// ending in LF that does not decode, a first record that is not the header,
// a second header, an unknown field, or a record of another session is
// session_invalid (a record of an unknown type is skipped: Compatibility). A last line without LF (a crash mid-append) is ignored
// and marks the projection interrupted; the next append trims it under the
// lease. Every nonempty recorded cwd (header, input) must be absolute and
// canonicalize to the canonical child cwd, else cwd_mismatch.
//
// # Projection
//
// Records fold, in file order, into messages: user (input), assistant (one
// reconciled copy per run_id+message_id: the completion's text, or its
// chunks when it has none or never came; never completed -> partial),
// reasoning_summary (only provider_summary=true; the same id within a turn
// replaces the earlier text in place), activity (one entry per
// run_id+activity_id at its first position, text "<name> <state>[:
// summary]", partial while only started), compaction (its summary),
// diagnostic ("<code>[: summary]"). With Detail (the optional
// capabilities the client required): Output adds an approval entry before
// the activity entry of the call running when it was asked, and the call's
// output (ToolOutput of the tool_result written right before its call's
// end) as an activity_output entry after it, keeping only the newest
// outputs (maxProjectedOutputs, maxProjectedOutputBytes); Usage adds one
// usage entry at the end of each turn with usage records (their sums, the
// last one's context and its model's window). An input that is not followed by
// run_completed before the next input or the end, or a torn last line, adds
// a partial diagnostic entry (InterruptedText) and makes the projection
// incomplete. Messages are then redacted (stages/redact) and chunked
// (stages/chunk: 16,384 raw bytes and an escaped budget that lets any single
// entry fit a 32,768-byte page). A stored message ID is kept the first time
// it appears; other entries get "<kind>.<n>" IDs (with a dot, so they never
// collide with stored ones). Past 8 MiB of serialized entries or 10,000
// parts: history_limit.
//
// Revisions are "v<gen>-<32 hex of SHA-256 of the file bytes>"; gen is a
// store-wide counter taken by every open, append and rebuild, so a replaced
// revision never becomes valid again. It starts at a random point in each
// store (one per child), so another child's revisions and cursors are stale
// here even for the same bytes. Cursors are "p<gen>.<first entry>" and
// only the page starts of the current projection are accepted.
//
// # Leases
//
// Create and Open take exclusive, nonblocking file locks (internal/filelock:
// flock, LockFileEx on Windows) on
// <sessionsDir>/.leases/<id>.active and <id>.writer and hold them until
// Close, idle or not (a lazy session has no session file, so the leases live
// in their own files). A lock belongs to the open file: another process,
// or another attachment in this process, gets session_busy. Open of the
// caller's current session ID passes the leases to the new attachment.
package history
