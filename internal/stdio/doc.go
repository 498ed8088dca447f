// Package stdio serves an MCP server over standard input and output, one
// JSON-RPC message a line (MCP 2025-11-25 and 2026-07-28, "stdio"), as
// go-sdk's server.Run(ctx, &mcp.StdioTransport{}) does, without letting a
// client's mistakes end or stall the session. A file a mechanism:
// stdio.go reads a line (readLoop, readLine), has it admitted (handle,
// with protocol.Methods.Admit), hands it to the session of its revision,
// and writes its reply (write, send); flight.go keeps the requests in
// flight, each call's state, and the bound on them; drain.go waits for
// them after the end of input, with unread_linux.go, the kernel's count
// of what the client has not read; trace.go shows what a client sent,
// inert. Each go-sdk v1.8.0 shortfall, and what to delete once it is
// fixed upstream:
//
//   - A line that is not JSON ends the session (go-sdk#1209; PR #1210
//     recovers syntax errors only): protocol.Methods.Admit answers it.
//   - Replies still to come are lost when the input ends (go-sdk#1061,
//     PR #1067): drain.
//   - A cancellation is looked up on a goroutine of its own, so it can
//     cancel a later request that reuses the id, and the cancelled request
//     is answered, where MCP says it should not be: the flight, and
//     go-sdk's ids never reused.
//   - After a 2026-07-28 server/discover, go-sdk refuses initialize as a
//     duplicate (PR #962), which Claude Code sends all the same
//     (anthropics/claude-code#96183): the modern session.
//   - Lines are read and queued without bound, whatever the client reads:
//     enter's limits.
//
// At the end of input, every request read is answered before Serve
// returns, within the bounds of drain.go.
package stdio
