package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStandardErrors(t *testing.T) {
	tests := []struct {
		method string
		err    error
		code   int64
	}{
		{"tools/call", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `unknown tool "x"`}, jsonrpc.CodeInvalidParams},
		{"tools/call", errors.New("validating tool output: …"), jsonrpc.CodeInternalError},
		{"tools/call", context.Canceled, jsonrpc.CodeInternalError},
		{"tools/call", &jsonrpc.Error{Code: -32042, Message: "URL elicitation required"}, jsonrpc.CodeInternalError},
		{"initialize", errors.New(`duplicate "initialize" received`), jsonrpc.CodeInvalidRequest},
	}
	for _, tt := range tests {
		handler := standardErrors(func(context.Context, string, mcp.Request) (mcp.Result, error) { return nil, tt.err })
		_, err := handler(context.Background(), tt.method, nil)
		var coded *jsonrpc.Error
		require.ErrorAs(t, err, &coded, "standardErrors(%s, %q)", tt.method, tt.err)
		assert.Equal(t, tt.code, coded.Code, "standardErrors(%s, %q) code", tt.method, tt.err)
		assert.Equal(t, tt.err.Error(), coded.Message, "standardErrors(%s, %q) message", tt.method, tt.err)
	}
}

func TestRecoverPanics(t *testing.T) {
	var logs bytes.Buffer
	handler := recoverPanics(slog.New(slog.NewTextHandler(&logs, nil)))(
		func(context.Context, string, mcp.Request) (mcp.Result, error) { panic("boom") })
	res, err := handler(context.Background(), "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "crash"}})
	assert.Nil(t, res)
	assert.Equal(t, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}, err)
	assert.Contains(t, logs.String(), `msg="handler panicked" method=tools/call panic=boom`)
	assert.Contains(t, logs.String(), "tool=crash")
	assert.Contains(t, logs.String(), "TestRecoverPanics", "the stack is logged")
}
