package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"mcp-hello-tools/internal/protocol"
	"mcp-hello-tools/tools"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolNames returns the names of the tools tools.Add registers.
func toolNames() []string {
	return tools.Add(mcp.NewServer(&mcp.Implementation{Name: "names", Version: "1"}, nil), fixedNow)
}

// fixedNow is the clock of the in-memory tests, the transcripts and the
// README's examples: Monday 30 November 2026, 04:12:05 UTC.
func fixedNow() time.Time { return time.Date(2026, 11, 30, 4, 12, 5, 0, time.UTC) }

// connectInMemory connects a go-sdk client to a fresh server over an
// in-memory transport, negotiating protocolVersion.
func connectInMemory(t testing.TB, protocolVersion string) *mcp.ClientSession {
	t.Helper()
	server := newHardenedServer(fixedNow, slog.New(slog.NewTextHandler(io.Discard, nil)))
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	ctx := context.Background()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	require.NoError(t, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0.0.1"}, nil)
	session, err := client.Connect(ctx, clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = session.Close()
		_ = serverSession.Wait()
	})
	return session
}

// TestProtocolVersions connects a go-sdk client asking for each revision
// the server speaks: the four of the initialize handshake get the version
// asked for, and 2026-07-28 is served without a handshake (the client
// calls server/discover instead); each advertises capabilities, from
// server.go.
func TestProtocolVersions(t *testing.T) {
	assert.Equal(t, []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}, mcp.SupportedProtocolVersions())
	for _, v := range mcp.SupportedProtocolVersions() {
		t.Run(v, func(t *testing.T) {
			res := connectInMemory(t, v).InitializeResult()
			assert.Equal(t, v, res.ProtocolVersion, "the server answers with the version asked for")
			assert.Equal(t, name, res.ServerInfo.Name)
			assert.Equal(t, version, res.ServerInfo.Version)
			assert.JSONEq(t, mustJSON(t, capabilities), mustJSON(t, res.Capabilities),
				"the server advertises the capabilities in server.go, and only those: list there a feature you add")
		})
	}
}

// TestAdvertisedCapabilitiesServed checks that the capabilities the server
// advertises are the ones the transports serve the methods of: go-sdk
// infers a capability when a feature is added (s.AddResource advertises
// resources), but the transports answer the methods of capabilities in
// server.go only, and refuse the rest with -32601.
func TestAdvertisedCapabilitiesServed(t *testing.T) {
	advertised := connectInMemory(t, "2025-11-25").InitializeResult().Capabilities
	assert.JSONEq(t, mustJSON(t, capabilities), mustJSON(t, advertised),
		"the server advertises capabilities that capabilities, in server.go, does not list: "+
			"the transports would refuse their methods with -32601; list them there")
	// A method is served if it is of the lifecycle, which every server
	// serves, or of a capability advertised; the methods of each
	// capability are named after it.
	lifecycle := map[string]bool{"initialize": true, "notifications/initialized": true, "ping": true,
		"notifications/cancelled": true, "server/discover": true}
	capability := map[string]bool{"tools": advertised.Tools != nil, "resources": advertised.Resources != nil,
		"prompts": advertised.Prompts != nil, "completion": advertised.Completions != nil,
		"logging": advertised.Logging != nil, //nolint:staticcheck // deprecated in 2026-07-28 (SEP-2577), not gone
	}
	served := protocol.Served(advertised)
	require.NotEmpty(t, served)
	for method, ok := range served {
		feature, _, _ := strings.Cut(method, "/")
		want, known := capability[feature]
		if lifecycle[method] {
			want, known = true, true
		}
		require.True(t, known, "%s is of no capability this test knows: add it to the table above", method)
		assert.Equal(t, want, ok, "protocol.Served(capabilities)[%q]", method)
	}
	assert.True(t, served["tools/call"], "a server with tools serves tools/call")
}

