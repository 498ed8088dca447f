package protocol

import (
	"bytes"
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
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Middleware returns the policy for what go-sdk's handlers are given and
// return, as receiving middleware, on the handler's goroutine: arguments a
// host adds of its own (HostArguments) are set aside, and a call's
// arguments are checked against its tool's inputSchema, so that the tool
// error go-sdk answers a mistake with says it in plain words; a panic is
// logged with its stack and answered with -32603 (go-sdk v1.8.0 lets it
// end the process, and asks servers to recover in middleware); an error
// gets a code of the specifications, not code 0 (go-sdk#976), and a
// message of at most MaxQuote bytes.
func Middleware(logger *slog.Logger) mcp.Middleware {
	var schemas toolSchemas
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if v := recover(); v != nil {
					logger.Error("handler panicked", "method", method, "panic", v, "stack", string(debug.Stack()))
					res, err = nil, Errorf(jsonrpc.CodeInternalError, "internal error")
				}
			}()
			call, _ := req.(*mcp.CallToolRequest)
			schema := schemas.of(ctx, next, call)
			if schema != nil {
				call.Params.Arguments = withoutHostArguments(schema, call.Params.Arguments)
			}
			res, err = next(ctx, method, req)
			if err != nil {
				return nil, wireError(method, err)
			}
			// go-sdk refuses arguments in its validator's words, in a result
			// of its own (a 2026-07-28 one carries resultType): here they are
			// said from the schema, if they do not fit it.
			if r, ok := res.(*mcp.CallToolResult); ok && r.IsError && schema != nil {
				if problem := argumentsProblem(schema, call.Params.Arguments); problem != "" {
					r.Content = []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("invalid arguments for %s: %s", Cut(call.Params.Name, MaxQuote), problem)}}
				}
			}
			return res, nil
		}
	}
}

// HostArguments are the arguments a host adds to every tool's inputSchema
// as it shows the tool to the model, and passes on to the server when the
// model sets them, with the host that adds each. A tool whose inputSchema
// does not declare one never sees it. Exported for the tests that call
// every tool with each.
var HostArguments = map[string]string{
	"wait_for_previous": "Gemini CLI 0.61.0: a boolean, to run the call after those before it",
}

// withoutHostArguments returns args without the HostArguments schema does
// not declare. Names compare as decoded: "wait\u005ffor_previous" is
// wait_for_previous.
func withoutHostArguments(schema *jsonschema.Schema, args json.RawMessage) json.RawMessage {
	added := bytes.IndexByte(args, '\\') >= 0 // an escape may spell a name otherwise
	for name := range HostArguments {
		added = added || bytes.Contains(args, []byte(name))
	}
	var given map[string]json.RawMessage
	if !added || json.Unmarshal(args, &given) != nil { // most calls: nothing to set aside; not an object: argumentsProblem says so
		return args
	}
	n := len(given)
	for name := range HostArguments {
		if schema.Properties[name] == nil {
			delete(given, name)
		}
	}
	if len(given) == n {
		return args
	}
	kept, _ := json.Marshal(given) // raw values, decoded, encode
	return kept
}

// toolSchemas holds the inputSchema of each tool, read from the server's
// tools/list at the first call: the tools are added before serving, and
// never change.
type toolSchemas struct {
	once    sync.Once
	schemas map[string]*jsonschema.Schema
}

// of returns the inputSchema of call's tool, or nil for a tool the server
// does not have, which go-sdk refuses.
func (t *toolSchemas) of(ctx context.Context, next mcp.MethodHandler, call *mcp.CallToolRequest) *jsonschema.Schema {
	if call == nil {
		return nil
	}
	t.once.Do(func() {
		t.schemas = map[string]*jsonschema.Schema{}
		// Not the call's context: were the call cancelled, the list, read
		// once, would be empty for every call after it.
		list, _ := next(context.WithoutCancel(ctx), "tools/list", &mcp.ListToolsRequest{Session: call.Session, Params: &mcp.ListToolsParams{}})
		if list, ok := list.(*mcp.ListToolsResult); ok {
			for _, tool := range list.Tools {
				if schema, ok := tool.InputSchema.(*jsonschema.Schema); ok {
					t.schemas[tool.Name] = schema
				}
			}
		}
	})
	return t.schemas[call.Params.Name]
}

// wireError returns err with its code if JSON-RPC 2.0 (§5.1) or MCP
// (2026-07-28, "Error Codes") has it, else as the server's own failure,
// -32603.
func wireError(method string, err error) *jsonrpc.Error {
	e := Errorf(jsonrpc.CodeInternalError, "%s", Cut(err.Error(), MaxQuote))
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

// argumentsProblem says what is wrong with args for the keywords of the
// tools' schemas (type, required, properties, additionalProperties false,
// enum), or returns "".
func argumentsProblem(schema *jsonschema.Schema, args json.RawMessage) string {
	if k := kind(args); k != "an object" && k != "null" && k != "nothing" {
		return `arguments must be a JSON object, such as {"name": value}, not ` + k
	}
	var given map[string]json.RawMessage
	_ = json.Unmarshal(args, &given) // go-sdk has decoded it
	var problems, unknown []string
	for _, name := range schema.Required {
		if _, ok := given[name]; !ok {
			problems = append(problems, fmt.Sprintf("missing required argument %q", name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(given)) {
		if schema.Properties[name] == nil {
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if unknown != nil { // "expresion" for "expression" is both
		problems = append(problems, "unknown argument "+Cut(strings.Join(unknown, ", "), MaxQuote)+
			"; use only the arguments in the tool's inputSchema")
	}
	if problems != nil {
		return strings.Join(problems, "; ")
	}
	for _, name := range slices.Sorted(maps.Keys(given)) {
		value, prop := given[name], schema.Properties[name]
		want := schemaKind(prop.Type)
		switch {
		case want != "" && kind(value) != want:
			return fmt.Sprintf("argument %q must be %s, not %s", name, want, kind(value))
		case prop.Enum != nil && !slices.ContainsFunc(prop.Enum, func(v any) bool { b, _ := json.Marshal(v); return string(b) == string(value) }):
			var text string
			shown := Cut(string(value), MaxQuote)
			if json.Unmarshal(value, &text) == nil {
				shown = strconv.Quote(Cut(text, MaxQuote))
			}
			return fmt.Sprintf("argument %q is %s; it must be one of %q", name, shown, prop.Enum)
		}
	}
	return ""
}
