// Package jsonrpc is the JSON-RPC 2.0 layer of the ACP front door: one
// message per line (the lines come from stages/framing, with the ACP input
// bound), parsed into requests, notifications and responses, and the
// frames the agent writes back.
//
// Where it differs from the local-agent protocol's envelope (stages/validate,
// stages/wire), on purpose:
//
//   - Errors are JSON-RPC errors: -32700 (parse error, with id null) for a
//     line that is not JSON, -32600 for JSON that is not a JSON-RPC 2.0
//     message (with the request's id when it could be read, else null),
//     -32601 for an unknown method, -32602 for invalid params, -32603 for an
//     internal error, and magi-code's stable code (protocol.Code) in
//     error.data.code. The message is fixed per JSON-RPC code; no error
//     ever echoes the input, a method name, a path or provider text.
//   - An id is a string or a number, as JSON-RPC allows; a number is kept
//     as its exact text, and echoed byte for byte.
//   - The connection stays usable after every error above.
//
// The encoders build frames with appends; a frame's size is the caller's
// to bound (package acp keeps every frame within 65,536 bytes with its LF).
package jsonrpc
