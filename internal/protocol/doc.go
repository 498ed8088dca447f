// Package protocol keeps the server's promises about JSON-RPC messages on
// both transports, where go-sdk v1.8.0 falls short. Each part says what to
// delete once go-sdk fixes what it covers:
//
//   - Decode reads a message, and refuses one go-sdk's decoder would end
//     the stdio session on (go-sdk#1209; PR #1210 recovers syntax errors
//     only) or misread (an id of null, or 6.5, a name twice in one
//     object), in words of its own.
//   - Methods.Check refuses what go-sdk answers in its decoder's words,
//     quoting the params whole, or as the other revision: -32601 for the
//     methods of capabilities not advertised, -32602, -32022; Handshake,
//     what go-sdk refuses with code 0 (go-sdk#976).
//   - Middleware recovers a handler's panic, which ends a go-sdk v1.8.0
//     process, gives every error a code of the specifications (go-sdk#976),
//     and says argument errors in plain words.
package protocol
