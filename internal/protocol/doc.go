// Package protocol keeps the server's promises about JSON-RPC messages on
// both transports, where go-sdk v1.8.0 falls short, in one vocabulary both
// speak. Each part says what to delete once go-sdk fixes what it covers:
//
//   - Admit reads a message once (decode, with json.go's scan of its
//     tokens by jsontext) and admits it, for either transport: it refuses
//     one go-sdk's decoder would end the stdio session on (go-sdk#1209; PR
//     #1210 recovers syntax errors only) or misread (an id of null, or
//     6.5, a name twice in one object); what go-sdk answers in its
//     decoder's words, quoting the params whole, or as the other revision
//     (-32601 for the methods of capabilities not advertised, -32602,
//     -32022); and a 2025 session's handshake misused, which go-sdk
//     answers with code 0 (go-sdk#976). It keeps a little of initialize,
//     and of its protocol version the one agreed, which go-sdk reads as
//     the version of a session's results (it read the one asked), and
//     reads which request a cancellation names.
//   - Middleware recovers a handler's panic, which ends a go-sdk v1.8.0
//     process, gives every error a code of the specifications (go-sdk#976),
//     and says argument errors in plain words.
//   - The words of refusals (words.go): MaxQuote, Cut, Inert, Errorf, and
//     Encode, which writes a refusal's "id": null as JSON-RPC asks.
package protocol
