// Command probe is not this repository's server: it is the server that
// interop/hosts runs each host against to learn what the host shows its
// model. Its tools answer differently on purpose, where the real server's
// never do: a text block and structuredContent that differ, several
// content blocks, an isError result with structuredContent, a description
// longer than 4,096 characters, and a title beside the name.
//
//	go build -o probe ./interop/hosts/probe
//
// What each host made of each tool and result is in the "probe" part of
// interop/hosts/captures/HOST.json; docs/model.md is written from it.
package main

import (
	"context"
	"encoding/json"
	"log"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// longDescription is past 4,096 characters, where a host may cut it, and
// says where it ends.
var longDescription = strings.Repeat("This description is long on purpose, to see where a host cuts it. ", 75) + "The end."

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "0.1.0"}, nil)
	structured := map[string]any{"from": "structuredContent"}
	schema := json.RawMessage(`{"type":"object","properties":{"from":{"type":"string"}},"required":["from"]}`)
	add := func(t *mcp.Tool, result func() *mcp.CallToolResult) {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
		// Codex runs a tool without asking only if it is read-only.
		if t.Annotations == nil {
			t.Annotations = &mcp.ToolAnnotations{}
		}
		t.Annotations.ReadOnlyHint = true
		server.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return result(), nil })
	}
	add(&mcp.Tool{Name: "differ", Description: "Answers with a text block and structuredContent that differ.", OutputSchema: schema},
		func() *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: texts("from the text block"), StructuredContent: structured}
		})
	add(&mcp.Tool{Name: "blocks", Description: "Answers with two text blocks."},
		func() *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: texts("the first block", "the second block")}
		})
	add(&mcp.Tool{Name: "fails", Description: "Answers with an isError result whose text has two lines, and structuredContent.", OutputSchema: schema},
		func() *mcp.CallToolResult {
			return &mcp.CallToolResult{IsError: true, Content: texts("from the text block,\nits second line"), StructuredContent: structured}
		})
	add(&mcp.Tool{Name: "long", Description: longDescription},
		func() *mcp.CallToolResult { return &mcp.CallToolResult{Content: texts("long")} })
	add(&mcp.Tool{Name: "titled", Title: "The tool's title", Description: "Has a title, and a title in its annotations.",
		Annotations: &mcp.ToolAnnotations{Title: "The annotations' title"}},
		func() *mcp.CallToolResult { return &mcp.CallToolResult{Content: texts("titled")} })
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

// texts returns a text content block for each string.
func texts(s ...string) []mcp.Content {
	content := make([]mcp.Content, len(s))
	for i, t := range s {
		content[i] = &mcp.TextContent{Text: t}
	}
	return content
}
