// Package protocol keeps this server's promises about JSON-RPC messages in
// one place, the same on every transport:
//
//   - Decode reads a client's message, and says why it refuses one
//     (-32700 for text that is not JSON, -32600 for JSON that is not a
//     JSON-RPC 2.0 message).
//   - Served lists the methods a server answers, from the capabilities it
//     advertises; Methods.Check refuses the rest (-32601), params of the
//     wrong shape (-32602), and protocol versions the server does not
//     serve (-32022).
//   - Middleware, installed on the server, gives what handlers return the
//     same codes (WireError), survives a panicking handler, and says
//     argument errors in plain words.
//
// The stdio transport (internal/stdio) and the Streamable HTTP handler
// (internal/streamable) check each message with Decode and Check before
// go-sdk sees it: so go-sdk v1.8.0 never answers with code 0 (go-sdk#976)
// or with a JSON decoder's message, and both transports answer alike.
//
// The codes are JSON-RPC 2.0's five, and those the MCP specification
// assigns itself (-32020 to -32022, 2026-07-28); see IsSpecCode.
package protocol
