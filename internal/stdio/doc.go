// Package stdio serves an MCP server over standard input and output, one
// JSON-RPC message per line (MCP 2025-11-25 and 2026-07-28, "stdio"), as
// go-sdk's server.Run(ctx, &mcp.StdioTransport{}) does. It exists because
// that transport, in go-sdk v1.8.0, lets a client's mistakes end or stall
// the session. Each shortfall, what this package does instead, and what to
// delete once it is fixed upstream:
//
//   - A line that is not JSON ends the session (go-sdk#1209, fix in PR
//     #1210). Here every line is checked with protocol.Decode and
//     protocol.Methods.Check before the SDK sees it, and a bad one is
//     answered (-32700, -32600, -32601, -32602, -32022) while the session
//     goes on. Once fixed, the checks can move to middleware.
//   - Replies to requests still running are lost when standard input ends
//     (go-sdk#1061, fix in PR #1067). Here Serve answers every request read
//     before it returns, giving up only when no reply has gone out for
//     Options.GracePeriod. Once fixed: drain, in conn.go.
//   - Some errors carry code 0 (go-sdk#976). Here each reply's error goes
//     out through protocol.WireError. Once fixed: that call, in write.
//   - A cancellation (notifications/cancelled) is looked up on a goroutine
//     of its own, so it can cancel a later request that reuses the id; and
//     the cancelled request is answered all the same, where MCP says it
//     should not be. Here each request reaches the SDK under an id of its
//     own, never reused, and the reply to a cancelled one is dropped.
//   - One session speaks one protocol era: after a 2026-07-28 request
//     (server/discover), an initialize is refused as a duplicate (go-sdk
//     PR #962), and that is the sequence Claude Code 2.1.280 sends
//     (anthropics/claude-code#96183). Here requests with their protocol
//     version in _meta go to a session of their own, so an initialize
//     still starts the legacy session, as the specification's
//     "Compatibility Matrix" asks of a dual-era server.
//   - Lines are read as fast as they come, whatever the client reads, and
//     queued without bound. Here at most Options.MaxInFlight requests, or
//     Options.MaxInFlightSize bytes of them, are unanswered at once: then
//     nothing more is read until a reply is out, and the client's writes
//     block. Notifications the server does not act on are dropped as read.
//
// And whatever the client does, Serve returns promptly when its context is
// cancelled, even while a write to a client that stopped reading is
// blocked. (Package stderr keeps logging from blocking the server.)
package stdio
