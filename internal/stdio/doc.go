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
// returns, while the client keeps reading, however long its replies take
// to read. Two bounds end the wait, and each request abandoned is logged,
// with which bound:
//
//   - A client that stops reading: once it has made no progress for
//     GracePeriod (5 s), the replies behind the one going out are
//     abandoned, and requests still running too; the one going out is
//     waited for whole, lest its line be cut (a signal stops the server).
//     A reply goes out in parts of MinReadRate×GracePeriod bytes (5 KiB);
//     progress is a part taken or, on Linux with standard output a pipe
//     or a socket, less of the output left unread than at the last look
//     (every GracePeriod/5). There the kernel takes a part long after the
//     client has read as much (unread_linux.go), and a client reading
//     MinReadRate (1 KiB/s) or more keeps its replies; elsewhere, one
//     whose kernel takes a part every GracePeriod does.
//   - A handler that never returns: a request still running RunPeriod (a
//     minute) after the end of input is abandoned. Work slowed by a busy
//     machine ends well within it: go-sdk spends about 0.3 s of CPU a
//     megabyte of "<" in an echo (escaped as \u003c, then decoded again),
//     and a line holds at most MaxLine bytes.
package stdio
