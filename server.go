package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/tools"
)

// name, title and version are what the server reports of itself to
// clients. A release build may set version with -ldflags "-X
// main.version=…".
const name = "mcp-hello-tools"

// title is the name for people, and VS Code builds each tool's name for the
// model from it: "mcp_" and the title, lower-cased, cut to 13 characters,
// then the tool's. "Hello tools" gives mcp_hello_tools_echo whole.
const title = "Hello tools"

var version = "0.1.0"

// instructions tell the model what the server is for; clients show them to
// the model with the tools.
const instructions = "Small tools that answer at once, from this server alone, and change nothing: " +
	"each tool's description says what it does and what it takes."

// capabilities are the features the server advertises: tools only.
// go-sdk alone infers them from what is added (examples/hello); this
// server states them because its hardened transports (main.go) serve
// exactly the methods of the features stated: add a resource, and add
// Resources here, or resources/list is "method not found" (-32601).
var capabilities = &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}

// newServer builds the MCP server with its tools. now is the clock
// get_timestamp reads; logger receives one line per tool call. It speaks
// every revision go-sdk knows: 2026-07-28, where each request carries its
// version, and 2025-11-25 to 2024-11-05, chosen in initialize.
func newServer(now func() time.Time, logger *slog.Logger) *mcp.Server {
	s := mcp.NewServer(
		&mcp.Implementation{Name: name, Title: title, Version: version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: capabilities})
	tools.Add(s, now)
	// Each request passes through receiving middleware on its way to the
	// SDK's handler: logToolCalls sees each tools/call and its outcome.
	s.AddReceivingMiddleware(logToolCalls(logger))
	return s
}

// logToolCalls returns middleware that logs one line per tools/call: the
// tool's name, how long the call took, and its outcome ("ok", "tool error"
// for a result with isError set, or the JSON-RPC error). The name is the
// client's: main.go's logger cuts what a line quotes.
func logToolCalls(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if !ok {
				return next(ctx, method, req)
			}
			start := time.Now()
			res, err := next(ctx, method, req)
			outcome := "ok"
			if err != nil {
				outcome = err.Error()
			} else if r, _ := res.(*mcp.CallToolResult); r != nil && r.IsError {
				outcome = "tool error"
			}
			logger.Info("tools/call", "tool", call.Params.Name, "duration", time.Since(start), "outcome", outcome)
			return res, err
		}
	}
}
