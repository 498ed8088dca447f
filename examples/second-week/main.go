// Command second-week is the server docs/second-week.md builds: lookup,
// which waits on a slow service, honours a cancellation and sends
// progress; save_note, which writes; an API key from the environment; and
// every message on stderr with MY_SERVER_TRACE set. Copy every file but
// this one into your own module: this main.go stands in for yours, which is
// examples/hello's with the lines the page adds.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "second-week", Version: "0.1.0"}, nil)
	mcp.AddTool(server, lookupTool, lookup)
	mcp.AddTool(server, saveTool, saveNote)
	return server
}

func main() {
	if err := newServer().Run(context.Background(), transport()); err != nil {
		log.Fatal(err)
	}
}
