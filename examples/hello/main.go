// Command hello is the smallest server here, on go-sdk alone: one tool
// written inline and the repository's (tools.Add), served over stdio.
// main.go serves them through internal/stdio instead, which keeps a
// session alive where go-sdk v1.8.0 ends it or loses a reply
// (shortfalls_test.go feeds both the same input).
package main

import (
	"context"
	"log"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/tools"
)

// greetInput is greet's arguments: go-sdk infers their JSON Schema from
// the json tag (the name) and the jsonschema tag (the description).
type greetInput struct {
	Name string `json:"name" jsonschema:"the name of whom to greet"`
}

func greet(_ context.Context, _ *mcp.CallToolRequest, in greetInput) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "hello", Version: "0.1.0"}, nil)
	// A tool is a name, a description for the model, and a typed handler.
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Greets someone by name."}, greet)
	tools.Add(server, time.Now) // echo, get_timestamp and calculate, added the same way
	// Run serves one session over standard input and output, one JSON-RPC
	// message a line, until standard input ends; log on standard error.
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
