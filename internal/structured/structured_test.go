package structured

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// number is a tool's output with a number that float64 cannot hold.
type number struct {
	Value json.Number `json:"value" jsonschema:"A number."`
}

// handler answers 2^53 + 1, whose float64 is 2^53.
func handler(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, number, error) {
	return nil, number{Value: "9007199254740993"}, nil
}

// TestAddTool feeds the same output to mcp.AddTool and to AddTool, and
// reads what each sends. When go-sdk#1201 is fixed, the first assertion
// fails: then delete this package and call mcp.AddTool.
func TestAddTool(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "sdk", OutputSchema: outputSchema()}, handler)
	AddTool(s, &mcp.Tool{Name: "structured", OutputSchema: outputSchema()}, handler)

	sdk := call(t, s, "sdk")
	assert.Contains(t, sdk, `"structuredContent":{"value":9007199254740992}`,
		"go-sdk now sends the digits it is given (go-sdk#1201): delete internal/structured and call mcp.AddTool")

	ours := call(t, s, "structured")
	assert.Contains(t, ours, `"structuredContent":{"value":9007199254740993}`)
	assert.Contains(t, ours, `"text":"{\"value\":9007199254740993}"`)
}

// TestAddToolInvalid checks that AddTool still validates the output, as
// go-sdk does: one that its schema refuses is an internal error.
func TestAddToolInvalid(t *testing.T) {
	type word struct {
		Value string `json:"value"`
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	AddTool(s, &mcp.Tool{Name: "wrong", OutputSchema: outputSchema()}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, word, error) {
		return nil, word{Value: "nine"}, nil // a string, where the schema says number
	})
	assert.Contains(t, call(t, s, "wrong"), `"error":{"code":-32603,"message":"validating tool output: `)
}

// outputSchema returns number's schema: inferred, a json.Number would be
// a string.
func outputSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"value": {Type: "number"}}}
}

// call returns the line s answers a tools/call of the named tool with.
func call(t *testing.T, s *mcp.Server, name string) string {
	return rawLines(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+name+`","arguments":{}}}`)
}

// rawLines serves s over pipes, sends it a handshake and request, and
// returns the line it answers request with, as it went over the wire.
func rawLines(t *testing.T, s *mcp.Server, request string) string {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW}) }()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		_ = outR.Close()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("server.Run = %v, want context.Canceled", err)
		}
	})
	replies := bufio.NewReader(outR)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		request,
	} {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
	}
	_, err := replies.ReadString('\n') // initialize's
	require.NoError(t, err)
	reply, err := replies.ReadString('\n')
	require.NoError(t, err)
	return reply
}
