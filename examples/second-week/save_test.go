package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSaveNote adds two lines, and finds both in the file, in order.
func TestSaveNote(t *testing.T) {
	ctx, stop := context.WithTimeout(t.Context(), 10*time.Second)
	defer stop()
	path := filepath.Join(t.TempDir(), "notes.txt")
	t.Setenv("MY_SERVER_NOTES", path)
	server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "0.1.0"}, nil)
	mcp.AddTool(server, saveTool, saveNote)
	clientTransport, serverTransport := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverTransport, nil); err != nil {
		t.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0.1.0"}, nil).Connect(ctx, clientTransport, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := session.Close(); err != nil {
			t.Error(err)
		}
	}()
	for _, note := range []string{"buy milk", "call Ada"} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "save_note", Arguments: map[string]any{"note": note}})
		if err != nil || res.IsError {
			t.Fatalf("save_note(%q) = %+v, %v", note, res, err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "buy milk\ncall Ada\n" {
		t.Errorf("notes file = %q, %v; want both lines", data, err)
	}
}
