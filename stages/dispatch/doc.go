// Package dispatch is the protocol state machine: the request-ID ledger,
// the lifecycle (not initialized, starting, ready, failed, stopping), the
// method table, strict params, and admission of initialization, session,
// history and turn work.
//
// Machine is the pure core: Step(event) returns effects as data and
// never touches a channel, goroutine, clock or I/O. Events and effects are
// sealed sets (interfaces with an unexported method, one struct each), so an
// unknown event or an effect without a performer does not compile. Server is the thin
// shell: it serialises Step calls under one mutex (requests arrive on the
// stdin goroutine, completions on worker goroutines), and performs effects in
// order: responses go to the ordered writer, work goes to the Workers.
//
// Check order (docs/protocol.md, Validation order): framing, JSON and envelope (with the ID ledger),
// method known, lifecycle, params, then the operation's own rules.
package dispatch
