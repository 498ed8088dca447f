package stdio

import (
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// codeUnsupportedProtocolVersion is the code the SDK answers a request that
// asks, in its _meta, for a draft protocol version this server does not
// serve (SEP-2575's -32022).
const codeUnsupportedProtocolVersion = -32022

// wireError returns the error object to send for err, a handler's or the
// SDK's error, with one of JSON-RPC 2.0's standard codes (§5.1):
//
//	-32700  parse error       the line is not JSON (answered by decode)
//	-32600  invalid request   not a valid request, or not now
//	-32601  method not found
//	-32602  invalid params
//	-32603  internal error    anything else: a fault in the server
//
// The message and data of err are kept. Errors that handlers return can be
// given their codes by middleware; this is for the errors the SDK raises
// itself before any middleware runs, some of which carry code 0 in go-sdk
// v1.8.0. Which is which can only be told from their text, so the cases
// below quote it; an error not recognised gets -32603, never 0.
func wireError(err error) *jsonrpc.Error {
	out := &jsonrpc.Error{Message: err.Error()}
	var coded *jsonrpc.Error
	if errors.As(err, &coded) {
		out.Code, out.Data = coded.Code, coded.Data
	}
	code := standardCode(out.Code, out.Message)
	if out.Code == jsonrpc.CodeInvalidRequest && code == jsonrpc.CodeInvalidParams {
		out.Message = strings.Replace(out.Message, "invalid request: ", "invalid params: ", 1)
	}
	out.Code = code
	return out
}

func standardCode(code int64, message string) int64 {
	switch {
	case strings.Contains(message, `missing required "params"`),
		strings.HasPrefix(message, `handling 'initialize': unmarshaling`):
		// An absent or null params object: the SDK says -32600 for the
		// first and 0 for the second; both are bad params.
		return jsonrpc.CodeInvalidParams
	case code == codeUnsupportedProtocolVersion:
		// MCP's own answer to an unsupported version is -32602 (lifecycle,
		// "Error Handling"); the data still lists the versions served.
		return jsonrpc.CodeInvalidParams
	case IsStandardCode(code):
		return code
	case strings.Contains(message, "invalid during session initialization"):
		// A request other than initialize or ping before initialize.
		return jsonrpc.CodeInvalidRequest
	}
	return jsonrpc.CodeInternalError
}

// IsStandardCode reports whether code is one of the five error codes
// JSON-RPC 2.0 defines (§5.1): -32700, -32600, -32601, -32602 or -32603.
func IsStandardCode(code int64) bool {
	switch code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound,
		jsonrpc.CodeInvalidParams, jsonrpc.CodeInternalError:
		return true
	}
	return false
}
