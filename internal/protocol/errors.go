package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// IsSpecCode reports whether code is one an error reply of this server may
// carry: one of the five JSON-RPC 2.0 defines (§5.1), or one the MCP
// specification assigns itself (2026-07-28, "Error Codes"): -32020 header
// mismatch, -32021 missing required client capability, -32022 unsupported
// protocol version.
func IsSpecCode(code int64) bool {
	switch code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound,
		jsonrpc.CodeInvalidParams, jsonrpc.CodeInternalError,
		mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapabilities, mcp.CodeUnsupportedProtocolVersion:
		return true
	}
	return false
}

// WireError returns err as an error reply carries it, with a code
// IsSpecCode accepts. go-sdk v1.8.0 sends some errors with code 0, which is
// no JSON-RPC code (go-sdk#976): a second initialize, and a request before
// initialize, which are invalid requests (-32600), and any error a handler
// returns, which is the server's own failure (-32603). An error with a code
// of another range becomes -32603 too, its message and data kept.
func WireError(err error) *jsonrpc.Error {
	out := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	var coded *jsonrpc.Error
	if errors.As(err, &coded) {
		out.Data = coded.Data
		if IsSpecCode(coded.Code) {
			out.Code = coded.Code
			return out
		}
	}
	if strings.HasPrefix(out.Message, `duplicate "initialize"`) ||
		strings.HasSuffix(out.Message, "is invalid during session initialization") {
		out.Code = jsonrpc.CodeInvalidRequest
	}
	return out
}

// ErrorResponse encodes the JSON-RPC error response to the request with
// the given id (nil: null), as a line of JSON: {"jsonrpc":"2.0","id":…,"error":…}.
func ErrorResponse(id json.RawMessage, err error) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	e, merr := json.Marshal(WireError(err))
	if merr != nil { // a jsonrpc.Error always encodes, but for Data that is not JSON
		e = []byte(`{"code":-32603,"message":"internal error"}`)
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, id, e)
}

// Middleware returns the server's error policy as go-sdk receiving
// middleware, for what its handlers return, on any transport:
//
//   - a handler that panics is answered with -32603 "internal error", and
//     the panic and its stack are logged: go-sdk v1.8.0 lets a panic end
//     the process, and its maintainers ask servers to recover in middleware;
//   - an error goes out with a code IsSpecCode accepts (see WireError);
//   - a tools/call whose arguments fail the tool's inputSchema gets a tool
//     error that says what was wrong in plain words (see plainArguments).
//
// The SDK calls receiving middleware on the request's own goroutine, so the
// deferred recover sees the handler's panic.
func Middleware(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if v := recover(); v != nil {
					logger.Error("handler panicked", "method", method, "panic", v, "stack", string(debug.Stack()))
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
				}
			}()
			res, err = next(ctx, method, req)
			if err != nil {
				return nil, WireError(err)
			}
			if call, ok := req.(*mcp.CallToolRequest); ok {
				plainArguments(call, res)
			}
			return res, nil
		}
	}
}
