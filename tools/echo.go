package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EchoInput is the arguments object of the echo tool.
type EchoInput struct {
	Message string `json:"message" jsonschema:"The text to send back. Returned exactly as given, byte for byte."`
}

func addEcho(s *mcp.Server) {
	tool := &mcp.Tool{
		Name:        "echo",
		Title:       "Echo",
		Description: "Returns the given message unchanged, as a single text content block. Useful to check that the server is connected. Argument: message (string, required).",
		Annotations: readOnly(),
	}
	mcp.AddTool(s, tool, echo)
}

// echo answers with one text block holding the message exactly. Its output
// type is any, so the tool has no outputSchema and no structuredContent.
func echo(_ context.Context, _ *mcp.CallToolRequest, in EchoInput) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: in.Message}},
	}, nil, nil
}
