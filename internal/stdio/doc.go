// Package stdio serves an MCP server over standard input and output, one
// JSON-RPC message a line (MCP 2025-11-25 and 2026-07-28, "stdio"), as
// go-sdk's server.Run(ctx, &mcp.StdioTransport{}) does, without letting a
// client's mistakes end or stall the session. A line goes forward: read
// (readLoop), decoded and checked (package protocol), admitted, handed to
// the session of its revision; its reply comes back through write. Each
// go-sdk v1.8.0 shortfall, and what to delete once it is fixed upstream:
//
//   - A line that is not JSON ends the session (go-sdk#1209; PR #1210
//     recovers syntax errors only): protocol.Decode answers it.
//   - Replies still to come are lost when the input ends (go-sdk#1061,
//     PR #1067): drain.
//   - A cancellation is looked up on a goroutine of its own, so it can
//     cancel a later request that reuses the id, and the cancelled request
//     is answered, where MCP says it should not be: the calls of conn, and
//     go-sdk's ids never reused.
//   - After a 2026-07-28 server/discover, go-sdk refuses initialize as a
//     duplicate (PR #962), which Claude Code sends all the same
//     (anthropics/claude-code#96183): the modern session.
//   - Lines are read and queued without bound, whatever the client reads:
//     admit's limits.
package stdio