// allowedSchemaKeywords are the JSON Schema keywords an input schema may use.
// VS Code Copilot warns on others (default, pattern, maximum), and Gemini
// rejects an array-valued "type".
var allowedSchemaKeywords = map[string]bool{
	"type": true, "properties": true, "required": true,
	"description": true, "enum": true, "additionalProperties": true,
}

// hostDescriptionCut is where Claude Code cuts a tool's description when
// it sends the definitions at once (CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH,
// 4,096 by default, as the probe found: docs/model.md's table): a model
// reads no further.
const hostDescriptionCut = 4096

func TestToolsListContract(t *testing.T) {
	session := connectInMemory(t, "2025-11-25")
	res, err := session.ListTools(context.Background(), nil)
	require.NoError(t, err)

	want := map[string]struct {
		required     []string
		optional     []string
		outputSchema bool
	}{
		"echo":          {required: []string{"message"}},
		"get_timestamp": {optional: []string{"format", "timezone"}, outputSchema: true},
		"calculate":     {required: []string{"expression"}, outputSchema: true},
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	require.ElementsMatch(t, toolNames(), names, "tools/list")
	for _, tool := range res.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			// A tool not in the table, such as an exercise's, is held to
			// the rules every tool keeps, its arguments read from its schema.
			w, ok := want[tool.Name]
			if !ok {
				w.required, w.optional = schemaArguments(t, tool.InputSchema)
				w.outputSchema = tool.OutputSchema != nil
			}
			assert.NotEmpty(t, tool.Title, "title")
			assert.NotEmpty(t, tool.Description, "description")
			assert.LessOrEqual(t, utf8.RuneCountInString(tool.Description), hostDescriptionCut,
				"the description is cut by Claude Code past %d characters", hostDescriptionCut)
			for _, p := range w.optional {
				assert.Contains(t, tool.Description, p, "the description names the optional parameter")
			}
			if len(w.optional) > 0 {
				assert.Contains(t, tool.Description, "default", "the description states the defaults")
			}

			a := tool.Annotations
			require.NotNil(t, a, "annotations")
			assert.True(t, a.ReadOnlyHint, "readOnlyHint")
			assert.True(t, a.IdempotentHint, "idempotentHint")
			require.NotNil(t, a.DestructiveHint, "destructiveHint")
			assert.False(t, *a.DestructiveHint, "destructiveHint")
			require.NotNil(t, a.OpenWorldHint, "openWorldHint")
			assert.False(t, *a.OpenWorldHint, "openWorldHint")

			var in map[string]any
			require.NoError(t, json.Unmarshal([]byte(mustJSON(t, tool.InputSchema)), &in))
			assert.Equal(t, "object", in["type"])
			assert.Equal(t, false, in["additionalProperties"])
			props, ok := in["properties"].(map[string]any)
			require.True(t, ok, "inputSchema.properties is an object: %v", in)
			assert.ElementsMatch(t, append(append([]string{}, w.required...), w.optional...), keys(props))
			if len(w.required) > 0 {
				assert.ElementsMatch(t, w.required, in["required"])
			} else {
				assert.Empty(t, in["required"])
			}
			for k := range in {
				assert.True(t, allowedSchemaKeywords[k], "inputSchema keyword %q", k)
			}
			for p, s := range props {
				for k, v := range s.(map[string]any) {
					assert.True(t, allowedSchemaKeywords[k], "inputSchema.properties.%s keyword %q", p, k)
					if k == "type" {
						assert.IsType(t, "", v, "inputSchema.properties.%s.type is a single type", p)
					}
				}
			}
			assert.Equal(t, w.outputSchema, tool.OutputSchema != nil, "outputSchema present")
		})
	}
}

