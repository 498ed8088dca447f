// Package stdio is the MCP stdio transport this server speaks: JSON-RPC 2.0
// messages, one per line, read from standard input and written to standard
// output (MCP specification 2025-11-25, "Transports").
//
// The go-sdk has a stdio transport of its own, mcp.StdioTransport. This
// package exists because, in go-sdk v1.8.0, that transport lets a client's
// mistakes end the session, where a server should answer and carry on:
//
//   - A line that is not JSON stops its reader, and the session ends. Here
//     the line is answered with a -32700 parse error and the next line is
//     read. JSON that is not a JSON-RPC 2.0 message (no "jsonrpc": "2.0", no
//     method, a batch array, a number) gets -32600, with the request's id
//     when one can be read.
//   - When standard input ends, requests still being handled lose their
//     replies: the SDK stops writing as soon as a read fails. Here Read
//     waits until every request already read has been answered, and only
//     then reports the end of input. So
//     `printf '%s\n' "$INIT" "$INITIALIZED" "$CALL" | mcp-hello-tools`
//     prints both replies. The wait ends early only when no reply has
//     been written for DefaultGracePeriod: the requests left are logged as
//     abandoned, and nothing more is written.
//   - Some errors the SDK raises carry code 0, which is no JSON-RPC code at
//     all (a request before initialize, bad initialize params), and the
//     ones for params that do not decode quote the JSON decoder's own
//     message. Here every error reply carries one of the five standard
//     codes, and bad params are answered with what valid params look like:
//     "invalid params: tools/call params must be an object with "name" (the
//     tool to call) and optional "arguments" (an object), not a string".
//   - A request the client cancels with notifications/cancelled is
//     answered all the same, with -32603 "context canceled", where the
//     specification (2025-11-25, "Cancellation") says it should not be;
//     and a cancellation can cancel a request read after it, if the two
//     share an id. Here the handler is still stopped, but its reply is
//     dropped, the end of input does not wait for it, and a cancellation
//     that names no request in flight is ignored.
//
// (One more shortfall, that a panicking tool handler kills the process, is
// not the transport's to fix: the server's middleware recovers it.)
//
// Requests run concurrently, and each is answered exactly once, unless it
// is cancelled: a request that reuses the id of one still in flight is
// refused with -32600 (and "id": null, so that it is not taken for the
// answer to the first), and a second reply to a request is dropped. An id
// is free again from the moment its reply is written. A notification is
// never answered, nor is a response, even a malformed one: that could set
// two peers answering each other for ever.
//
// A client that sends requests faster than it reads the replies is made to
// wait: with DefaultMaxInFlight requests unanswered, or
// DefaultMaxInFlightSize bytes of them, the connection reads no more until
// a reply is out, so the pipe to the server fills and the client's writes
// block. Memory stays bounded, whatever the client does.
//
// Standard output, when it is a pipe or a socket, is written through the
// Go runtime's poller, as standard input is read, so that a write to a
// client that has stopped reading can be interrupted: a signal to the
// server (through the context given to Connect) or the end of the grace
// period closes the connection, and the write returns. This is Linux only.
// A client that closes standard output ends the session, as one that
// closes standard input does: the server exits with status 0 where SIGPIPE
// would have killed it.
//
// Lines are framed by a bufio.Reader into reused buffers, and each line is
// decoded once, with encoding/json, into its members, looked up by their
// exact, case-sensitive names ("jsonrpc", "id", "method", "params",
// "result", "error"); whitespace around the message is allowed, as in any
// JSON. The SDK's own reader decodes each message two or three times, each
// time with a fresh 32 KiB decoder buffer. A line longer than
// DefaultMaxMessageSize is answered with -32600 and skipped without being
// held in memory. Empty lines are ignored, and a "\r" before the "\n" is
// dropped.
//
// The package builds only on the SDK's exported interfaces: [Transport]
// implements mcp.Transport, and the connection it makes implements
// mcp.Connection, passing *jsonrpc.Request and *jsonrpc.Response values to
// and from the SDK, which does everything else.
package stdio
