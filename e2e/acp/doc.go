// Package acp holds whole-process tests of `magi-code acp`: each drives a
// real child through real pipes with a small JSON-RPC line client of its
// own, the fixture provider scripting the model. Every frame the child
// writes is checked: one JSON-RPC 2.0 object per line, at most 65,536
// bytes with its LF.
//
// They run on Unix only: `magi-code acp` refuses other systems.
package acp
