// Package acp is magi-code's second front door: an Agent Client Protocol
// v1 agent (`magi-code acp`) for editors, beside the local-agent pipeline
// of stages/. It is not a copy of it: the sessions run the one runner entry
// (package runner's Runtime.Run, as stages/worker does), store their
// records in the same session files under the same leases (history), take
// secrets out with the same redaction stream (redact), cut text with the
// same chunking (chunk) and write through the same ordered writer
// (stages/writer, via cmd/magi-code), with its pending bound, output
// deadline and nonblocking stdout. A session made here opens in Mission
// Control, and the other way round.
//
// Where ACP's form of a rule differs from the local-agent protocol's, the
// difference is written here once (docs/acp.md gives the whole mapping):
//
//   - Deltas are lossless. message.delta may coalesce or drop under
//     pressure and message.reconcile replaces the text; ACP v1 can only
//     append. So every safe byte the redaction stream releases is sent
//     once, in order, as agent_message_chunk, and each waits for room on
//     the ordered edge (protocol.CriticalEventWait) instead of being
//     dropped: a slow client paces the provider. At the segment's end only
//     the unsent rest of the stored reply goes out. The concatenated
//     chunks of a message equal its stored reply as history shows it.
//   - Frames: input lines may hold up to MaxInputFrameBytes (8 MiB: an
//     @-mentioned file travels inside the prompt), one resource at most
//     MaxResourceBytes before it is cut with ResourceCutMarker; output
//     frames stay within protocol.MaxOutputFrameBytes (65,536 bytes with
//     the LF), text going out in chunks of at most 16 KiB.
//   - Errors are JSON-RPC errors (package acp/jsonrpc) whose data.code is
//     magi-code's stable code (protocol.Code); no error carries provider
//     text, a path or the input.
//   - A stalled client: the ordered edge holds protocol.WorkerEvents
//     frames and the writer protocol.PendingOutputFrames; a frame not
//     written within protocol.OutputDeadline ends the process with exit 1,
//     as serve does. Memory stays bounded by those frames and the turns'
//     own bounds.
package acp
