package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/tools"
)

// name is the implementation name the server reports in its initialize result.
const name = "mcp-hello-tools"

// version is the implementation version the server reports. Release builds
// may override it with -ldflags "-X main.version=…".
var version = "0.1.0"

// protocolVersions are the MCP specification versions this server answers
// initialize for, newest first. A client that asks for one of them gets it
// back; the draft versions the SDK also knows are left out on purpose, so the
// server speaks only released revisions of the specification.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// newServer builds the MCP server with its three tools. now is the clock
// get_timestamp reads; logger receives one line per tool call.
func newServer(now func() time.Time, logger *slog.Logger) *mcp.Server {
	s := mcp.NewServer(
		&mcp.Implementation{Name: name, Title: "MCP hello tools", Version: version},
		&mcp.ServerOptions{
			Instructions: "Three small tools: echo returns a message unchanged, " +
				"get_timestamp tells the current time in any IANA time zone, " +
				"calculate evaluates an arithmetic expression.",
			// Tools only: without this the SDK also advertises logging.
			Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
			SupportedProtocolVersions: protocolVersions,
		})
	tools.Add(s, now)
	// Each request passes through the middleware in this order, outermost
	// first, on its way to the SDK's handler: logToolCalls sees the final
	// outcome, standardErrors the code of any error, recoverPanics a panic
	// in anything below it, onlyServedMethods turns away features the
	// server does not offer, and clarifyArgumentErrors rewords the SDK's
	// answer to arguments that fail the inputSchema.
	s.AddReceivingMiddleware(logToolCalls(logger), standardErrors, recoverPanics(logger),
		onlyServedMethods, clarifyArgumentErrors())
	return s
}

// logToolCalls returns middleware that logs one line per tools/call request:
// the tool's name, how long the call took and its outcome ("ok", "tool error"
// for a result with isError set, or the JSON-RPC error).
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
			switch r, _ := res.(*mcp.CallToolResult); {
			case err != nil:
				outcome = err.Error()
			case r != nil && r.IsError:
				outcome = "tool error"
			}
			logger.Info("tools/call", "tool", call.Params.Name, "duration", time.Since(start), "outcome", outcome)
			return res, err
		}
	}
}
