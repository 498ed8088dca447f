package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/stdio"
)

// This file holds the middleware that keeps the server's promise about
// errors: the process survives a panicking handler, and every error a
// handler returns reaches the client with one of JSON-RPC 2.0's standard
// codes. Receiving middleware wraps the SDK's method handlers, and the SDK
// calls it on the request's own goroutine, so a deferred recover sees the
// handler's panic.
//
// Middleware only sees requests the SDK has accepted. Errors the SDK raises
// before that (an unknown method, a request before initialize, params that
// do not decode) are given their codes by the stdio connection as it writes
// them.

// recoverPanics returns middleware that turns a panic in a handler into a
// -32603 "internal error" reply, and logs the panic value and the stack.
// Without it, go-sdk v1.8.0 lets the panic end the process.
func recoverPanics(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				attrs := []any{"method", method, "panic", v, "stack", string(debug.Stack())}
				if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
					attrs = append(attrs, "tool", call.Params.Name)
				}
				logger.Error("handler panicked", attrs...)
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
			}()
			return next(ctx, method, req)
		}
	}
}

// standardErrors is middleware that gives an error returned by a handler one
// of JSON-RPC 2.0's five standard codes, keeping its message. In go-sdk
// v1.8.0 a plain Go error goes out with code 0, which is no JSON-RPC code:
//
//   - a second initialize is an invalid request (-32600);
//   - any other uncoded error, such as a tool's output failing its
//     outputSchema or a cancelled request, is the server's own failure: an
//     internal error (-32603).
//
// A code outside the standard five (an MCP extension code) also becomes
// -32603; its message and data are kept.
func standardErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err == nil {
			return res, nil
		}
		out := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		var coded *jsonrpc.Error
		switch {
		case errors.As(err, &coded) && stdio.IsStandardCode(coded.Code):
			return nil, err
		case coded != nil:
			out.Data = coded.Data
		case method == "initialize":
			out.Code = jsonrpc.CodeInvalidRequest
		}
		return nil, out
	}
}

// servedMethods are the requests this server answers: the lifecycle's
// initialize and ping, and the tools feature, the only one it advertises.
var servedMethods = map[string]bool{
	"initialize": true, "ping": true, "tools/list": true, "tools/call": true,
}

// onlyServedMethods is middleware that answers -32601 (method not found) to
// a request for a feature the server does not advertise. The SDK answers
// resources/list, prompts/list and logging/setLevel whatever the server
// advertises, with empty lists; a client that asks for a feature the server
// never offered should hear that it does not exist (MCP 2025-11-25,
// "Capability negotiation"). Notifications pass through: they are never
// answered.
func onlyServedMethods(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !servedMethods[method] && !strings.HasPrefix(method, "notifications/") {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %q", method)}
		}
		return next(ctx, method, req)
	}
}
