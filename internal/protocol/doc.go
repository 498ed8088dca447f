// Package protocol keeps the server's promises about JSON-RPC messages in
// one place, for both transports, which check each message with Decode and
// Methods.Check before go-sdk sees it:
//
//   - Decode reads a message, or refuses it (-32700 not JSON, -32600 not
//     JSON-RPC 2.0);
//   - Served lists the methods answered, from the capabilities advertised;
//     Methods.Check refuses the rest (-32601), params of the wrong shape
//     (-32602) and protocol versions not served (-32022);
//   - Middleware gives what handlers return a code of the specifications
//     (never go-sdk v1.8.0's code 0, go-sdk#976), survives a panicking
//     handler, and says argument errors in plain words.
package protocol
