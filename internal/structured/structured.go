// Package structured registers a tool whose output holds numbers float64
// cannot carry, as go-sdk's mcp.AddTool would if it kept their digits.
//
// go-sdk v1.8.0 checks a typed tool's output against its outputSchema by
// decoding the output's JSON into a map[string]any, where every number
// becomes a float64, and then sends that map, encoded again, as the
// result's structuredContent and its text block: 121932631112635269 goes
// out as 121932631112635260 (go-sdk#1201; fix in PR #1244). AddTool does
// what mcp.AddTool does, but checks a copy, and sends the JSON with the
// numbers as the handler wrote them. Once fixed: delete this package, and
// call mcp.AddTool.
package structured

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AddTool adds a tool and its typed handler to s, as mcp.AddTool does,
// for an Out whose numbers may be json.Number, which it sends digit for
// digit. t.OutputSchema must be Out's schema, a *jsonschema.Schema:
// inferred, it would make a json.Number a string. AddTool panics where
// mcp.AddTool would, on a schema it cannot use.
func AddTool[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	schema, ok := t.OutputSchema.(*jsonschema.Schema)
	if !ok || schema == nil {
		panic(fmt.Sprintf("structured.AddTool(%q): outputSchema is %T, not a *jsonschema.Schema", t.Name, t.OutputSchema))
	}
	resolved, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("structured.AddTool(%q): %v", t.Name, err))
	}
	// The handler mcp.AddTool gets returns no output (Out is any, and nil),
	// so go-sdk leaves the result as it is.
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		res, out, err := h(ctx, req, in)
		if err != nil {
			return nil, nil, err
		}
		content, err := encode(out, resolved)
		if err != nil {
			// go-sdk answers an output that fails its own schema so too.
			return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "validating tool output: " + err.Error()}
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		res.StructuredContent = content
		if res.Content == nil {
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(content)}}
		}
		return res, nil, nil
	})
}

// encode returns out's JSON as go-sdk makes structuredContent of it, the
// properties of an object in sorted order, with its numbers as written,
// after validating a copy in which they are float64, as go-sdk validates.
// (go-sdk also applies the schema's defaults; the schemas here have none.)
func encode(out any, schema *jsonschema.Resolved) (json.RawMessage, error) {
	data, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	var float any
	if err := json.Unmarshal(data, &float); err != nil {
		return nil, err
	}
	if err := schema.Validate(&float); err != nil {
		return nil, err
	}
	var exact any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&exact); err != nil {
		return nil, err
	}
	return json.Marshal(exact)
}
