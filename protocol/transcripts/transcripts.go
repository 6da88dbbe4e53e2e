// Package transcripts holds the worked examples of magi-code.local-agent
// v1: one txtar file per behaviour a client must handle, each with its
// settings, fixture script, request lines and expected frames (format:
// package conformance). The transcripts marked "conformance: any server"
// form the conformance kit. docs/protocol.md quotes them as examples.
package transcripts

import "embed"

// FS holds every *.txtar file of this directory, embedded as bytes.
//
//go:embed *.txtar
var FS embed.FS
