// Package redact turns text into safe text: API keys and tokens, bearer and
// basic credentials, JWTs, private-key blocks, secret assignments
// (password=, "api_key": "..."), URL passwords and credential file paths are
// replaced by Marker before any text reaches a frame or a history page.
//
// Spec: "Never return tokens, headers, credential paths/files or raw
// provider responses"; message.delta is a "best-effort redacted append";
// activity, approval and diagnostic summaries are "at most 1024 UTF-8 bytes
// after redaction"; history "reconcile[s] before redacting and chunking".
//
// Input: a string (String, Contains, Summary) or a sequence of deltas of one
// assistant segment (Stream). Output: the same text with each secret
// replaced by Marker; everything else is unchanged byte for byte. It is a
// leaf package: pure functions and a plain Stream type, no goroutines, no
// channels, no I/O, no clock.
//
// How it stays fast on a flood of deltas: every rule (rules.go) has trigger
// literals. One pass over the text (prefilter.go) samples every second byte
// pair against a bitmap of the triggers' leading pairs; only at a hit does
// it compare literals, and only at a found trigger does the rule's regexp
// run, anchored there. Clean text costs that one pass and no allocation.
//
// Stream holds back at most Holdback bytes at the end of each Push (never
// cutting a UTF-8 sequence), so a secret split across deltas at any offset
// is still caught. Whenever no secret is longer than 64 bytes, the
// concatenated output of Push and Flush equals String of the concatenated
// deltas; longer secrets (a JWT, a private-key block) are replaced by one
// Marker once recognised and the rest of them is dropped as it arrives.
// The corpus of shapes that must be caught and look-alikes that must survive
// is in redact_test.go.
package redact
