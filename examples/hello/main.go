// Command hello is the smallest server of this repository, served over
// stdio by go-sdk alone: one tool written here, and the repository's
// three. Run it with
//
//	go run ./examples/hello
//
// and it waits, silently, for a client on standard input. The server at
// the root of the repository, main.go, serves the three tools through
// internal/stdio instead, which keeps a session alive where go-sdk v1.8.0
// ends it or loses a reply: shortfalls_test.go feeds both the same input.
package main

import (
	"context"
	"log"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/tools"
)

// greetInput is greet's arguments: go-sdk infers their JSON Schema from
// the json tags (the names) and jsonschema tags (the descriptions).
type greetInput struct {
	Name string `json:"name" jsonschema:"the name of whom to greet"`
}

// greet is a tool's handler: it gets the arguments checked against that
// schema, and returns the result the model reads.
func greet(_ context.Context, _ *mcp.CallToolRequest, in greetInput) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
}

func main() {
	// A server is a name and a version, and what it offers: tools here.
	server := mcp.NewServer(&mcp.Implementation{Name: "hello", Version: "0.1.0"}, nil)
	// A tool is a name, a description for the model, and a typed handler.
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Greets someone by name."}, greet)
	// Add registers echo, get_timestamp and calculate the same way.
	tools.Add(server, time.Now)
	// Run serves one session over standard input and output, one JSON-RPC
	// message a line, until standard input ends. Standard output carries
	// the protocol alone: log on standard error, as log does.
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
