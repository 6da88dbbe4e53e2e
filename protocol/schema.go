package protocol

import _ "embed" // Schema

// Schema is the JSON Schema (draft 2020-12) of every frame of version 1:
// the checked-in protocol/schema.json, embedded as a read-only string (nothing is built
// at start-up). `magi-code schema` prints it. It was written by hand and is
// held to this package by tests: its code list, method and event names,
// notices and bounds must equal the constants here (schema_test.go), and
// every frame the whole-process tests read must validate against it.
//
//go:embed schema.json
var Schema string
