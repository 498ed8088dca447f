package protocol

// The tests of middleware.go: a handler's panic, errors' codes, the
// arguments' words, the arguments hosts add.

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMiddleware: a panic is -32603 with the stack logged; an error without
// a code of the specifications gets -32603; a long message is cut.
func TestMiddleware(t *testing.T) {
	var logs strings.Builder
	mw := Middleware(slog.New(slog.NewTextHandler(&logs, nil)))
	handle := func(err error, panics bool) (mcp.Result, error) {
		method := "tools/call"
		if strings.Contains(err.Error(), "invalid params") {
			method = "tools/list"
		}
		return mw(func(context.Context, string, mcp.Request) (mcp.Result, error) {
			if panics {
				panic("something went wrong")
			}
			return nil, err
		})(context.Background(), method, &mcp.ListToolsRequest{Params: &mcp.ListToolsParams{}})
	}
	tests := []struct {
		err    error
		panics bool
		code   int64
		msg    string
	}{
		{errors.New("a panic"), true, -32603, "internal error"},
		{errors.New("no code"), false, -32603, "no code"},
		{&jsonrpc.Error{Code: 0, Message: "zero"}, false, -32603, "zero"},
		{&jsonrpc.Error{Code: -32001, Message: "an implementation's own"}, false, -32603, "an implementation's own"},
		{&jsonrpc.Error{Code: -32022, Message: "version"}, false, -32022, "version"},
		{errors.New(strings.Repeat("x", 100_000)), false, -32603, strings.Repeat("x", 200) + "…"},
		{&jsonrpc.Error{Code: -32602, Message: `unknown tool "` + strings.Repeat("x", 100_000) + `"`}, false, -32602, `unknown tool "xxx`},
		{&jsonrpc.Error{Code: -32602, Message: "invalid params"}, false, -32602, "the cursor is not one this server gave"},
	}
	for _, tt := range tests {
		_, err := handle(tt.err, tt.panics)
		var e *jsonrpc.Error
		require.ErrorAs(t, err, &e, "%v", tt.err)
		assert.Equal(t, tt.code, e.Code, "%.100v", tt.err)
		assert.Contains(t, e.Message, tt.msg, "%.100v", tt.err)
		assert.LessOrEqual(t, len(e.Message), MaxQuote+len("…"), "%.100v: a message as long as its input", tt.err)
	}
	assert.Contains(t, logs.String(), "something went wrong")
	assert.Contains(t, logs.String(), "goroutine", "the stack is logged")
}

// TestArgumentsProblem is a table of arguments and what is said of them
// for a schema like the tools'.
func TestArgumentsProblem(t *testing.T) {
	schema := &jsonschema.Schema{Type: "object", Required: []string{"expression"}, Properties: map[string]*jsonschema.Schema{
		"expression": {Type: "string"}, "format": {Type: "string", Enum: []any{"iso8601", "unix"}}, "n": {Type: "integer"}, "any": {}}}
	tests := []struct{ args, want string }{
		{`{"expression":"1"}`, ""},
		{`{"expression":"1","n":2}`, ""},
		{`{"expression":"1","any":[1]}`, ""},                                          // a property of no type takes any
		{`{"expression":"1","n":"2"}`, `argument "n" must be a number, not a string`}, // "integer" is a number
		{``, `missing required argument "expression"`},
		{`null`, `missing required argument "expression"`},
		{`[1]`, `arguments must be a JSON object, such as {"name": value}, not an array`},
		{`{"expression":null}`, `argument "expression" must be a string, not null`},
		{`{"expression":[1]}`, `argument "expression" must be a string, not an array`},
		{`{"expression":"1","format":"rfc822"}`, `argument "format" is "rfc822"; it must be one of ["iso8601" "unix"]`},
		{`{"expression":"1","format":"` + strings.Repeat("x", 1000) + `"}`, `argument "format" is "xxxxxxxx`},
		{`{"expression":"1","volume":11,"zone":1}`, `unknown argument "volume", "zone"; use only the arguments in the tool's inputSchema`},
	}
	for _, tt := range tests {
		got := argumentsProblem(schema, json.RawMessage(tt.args))
		if tt.want == "" {
			assert.Empty(t, got, "argumentsProblem(%s)", tt.args)
			continue
		}
		assert.Contains(t, got, tt.want, "argumentsProblem(%.80s)", tt.args)
		assert.Less(t, len(got), 2*MaxQuote, "argumentsProblem(%.80s)", tt.args)
	}
}

// TestWithoutHostArguments is a table of arguments, and what is left of
// them for a tool whose inputSchema does not declare HostArguments, and
// for one that does.
func TestWithoutHostArguments(t *testing.T) {
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"message": {Type: "string"}}}
	declares := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"message": {Type: "string"}, "wait_for_previous": {Type: "boolean"}}}
	tests := []struct{ args, want string }{
		{`{"message":"hi"}`, `{"message":"hi"}`},
		{`{"message":"hi","wait_for_previous":true}`, `{"message":"hi"}`},
		{`{"message":"hi","wait\u005ffor_previous":true}`, `{"message":"hi"}`}, // names compare unescaped
		{`{"message":"wait_for_previous"}`, `{"message":"wait_for_previous"}`},
		{`{"message":"\n"}`, `{"message":"\n"}`},
		{`[1]`, `[1]`},
	}
	for _, tt := range tests {
		got := withoutHostArguments(schema, json.RawMessage(tt.args))
		assert.JSONEq(t, tt.want, string(got), "withoutHostArguments(%s)", tt.args)
		got = withoutHostArguments(declares, json.RawMessage(tt.args))
		assert.JSONEq(t, tt.args, string(got), "withoutHostArguments(%s) for a tool that declares them", tt.args)
	}
}

// await fails the test unless ch is closed within failAfter.
func await(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(failAfter):
		t.Fatalf("%s did not happen within %v", what, failAfter)
	}
}

// TestSchemasOutliveFirstCall: the tools' inputSchemas, read once at the
// first call, are read under a context the call's cancellation cannot
// end: a first call cancelled while they are read leaves them to the calls
// after it, which set a host's argument aside from them.
func TestSchemasOutliveFirstCall(t *testing.T) {
	listing, listed := make(chan struct{}), make(chan struct{})
	var reached json.RawMessage // the arguments the last call reached the tool with
	next := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" {
			reached = req.(*mcp.CallToolRequest).Params.Arguments
			return &mcp.CallToolResult{}, nil
		}
		close(listing) // tools/list is called once
		// On the first call's goroutine, where t.Fatal must not be called:
		select {
		case <-listed:
		case <-time.After(failAfter):
			t.Error("the first call was not cancelled")
		}
		if ctx.Err() != nil {
			return nil, ctx.Err() // as go-sdk's handler would
		}
		schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"message": {Type: "string"}}}
		return &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "echo", InputSchema: schema}}}, nil
	}
	handle := Middleware(slog.New(slog.DiscardHandler))(next)
	call := func(ctx context.Context) {
		args := json.RawMessage(`{"message":"hi","wait_for_previous":true}`)
		_, err := handle(ctx, "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "echo", Arguments: args}})
		assert.NoError(t, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{})
	go func() {
		defer close(first)
		call(ctx)
	}()
	await(t, listing, "the first call's read of the schemas")
	cancel()
	close(listed)
	await(t, first, "the first call's return")
	call(context.Background())
	assert.JSONEq(t, `{"message":"hi"}`, string(reached), "the second call reached the tool with a host's argument: it had no schema")
}
