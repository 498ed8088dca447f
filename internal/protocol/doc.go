// Package protocol keeps the server's promises about JSON-RPC messages, on
// both transports, where go-sdk v1.8.0 falls short. Each part says what to
// delete once go-sdk fixes what it covers:
//
//   - Decode reads a message with go-sdk's jsonrpc.DecodeMessage, and says
//     what is wrong with one it refuses (-32700, -32600), which go-sdk's
//     stdio transport answers by ending the session (go-sdk#1209, fix in
//     PR #1210). Once fixed, the transports can let go-sdk read messages.
//   - Methods.Check refuses the requests go-sdk would answer in its
//     decoder's words, quoting the params whole, or as the other protocol
//     era: -32601 for the methods of capabilities not advertised, -32602,
//     -32022. KeptOfInitialize trims what a session keeps of initialize.
//   - Middleware recovers a handler's panic, which ends a go-sdk v1.8.0
//     process, gives every error a code of the specifications, not code 0
//     (go-sdk#976), and says argument errors in plain words.
package protocol
