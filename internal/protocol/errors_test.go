package protocol

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWireError(t *testing.T) {
	tests := []struct {
		err  error
		code int64
	}{
		{&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "x"}, jsonrpc.CodeInvalidParams},
		{fmt.Errorf("wrapped: %w", &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound}), jsonrpc.CodeMethodNotFound},
		{&jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion}, mcp.CodeUnsupportedProtocolVersion},
		{&jsonrpc.Error{Code: mcp.CodeHeaderMismatch}, mcp.CodeHeaderMismatch},
		{&jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities}, mcp.CodeMissingRequiredClientCapabilities},
		// go-sdk#976: code 0.
		{errors.New(`duplicate "initialize" received`), jsonrpc.CodeInvalidRequest},
		{errors.New(`method "tools/list" is invalid during session initialization`), jsonrpc.CodeInvalidRequest},
		{errors.New("output does not match the outputSchema"), jsonrpc.CodeInternalError},
		{&jsonrpc.Error{Code: 0, Message: "zero"}, jsonrpc.CodeInternalError},
		{&jsonrpc.Error{Code: -32001, Message: "an implementation's own"}, jsonrpc.CodeInternalError},
	}
	for _, tt := range tests {
		got := WireError(tt.err)
		assert.Equal(t, tt.code, got.Code, "WireError(%v).Code", tt.err)
		assert.True(t, strings.HasPrefix(got.Message, tt.err.Error()), "WireError(%v) keeps the message: %s", tt.err, got.Message)
	}
}

func TestErrorResponse(t *testing.T) {
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"boom"}}`,
		string(ErrorResponse(nil, errors.New("boom"))))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}`,
		string(ErrorResponse([]byte(`"x"`), &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no"})))
}

// TestMiddleware checks the policy on what a handler returns: a panic is
// -32603 with the stack logged, and an error without a code gets one.
func TestMiddleware(t *testing.T) {
	var logs bytes.Buffer
	mw := Middleware(slog.New(slog.NewTextHandler(&logs, nil)))

	panics := mw(func(context.Context, string, mcp.Request) (mcp.Result, error) { panic("something went wrong") })
	res, err := panics(context.Background(), "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "p"}})
	assert.Nil(t, res)
	var e *jsonrpc.Error
	require.True(t, errors.As(err, &e), "a panic: want a *jsonrpc.Error, got %v", err)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), e.Code)
	assert.Equal(t, "internal error", e.Message, "the panic value stays in the log")
	assert.Contains(t, logs.String(), "something went wrong")
	assert.Contains(t, logs.String(), "goroutine", "the stack is logged")

	fails := mw(func(context.Context, string, mcp.Request) (mcp.Result, error) { return nil, errors.New("no code") })
	_, err = fails(context.Background(), "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "f"}})
	require.True(t, errors.As(err, &e))
	assert.Equal(t, int64(jsonrpc.CodeInternalError), e.Code)
}
