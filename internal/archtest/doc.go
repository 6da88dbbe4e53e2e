// Package archtest holds the test that enforces the import directions of
// the module (see docs/architecture.md):
//
//	cmd, client, conformance, bench, e2e
//	  -> stages (framing, validate, dispatch, worker, writer, wire; acp, acp/jsonrpc)
//	    -> runner (only through package runner, only from stages/worker and acp), history
//	      -> foundations (protocol, internal/jsonenc, internal/diaglog, redact, chunk, backpressure)
//
// A package imports only its own layer or the layers below it; stages other
// than worker and acp (the two front doors' sessions) import neither the
// runner nor history; history imports no
// runner package; client and conformance, which a frontend author may
// reuse, import only foundations. Only non-test imports count: tests may
// reach further down to observe what they test.
package archtest
