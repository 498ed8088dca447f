// Command my-server is a reader's own server, as bundle_test.go at the top
// of the checkout bundles it: examples/hello's shape, with a tool that
// needs an API key. The key comes from the environment, where the bundle's
// manifest has Claude Desktop put what the user gave in the extension's
// settings; the server never writes it out, not even in an error.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// keyVariable names the variable that holds the API key: manifest.json's
// mcp_config.env sets it to ${user_config.api_key}.
const keyVariable = "MY_SERVER_API_KEY"

// newServer returns the server with its tool, which knows key.
func newServer(key string) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "my-server", Version: "0.1.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "key_fingerprint", Description: "Says which API key the server has: the first 8 bytes of its SHA-256, in hex, never the key."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			sum := sha256.Sum256([]byte(key))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: hex.EncodeToString(sum[:8])}}}, nil, nil
		})
	return server
}

func main() {
	key := os.Getenv(keyVariable)
	if key == "" {
		log.Fatalf("%s is not set: give the API key in the extension's settings", keyVariable)
	}
	if err := newServer(key).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
