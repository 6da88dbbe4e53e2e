// Package validate turns one framed line into a typed request envelope, or
// the protocol code that answers it: the second stage of the pipeline.
//
// Input is a line from framing (LF removed); output is a wire.Request and a
// protocol.Code. Parse is a pure function with no state: the integrator calls it
// inline on the goroutine that reads stdin, so this package starts no
// goroutines and owns no channels. The ID registry (duplicate_id,
// request_limit) and method dispatch live in dispatch, which also uses the
// strict params readers here (Members, String, Bool, IsNull, Strings, Name)
// on the raw params Parse returns.
//
// Rules of docs/protocol.md (Frames, Requests, IDs, Validation order) enforced here, in the order Parse checks them:
//   - "Empty lines are invalid"; Choices: a line that is only JSON whitespace
//     is invalid_frame.
//   - "JSON nesting: 32 containers": a byte scan refuses depth 33 with
//     invalid_frame ("depth/framing structure") before anything else reads
//     the structure. Nothing here recurses: the JSON scanner keeps an
//     explicit bounded stack and builds no values.
//   - "UTF-8 JSON objects, one per line": invalid UTF-8, invalid JSON, a
//     lone surrogate escape anywhere, a second value or trailing bytes, or a
//     top level that is not an object is invalid_request.
//   - "Each request contains exactly these fields (unknown/duplicate
//     top-level fields rejected)": duplicates, compared after decoding
//     escapes, are invalid_request; then a wrong protocol or version is
//     protocol_mismatch (the version must be the number token exactly 1);
//     then a missing or unknown field is invalid_request.
//   - "Request IDs and method/capability names: 1–64 ASCII bytes from
//     [A-Za-z0-9._-]", applied to decoded strings: otherwise invalid_request.
//   - "Invalid/unrecoverable request identity uses id=null; otherwise id
//     equals request ID": Parse returns the ID whenever the object was
//     readable and held exactly one valid "id", even when it rejects the
//     request for another reason.
//   - "Errors do not echo untrusted input": nothing but the ID, the method
//     and the raw params is ever returned from the input.
//
// Validation knows the envelope, the grammar, depth and limits; it knows no
// state, workers or I/O.
package validate
