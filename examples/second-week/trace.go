package main

import (
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// transport is the one a host starts the server on, stdio; with
// MY_SERVER_TRACE set, inside go-sdk's LoggingTransport, which writes every
// message read and written to standard error ("read: {...}", "write: {...}").
func transport() mcp.Transport {
	var t mcp.Transport = &mcp.StdioTransport{}
	if os.Getenv("MY_SERVER_TRACE") != "" {
		t = &mcp.LoggingTransport{Transport: t, Writer: os.Stderr}
	}
	return t
}
