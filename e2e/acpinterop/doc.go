// Package acpinterop holds whole-process tests of `magi-code acp` with clients
// nobody here wrote: the ACP TypeScript SDK's client driven by the node
// suite in interop/acp (TestInterop runs it), and the Go SDK
// github.com/coder/acp-go-sdk, each through real pipes against the built
// binary.
//
// They run on Linux only: `magi-code acp` refuses systems without Unix
// pipes, and the node suite reads /proc and makes FIFOs.
package acpinterop
