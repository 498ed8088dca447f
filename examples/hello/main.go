// Command hello is the smallest server of this repository: its tools, served
// over stdio by go-sdk alone. Run it with
//
//	go run ./examples/hello
//
// and it waits, silently, for a client on standard input. The server at
// the root of the repository, main.go, serves the same tools through
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

func main() {
	// A server is a name and a version, and what it offers: tools here.
	server := mcp.NewServer(&mcp.Implementation{Name: "hello", Version: "0.1.0"}, nil)
	// Add registers echo, get_timestamp and calculate: each a mcp.Tool and
	// a typed handler, whose arguments' JSON Schema go-sdk infers.
	tools.Add(server, time.Now)
	// Run serves one session over standard input and output, one JSON-RPC
	// message a line, until standard input ends. Standard output carries
	// the protocol alone: log on standard error, as log does.
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
