// Package mcp connects the agent runner to the MCP servers of the admitted
// settings and offers their tools to the model as mcp__SERVER__TOOL.
//
// Start connects every server of a list, concurrently, each with the
// handshake and tools/list under the caller's ctx. Startup is strict: one failure shuts
// down every server already connected and Start returns that failure (the
// integrator reports mcp_unavailable); a cancelled ctx does the same cleanup
// and Start returns ctx.Err() (startup_cancelled). A server that hangs at
// startup is killed as soon as ctx ends.
//
// The client side of the protocol is ours too (session.go), over mcp-go's
// protocol types (package mcp) only: mcp-go's client package links its
// server package (for an in-process transport), and that links a JSON
// Schema validator which compiles five meta-schemas at every start of the
// binary, serve included (about 5 ms and 1.7 MB; docs/benchmarks.md,
// Start-up and idle memory). A session probes with server/discover (the
// stateless protocol of 2026-07-28: version, identity and capabilities in
// every request's _meta, and on HTTP the Mcp-Method, Mcp-Name and
// Mcp-Param-* headers) and falls back to the initialize handshake of
// earlier versions; it declares no client capability, follows tools/list
// cursors within bounds (100 pages, 1,000 tools, 16 MiB, no cursor twice),
// fails a tools/call that asks for input, tells the server when a request's
// ctx ended (notifications/cancelled; on a stateless HTTP connection the
// stream's end says it), and passes a server's error text on cut to 1 KiB
// without control characters.
//
// Stdio servers do not use mcp-go's own stdio transport, which passes on the
// whole environment, lets the server reach our stderr, reads lines without a
// bound and can take seconds to close. stdioTransport does instead:
//   - the child gets the minimal environment (docs/protocol.md, Choices: PATH, HOME, LANG,
//     TERM from ours) plus the server's own env entries, never anything else
//     (no provider credentials);
//   - it runs in its own process group, so cleanup reaches its children;
//   - its fds 0, 1 and 2 are pipes of ours, never our own fds 0, 1 or 2;
//     stderr is drained continuously into a bounded tail (MaxStderrBytes)
//     and never forwarded;
//   - every line it sends is bounded (MaxMessageBytes): a longer line fails
//     that server (its calls return ErrMessageTooLarge), nothing else.
//
// Streamable HTTP servers (url = "http://...") do not use mcp-go's
// StreamableHTTP either: it adds its headers on every redirect hop, so
// credentials followed a redirect to any origin (an advisory without a fixed
// version). httpConn does instead:
//   - the configured headers (bearer_token_env, env_headers) are set on each
//     request, and no redirect to another origin (scheme, host, port) is
//     followed: the request fails (startup: mcp_unavailable) and the other
//     origin receives nothing;
//   - every response body is bounded (MaxHTTPBodyBytes) and every request,
//     including the session DELETE sent at close, is aborted when cleanup
//     gives up on the server.
//
// Tool names: mcp__SERVER__TOOL (docs/architecture.md, The agent runner). Each part is sanitized to
// [A-Za-z0-9_-]: any other byte becomes '_', runs of '_' collapse to one and
// leading/trailing '_' go, so "__" only ever separates parts (an empty part
// becomes "x"). Names are cut to MaxToolNameBytes (64, the provider limit)
// with an 8-hex-digit hash suffix, and a name already taken gets "_2", "_3",
// ... Tool keeps the original server and tool names; Call looks the full
// name up, it never parses it.
//
// Close(ctx) first shuts every server down (closes its stdin, or sends the
// HTTP session DELETE), then waits; whatever is not gone when ctx ends is
// SIGKILLed as a whole process group (HTTP requests are aborted), and Close
// returns ctx.Err() without waiting further: it never blocks past ctx.
//
// Goroutines: per stdio server a stdout reader, a stderr drain and a process
// waiter; per HTTP server one closer during Close; per server one watcher
// that marks it done. All are started with conc and end on their own once
// the process is gone or its pipes are closed; none writes to stdout or
// stderr. Diagnostics go to the injected logf only.
package mcp
