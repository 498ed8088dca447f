// Package stdio serves an MCP server over standard input and output, one
// JSON-RPC message per line (MCP 2025-11-25 and 2026-07-28, "stdio"), as
// go-sdk's server.Run(ctx, &mcp.StdioTransport{}) does, without letting a
// client's mistakes end or stall the session. Each go-sdk v1.8.0 shortfall,
// what is done here instead, and what to delete once it is fixed upstream:
//
//   - A line that is not JSON ends the session (go-sdk#1209, fix in PR
//     #1210). Here protocol.Decode and protocol.Methods.Check answer a bad
//     line (-32700, -32600, -32601, -32602, -32022) and the session goes
//     on. Once fixed, the checks can move to middleware.
//   - Replies to requests still running are lost when the input ends
//     (go-sdk#1061, fix in PR #1067). Here every request read is answered
//     first, unless no reply has moved for Options.GracePeriod. Once
//     fixed: drain, in conn.go.
//   - Some errors carry code 0 (go-sdk#976). Here replies go out through
//     protocol.WireError. Once fixed: that call, in write.
//   - A cancellation is looked up on a goroutine of its own, so it can
//     cancel a later request reusing the id, and the cancelled request is
//     answered, where MCP says it should not be. Here each request reaches
//     the SDK under an id never reused, and a cancelled one's reply is
//     dropped.
//   - A session speaks one protocol era: after a 2026-07-28 server/discover,
//     initialize is refused as a duplicate (go-sdk PR #962), yet Claude
//     Code 2.1.280 sends just that (anthropics/claude-code#96183). Here
//     requests with their version in _meta go to a session of their own,
//     as the specification's "Compatibility Matrix" asks of a dual-era
//     server.
//   - Lines are read and queued without bound, whatever the client reads.
//     Here at most Options.MaxInFlight requests, or MaxInFlightSize bytes,
//     are unanswered at once; then nothing is read until a reply is out.
//     Notifications the server does not act on are dropped as read.
//
// Whatever the client does, Serve returns promptly when its context is
// cancelled, even with a write to a client that stopped reading blocked.
package stdio
