package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEcho is a table of messages, at and past MaxEchoLength characters,
// and what the handler answers: the message, or an error that gives the
// limit and the length without quoting the message back.
func TestEcho(t *testing.T) {
	tests := []struct {
		name    string
		message string
		err     string // the error's text; "" when the message comes back
	}{
		{"limit in one-byte characters", strings.Repeat("x", MaxEchoLength), ""},
		// Twice as many bytes as the limit, and still within it.
		{"limit in two-byte characters", strings.Repeat("é", MaxEchoLength), ""},
		{"limit in four-byte characters", strings.Repeat("🎉", MaxEchoLength), ""},
		{"one over in one-byte characters", strings.Repeat("x", MaxEchoLength+1),
			"message is 1000001 characters long; echo sends back at most 1000000"},
		{"one over in four-byte characters", strings.Repeat("🎉", MaxEchoLength+1),
			"message is 1000001 characters long; echo sends back at most 1000000"},
		{"twice over", strings.Repeat("ab", MaxEchoLength),
			"message is 2000000 characters long; echo sends back at most 1000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, out, err := echo(context.Background(), nil, echoInput{Message: tt.message})
			assert.Nil(t, out, "echo(%s): output", tt.name)
			if tt.err != "" {
				require.EqualError(t, err, tt.err, "echo(%s)", tt.name)
				assert.Nil(t, res, "echo(%s): result with an error", tt.name)
				return
			}
			require.NoError(t, err, "echo(%s)", tt.name)
			require.Len(t, res.Content, 1, "echo(%s): content", tt.name)
			got := timestampText(res)
			assert.True(t, got == tt.message, "echo(%s): text is %d bytes, want the %d of the message", tt.name, len(got), len(tt.message))
		})
	}
}

// TestEchoTool calls echo through a client, so the arguments and the result
// cross JSON: what comes back is Unicode text, and a message that is too
// long is a result with isError set, not a JSON-RPC error.
func TestEchoTool(t *testing.T) {
	cs := connectTimestamp(t, time.Date(2026, 11, 30, 4, 12, 5, 0, time.UTC))
	tests := []struct {
		name    string
		args    any    // the arguments object, as sent
		want    string // the text of the result
		isError bool
	}{
		{"ascii", map[string]any{"message": "Hello, MCP!"}, "Hello, MCP!", false},
		{"empty", map[string]any{"message": ""}, "", false},
		{"unicode", map[string]any{"message": "héllo\n\"wörld\" \u2028 🎉"}, "héllo\n\"wörld\" \u2028 🎉", false},
		// JSON strings carry Unicode text: bytes that are not UTF-8 do not
		// survive the trip, though the description once promised they would.
		{"invalid utf-8", map[string]any{"message": "a\xffb"}, "a\uFFFDb", false},
		{"lone surrogate escape", json.RawMessage(`{"message": "a\ud800b"}`), "a\uFFFDb", false},
		{"too long", map[string]any{"message": strings.Repeat("x", MaxEchoLength+1)},
			"message is 1000001 characters long; echo sends back at most 1000000", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: tt.args})
			require.NoError(t, err, "echo %s: want a result, not a JSON-RPC error", tt.name)
			assert.Equal(t, tt.isError, res.IsError, "echo %s: isError", tt.name)
			assert.Nil(t, res.StructuredContent, "echo %s: structuredContent", tt.name)
			require.Len(t, res.Content, 1, "echo %s: content", tt.name)
			assert.Equal(t, tt.want, timestampText(res), "echo %s: text", tt.name)
		})
	}
}

// TestEchoDescriptions checks that the tool's description states
// MaxEchoLength, and that the argument's promises Unicode text, not bytes.
func TestEchoDescriptions(t *testing.T) {
	cs := connectTimestamp(t, time.Date(2026, 11, 30, 4, 12, 5, 0, time.UTC))
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	i := slices.IndexFunc(list.Tools, func(tool *mcp.Tool) bool { return tool.Name == "echo" })
	require.GreaterOrEqual(t, i, 0, "tools/list has no echo")
	tool := list.Tools[i]
	limit := strconv.Itoa(MaxEchoLength)
	assert.Contains(t, tool.Description, "at most "+limit+" characters", "echo description")

	b, err := json.Marshal(tool.InputSchema)
	require.NoError(t, err)
	var schema jsonschema.Schema
	require.NoError(t, json.Unmarshal(b, &schema))
	message := schema.Properties["message"]
	require.NotNil(t, message, "echo inputSchema: no message in %s", b)
	assert.Contains(t, message.Description, "U+FFFD", "echo message description")
	assert.NotContains(t, message.Description, "byte for byte", "echo message description")
}
