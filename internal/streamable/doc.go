// Package streamable serves an MCP server over Streamable HTTP through
// go-sdk's mcp.StreamableHTTPHandler, and adds what go-sdk v1.8.0 lacks;
// each part can go once go-sdk has it:
//
//   - Both eras on one endpoint: go-sdk serves 2026-07-28 only when
//     stateless, and initialize sessions only when stateful (handler.go).
//   - JSON-RPC errors on every path, quoting little: go-sdk answers a
//     malformed body or an unknown session in text/plain (HTTP error bodies
//     are unsettled, modelcontextprotocol#1398), a second initialize with
//     code 0 (go-sdk#976), and quotes a header mismatch whole (serve.go).
//   - GETs from web pages refused: http.CrossOriginProtection lets GET,
//     which opens an event stream, through (bounds.go).
//   - No reply to a request its client cancelled, which go-sdk answers with
//     code 0 if it had not started, and its id free at once, which go-sdk
//     keeps until its handler returns (calls.go).
//   - Bounds on bodies in flight (body.go), a body's and a reply's time
//     (bounds.go), the sessions (sessions.go), the connections (conns.go).
package streamable
