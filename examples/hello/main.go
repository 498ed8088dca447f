// Command hello is the smallest MCP server here, on go-sdk alone: one
// tool, greet, served over stdio. It is the one to copy: the README's
// "Your own server" makes a module of it. The server at the root serves
// this repository's tools the same way, through internal/stdio, which
// keeps a session alive where go-sdk v1.8.0 ends it or loses a reply
// (shortfalls_test.go feeds go-sdk's transport and that one the same lines).
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// greetInput is greet's arguments: go-sdk infers their JSON Schema from
// the json tag (the name) and the jsonschema tag (the description).
type greetInput struct {
	Name string `json:"name" jsonschema:"the name of whom to greet"`
}

func greet(_ context.Context, _ *mcp.CallToolRequest, in greetInput) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
}

// newServer returns the server with its tools, for main and main_test.go.
func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "hello", Version: "0.1.0"}, nil)
	// A tool is a name, a description for the model, and a typed handler.
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Greets someone by name."}, greet)
	return server
}

func main() {
	// Run serves one session over standard input and output, one JSON-RPC
	// message a line, until standard input ends; log on standard error.
	if err := newServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
