package protocol

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Middleware returns the policy for what go-sdk's handlers return, as
// receiving middleware, on the handler's goroutine: a panic is logged with
// its stack and answered with -32603 (go-sdk v1.8.0 lets it end the
// process, and asks servers to recover in middleware); an error gets a
// code of the specifications, not code 0 (go-sdk#976), and a message of
// at most 200 bytes; arguments that fail a tool's inputSchema get a tool
// error in plain words.
func Middleware(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if v := recover(); v != nil {
					logger.Error("handler panicked", "method", method, "panic", v, "stack", string(debug.Stack()))
					res, err = nil, Errorf(jsonrpc.CodeInternalError, "internal error")
				}
			}()
			res, err = next(ctx, method, req)
			if err != nil {
				return nil, wireError(method, err)
			}
			if call, ok := req.(*mcp.CallToolRequest); ok {
				plainArguments(ctx, next, call, res)
			}
			return res, nil
		}
	}
}

// wireError returns err with its code if JSON-RPC 2.0 (§5.1) or MCP
// (2026-07-28, "Error Codes") has it, else as the server's own failure,
// -32603.
func wireError(method string, err error) *jsonrpc.Error {
	e := Errorf(jsonrpc.CodeInternalError, "%s", Cut(err.Error(), 200))
	var coded *jsonrpc.Error
	if errors.As(err, &coded) {
		switch coded.Code {
		case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams,
			mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapabilities, mcp.CodeUnsupportedProtocolVersion:
			e.Code, e.Data = coded.Code, coded.Data
		}
	}
	if strings.HasSuffix(method, "/list") && e.Code == jsonrpc.CodeInvalidParams { // go-sdk: "invalid params"
		e.Message = "invalid params: the cursor is not one this server gave; a cursor is the nextCursor of the page before, " +
			"and the first page is listed without one"
	}
	return e
}

// sdkArguments begins go-sdk's tool error for arguments that fail the
// inputSchema, in its validator's words:
//
//	validating "arguments": validating root: validating /properties/expression: type: <invalid reflect.Value> has type "null", want "string"
const sdkArguments = `validating "arguments": `

// plainArguments says what is wrong with arguments go-sdk refused, from
// the schema it checked them against (its own tools/list), as a model
// reads it at once:
//
//	invalid arguments for calculate: argument "expression" must be a string, not null
func plainArguments(ctx context.Context, next mcp.MethodHandler, call *mcp.CallToolRequest, res mcp.Result) {
	result, _ := res.(*mcp.CallToolResult)
	if result == nil || !result.IsError || len(result.Content) != 1 {
		return
	}
	text, _ := result.Content[0].(*mcp.TextContent)
	if text == nil || !strings.HasPrefix(text.Text, sdkArguments) {
		return
	}
	problem := strings.TrimPrefix(text.Text[len(sdkArguments):], "validating root: ")
	list, _ := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: call.Session, Params: &mcp.ListToolsParams{}})
	if list, ok := list.(*mcp.ListToolsResult); ok {
		for _, tool := range list.Tools {
			if schema, ok := tool.InputSchema.(*jsonschema.Schema); ok && tool.Name == call.Params.Name {
				problem = cmp.Or(argumentsProblem(schema, call.Params.Arguments), problem)
			}
		}
	}
	text.Text = fmt.Sprintf("invalid arguments for %s: %s", call.Params.Name, problem)
}

// argumentsProblem says what is wrong with args for the keywords of the
// tools' schemas (type, required, properties, additionalProperties false,
// enum), or returns "".
func argumentsProblem(schema *jsonschema.Schema, args json.RawMessage) string {
	if k := kind(args); k != "an object" && k != "null" && k != "nothing" {
		return `arguments must be a JSON object, such as {"name": value}, not ` + k
	}
	var given map[string]json.RawMessage
	_ = json.Unmarshal(args, &given) // go-sdk has decoded it
	for _, name := range schema.Required {
		if _, ok := given[name]; !ok {
			return fmt.Sprintf("missing required argument %q", name)
		}
	}
	var unknown []string
	for _, name := range slices.Sorted(maps.Keys(given)) {
		value, prop := given[name], schema.Properties[name]
		want := map[string]string{"string": "a string", "number": "a number", "integer": "a number", "boolean": "a boolean",
			"object": "an object", "array": "an array", "null": "null"}[cmp.Or(prop, &jsonschema.Schema{}).Type]
		switch {
		case prop == nil:
			unknown = append(unknown, fmt.Sprintf("%q", name))
		case want != "" && kind(value) != want:
			return fmt.Sprintf("argument %q must be %s, not %s", name, want, kind(value))
		case prop.Enum != nil && !slices.ContainsFunc(prop.Enum, func(v any) bool { b, _ := json.Marshal(v); return string(b) == string(value) }):
			var text string
			shown := Cut(string(value), 40)
			if json.Unmarshal(value, &text) == nil {
				shown = strconv.Quote(Cut(text, 40))
			}
			return fmt.Sprintf("argument %q is %s; it must be one of %q", name, shown, prop.Enum)
		}
	}
	if unknown != nil {
		return "unknown argument " + Cut(strings.Join(unknown, ", "), 200) + "; use only the arguments in the tool's inputSchema"
	}
	return ""
}
