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

// IsSpecCode reports whether an error reply may carry code: one of the five
// of JSON-RPC 2.0 (§5.1), or of MCP's own (2026-07-28, "Error Codes").
func IsSpecCode(code int64) bool {
	switch code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound,
		jsonrpc.CodeInvalidParams, jsonrpc.CodeInternalError,
		mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapabilities, mcp.CodeUnsupportedProtocolVersion:
		return true
	}
	return false
}

// WireError returns err with a code IsSpecCode accepts. go-sdk v1.8.0 sends
// some errors with code 0 (go-sdk#976): a second initialize, or a request
// before initialize, is an invalid request (-32600); an error a handler
// returns, or one with a code of no specification, is the server's own
// failure (-32603).
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
	switch {
	case strings.HasPrefix(out.Message, `duplicate "initialize"`):
		out.Code = jsonrpc.CodeInvalidRequest
	case strings.HasSuffix(out.Message, "is invalid during session initialization"):
		out.Code = jsonrpc.CodeInvalidRequest
		out.Message += `: send initialize first, or, in MCP ` + ModernVersion +
			`, give each request its protocol version in "_meta"`
	}
	return out
}

// ErrorResponse encodes the error response to the request with the given
// id (nil: null) as one line of JSON.
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

// Middleware returns the error policy for what handlers return, as go-sdk
// receiving middleware, which runs on the handler's goroutine:
//
//   - a panic is logged and answered with -32603: go-sdk v1.8.0 lets it end
//     the process, and its maintainers ask servers to recover in middleware;
//   - an error goes out with a code IsSpecCode accepts (WireError);
//   - arguments that fail a tool's inputSchema get a tool error in plain
//     words (plainArguments).
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
