package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type saveInput struct {
	Note string `json:"note" jsonschema:"one line to keep"`
}

var saveTool = &mcp.Tool{
	Name:        "save_note",
	Description: "Adds a line to the notes file, MY_SERVER_NOTES (my-server-notes.txt in the home folder if unset).",
	// It writes, so it is not read-only; it only adds (not destructive); each
	// call adds one more line (not idempotent); it stays on this machine.
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
}

func saveNote(_ context.Context, _ *mcp.CallToolRequest, in saveInput) (*mcp.CallToolResult, any, error) {
	if in.Note == "" || strings.ContainsAny(in.Note, "\r\n") {
		return nil, nil, errors.New("note must be one line, not empty")
	}
	path := os.Getenv("MY_SERVER_NOTES")
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, nil, errors.New("set MY_SERVER_NOTES: there is no home folder")
		}
		path = filepath.Join(home, "my-server-notes.txt")
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, err
	}
	_, err = fmt.Fprintln(f, in.Note)
	if err := errors.Join(err, f.Close()); err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "saved in " + path}}}, nil, nil
}
