package main

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGreet calls greet as a host does, through a client, with client and
// server joined in memory. It needs go-sdk alone, as main.go does.
func TestGreet(t *testing.T) {
	ctx := context.Background()
	clientTransport, serverTransport := mcp.NewInMemoryTransports()
	if _, err := newServer().Connect(ctx, serverTransport, nil); err != nil {
		t.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0.1.0"}, nil).Connect(ctx, clientTransport, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("greet(Ada) = %+v, %v; want one text", res, err)
	}
	if text, _ := res.Content[0].(*mcp.TextContent); text == nil || text.Text != "Hello, Ada!" {
		t.Errorf("greet(Ada) = %+v, want the text Hello, Ada!", res.Content[0])
	}
	if err := session.Close(); err != nil {
		t.Error(err)
	}
}
