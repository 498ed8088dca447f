// Package tools defines the three MCP tools this server offers: echo,
// get_timestamp and calculate.
//
// Each tool is a [mcp.Tool] (its name, title, description and annotations)
// plus a typed handler registered with [mcp.AddTool]. The SDK infers each
// tool's inputSchema and outputSchema from the Go input and output types,
// validates the arguments before the handler runs, and puts the output in
// the result's structuredContent (MCP specification 2025-11-25, "Tools").
//
// Errors that the model can fix — a bad expression, an unknown time zone —
// are returned as tool results with isError set, not as JSON-RPC errors, so
// the model sees the message and can try again (SEP-1303).
//
// The package knows nothing of transports: it only adds tools to a server.
package tools

import (
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Add registers echo, get_timestamp and calculate on s. The get_timestamp
// tool reads the current instant from now, so tests can fix the clock.
func Add(s *mcp.Server, now func() time.Time) {
	addEcho(s)
	addTimestamp(s, now)
	addCalculate(s)
}

// Names returns the names of the tools Add registers, in order: for logs
// and tests. A test checks it against the server's tools/list.
func Names() []string { return []string{"echo", "get_timestamp", "calculate"} }

// readOnly holds the annotations shared by all three tools: each one only
// computes an answer, changes nothing, gives the same answer for the same
// input (get_timestamp's answer moves with the clock, not with side effects)
// and touches nothing outside the server.
func readOnly() *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{
		ReadOnlyHint:    true,
		DestructiveHint: &f,
		IdempotentHint:  true,
		OpenWorldHint:   &f,
	}
}