// schemaArguments returns the names of an input schema's required and
// optional arguments.
func schemaArguments(t *testing.T, schema any) (required, optional []string) {
	var in struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustJSON(t, schema)), &in))
	for p := range in.Properties {
		if !slices.Contains(in.Required, p) {
			optional = append(optional, p)
		}
	}
	return in.Required, optional
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// mustJSON returns v as JSON.
func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestInputErrors checks that every input problem is a tool result with
// isError set and a helpful message (SEP-1303), and that an unknown tool is
// JSON-RPC error -32602.
func TestInputErrors(t *testing.T) {
	session := connectInMemory(t, "2025-11-25")
	tests := []struct {
		name, tool string
		args       any
		want       string // substring of the error text
	}{
		{"echo missing message", "echo", map[string]any{}, `invalid arguments for echo: missing required argument "message"`},
		{"echo null arguments", "echo", nil, `invalid arguments for echo: missing required argument "message"`},
		{"echo arguments not an object", "echo", []int{1}, `invalid arguments for echo: arguments must be a JSON object, such as {"name": value}, not an array`},
		{"echo arguments a string", "echo", "hello", `not a string`},
		{"echo number out of range", "echo", json.RawMessage(`{"message": 1e999}`), `argument "message" must be a string, not a number`},
		{"echo mistyped message", "echo", map[string]any{"message": 42}, `invalid arguments for echo: argument "message" must be a string, not a number`},
		{"echo unknown argument", "echo", map[string]any{"message": "a", "volume": 11}, `invalid arguments for echo: unknown argument "volume"`},
		{"calculate missing expression", "calculate", map[string]any{}, `missing required argument "expression"`},
		{"calculate null expression", "calculate", map[string]any{"expression": nil}, `argument "expression" must be a string, not null`},
		{"calculate mistyped expression", "calculate", map[string]any{"expression": []int{1}}, `argument "expression" must be a string, not an array`},
		{"calculate bad expression", "calculate", map[string]any{"expression": "2 * (3 + )"}, "column 10"},
		{"calculate division by zero", "calculate", map[string]any{"expression": "0/0"}, "division by zero"},
		{"calculate not finite", "calculate", map[string]any{"expression": "2^0.5*1e308*10"}, "finite"},
		{"get_timestamp bad format", "get_timestamp", map[string]any{"format": "rfc822"}, `argument "format" is "rfc822"; it must be one of ["iso8601" "unix" "human"]`},
		{"get_timestamp format with a newline", "get_timestamp", map[string]any{"format": "human\n"}, `argument "format" is "human\n"; it must be one of`},
		{"get_timestamp long format", "get_timestamp", map[string]any{"format": strings.Repeat("x", 100_000)}, `argument "format" is "` + strings.Repeat("x", protocol.MaxQuote) + `…"; it must be one of`},
		{"get_timestamp unknown zone", "get_timestamp", map[string]any{"timezone": "Mars/Olympus"}, "Mars/Olympus"},
		{"get_timestamp Local", "get_timestamp", map[string]any{"timezone": "Local"}, "IANA"},
		{"get_timestamp unknown argument", "get_timestamp", map[string]any{"zone": "UTC"}, `unknown argument "zone"`},
	}
	many := map[string]any{"message": "a"}
	for i := range 10_000 {
		many[fmt.Sprintf("unknown%d", i)] = i
	}
	tests = append(tests, struct {
		name, tool string
		args       any
		want       string
	}{"echo ten thousand unknown arguments", "echo", many, `…; use only the arguments`})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			require.NoError(t, err, "CallTool(%s, %v) is a tool error, not a JSON-RPC error", tt.tool, tt.args)
			assert.True(t, res.IsError, "CallTool(%s, %v).IsError", tt.tool, tt.args)
			require.NotEmpty(t, res.Content)
			text := res.Content[0].(*mcp.TextContent).Text
			assert.Contains(t, text, tt.want, "CallTool(%s, %.200v)", tt.tool, tt.args)
			assert.Less(t, len(text), 1000, "a tool error as long as its input")
		})
	}

	_, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"})
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "unknown tool: want a JSON-RPC error, got %v", err)
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), werr.Code)
}

