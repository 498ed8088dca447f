// Package tools defines the MCP tools this server offers, each in a file of
// its own: Add registers them. It knows nothing of
// transports.
//
// Each tool is a [mcp.Tool] and a typed handler, registered with
// [mcp.AddTool]. The SDK infers the inputSchema and outputSchema from the
// handler's Go types, validates the arguments, and puts the output in
// structuredContent (MCP specification 2025-11-25, "Tools"). Errors the
// model can fix are results with isError set, not JSON-RPC errors, so that
// the model reads them and can try again (SEP-1303).
package tools

import (
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Add registers the tools on s, and returns their names, in order.
// get_timestamp reads the current instant from now, so that tests can fix
// the clock.
func Add(s *mcp.Server, now func() time.Time) []string {
	var names []string
	for _, t := range []*mcp.Tool{addEcho(s), addTimestamp(s, now), addCalculate(s)} {
		names = append(names, t.Name)
	}
	return names
}

// readOnly returns the annotations every tool shares: each changes
// nothing, reaches nothing outside the server, and answers the same input
// the same way (get_timestamp's answer moves only with the clock). Two
// hints are *bool, so that unset differs from false: new(false), new with a
// value since Go 1.26, is a pointer to false.
func readOnly() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)}
}
