// Package chunk splits text into parts that fit both a raw UTF-8 byte budget
// and a JSON-escaped byte budget, never inside a UTF-8 sequence, so that the
// parts concatenate back to exactly the input.
//
// docs/protocol.md, history.page: "All text chunks fit both raw UTF-8 and serialized page bounds; JSON
// escaping may require smaller parts." Live events use 4,000 raw bytes,
// history 16,384. It is a leaf package: pure functions, no I/O.
package chunk
