// Package stdio serves an MCP server over standard input and output, one
// JSON-RPC message a line (MCP 2025-11-25 and 2026-07-28, "stdio"), as
// go-sdk's server.Run(ctx, &mcp.StdioTransport{}) does, without letting a
// client's mistakes end or stall the session. Each go-sdk v1.8.0
// shortfall, what is done here instead, and what to delete once it is
// fixed upstream:
//
//   - A line that is not JSON ends the session (go-sdk#1209, fix in PR
//     #1210). Here protocol.Decode and Check answer a bad line, and the
//     session goes on. Once fixed: reading lines, for mcp.StdioTransport.
//   - Replies to requests still running are lost when the input ends
//     (go-sdk#1061, fix in PR #1067). Here every request read is answered
//     first, unless no reply has moved for GracePeriod, and a reply going
//     out is never cut. Once fixed: drain.
//   - A request before initialize, or a second initialize, is refused with
//     code 0 (go-sdk#976). Here they get -32600. Once fixed: those cases.
//   - A cancellation is looked up on a goroutine of its own, so it can
//     cancel a later request that reuses the id, and the cancelled request
//     is answered, where MCP says it should not be. Here requests reach
//     go-sdk under ids never reused, and a cancelled one's reply is
//     dropped. Once fixed: the calls and ids of conn.
//   - After a 2026-07-28 server/discover, initialize is refused as a
//     duplicate (go-sdk PR #962), yet Claude Code 2.1.280 sends just that
//     (anthropics/claude-code#96183). Here requests with their version in
//     _meta go to a session of their own, as the specification's
//     "Compatibility Matrix" asks of a dual-era server. Once fixed: the
//     modern session.
//   - Lines are read and queued without bound, whatever the client reads.
//     Here at most 64 requests, or 16 MiB of them, wait for replies;
//     then nothing is read until one is out. Notifications the server
//     does not act on are dropped as read.
package stdio