// TestHostArguments: an argument a host adds to every tool, as Gemini CLI
// adds wait_for_previous, is set aside on every tool, while a misspelled
// argument is still refused, by name. A tool with no valid arguments in the
// table, such as an exercise's, is called with the host's argument alone:
// it may refuse the call, but not for that argument.
func TestHostArguments(t *testing.T) {
	session := connectInMemory(t, "2025-11-25")
	args := map[string]map[string]any{
		"echo":          {"message": "hi"},
		"get_timestamp": {"timezone": "UTC"},
		"calculate":     {"expression": "2^64"},
	}
	list, err := session.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tool := range list.Tools {
		for added := range protocol.HostArguments {
			a, known := args[tool.Name]
			a = maps.Clone(a)
			if a == nil {
				a = map[string]any{}
			}
			a[added] = true
			res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool.Name, Arguments: a})
			require.NoError(t, err)
			if known {
				assert.False(t, res.IsError, "CallTool(%s, %v): %v", tool.Name, a, res.Content)
			} else if res.IsError {
				assert.NotContains(t, res.Content[0].(*mcp.TextContent).Text, added, "CallTool(%s, %v)", tool.Name, a)
			}
		}
	}
	// A name is the same escaped (R11).
	escaped := json.RawMessage(`{"message":"hi","wait\u005ffor_previous":true}`)
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: escaped})
	require.NoError(t, err)
	assert.False(t, res.IsError, "CallTool(echo, %s): %v", escaped, res.Content)
	for tool, misspelled := range map[string]map[string]any{
		"calculate":     {"expresion": "1+1"},
		"get_timestamp": {"tz": "UTC"},
	} {
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: misspelled})
		require.NoError(t, err)
		assert.True(t, res.IsError, "CallTool(%s, %v)", tool, misspelled)
		for name := range misspelled {
			assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, strconv.Quote(name), "CallTool(%s, %v)", tool, misspelled)
		}
	}
}

// TestToolCallLog: each tools/call is logged on one line, with the tool's
// name, cut, and the outcome.
func TestToolCallLog(t *testing.T) {
	var log strings.Builder
	server := newHardenedServer(fixedNow, newLogger(&log))
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	ctx := context.Background()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	require.NoError(t, err)
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, clientTransport, nil)
	require.NoError(t, err)
	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
	require.NoError(t, err)
	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: strings.Repeat("n", 100_000)})
	require.Error(t, err)
	require.NoError(t, session.Close())
	require.NoError(t, serverSession.Wait())
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	require.Len(t, lines, 2, log.String())
	assert.Contains(t, lines[0], "msg=tools/call tool=echo duration=")
	assert.Contains(t, lines[0], "outcome=ok")
	assert.Contains(t, lines[1], "tool="+strings.Repeat("n", protocol.MaxQuote)+"… ")
	assert.Less(t, len(lines[1]), 3*protocol.MaxQuote, "the log quotes the name whole")
}

// TestRepeatedNames: a message with a name twice in one object is refused
// with -32600 on both transports, before any decoder reads it its own way.
// With "_meta" twice, the check of params in Methods.Admit, which keeps
// the first, saw a request of 2026-07-28, and go-sdk, which keeps the last
// (null), one of no revision, and answered it with code 0 on stdio.
func TestRepeatedNames(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{}},"_meta":null}}`
	want := `"_meta" appears twice in one object`

	replies, _ := start(t, serverCommand(t)).converse(t, body)
	require.Len(t, replies, 1, "stdio: replies")
	code, msg := errorOf(t, replies[0])
	assert.EqualValues(t, jsonrpc.CodeInvalidRequest, code, "stdio: %s", replies[0])
	assert.Contains(t, msg, want, "stdio")
	assert.Contains(t, replies[0], `"id":1`, "stdio")

	endpoint, _, _ := startHTTP(t)
	status, reply, _, err := post(endpoint, body, map[string]string{"MCP-Protocol-Version": protocol.ModernVersion, "Mcp-Method": "tools/list"})
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, status, "HTTP: %s", reply)
	code, msg = errorOf(t, reply)
	assert.EqualValues(t, jsonrpc.CodeInvalidRequest, code, "HTTP: %s", reply)
	assert.Contains(t, msg, want, "HTTP")
}
