package protocol

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// modernMeta is the _meta of a 2026-07-28 request.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestServed(t *testing.T) {
	tools := Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})
	assert.ElementsMatch(t, []string{"initialize", "ping", "server/discover", "notifications/initialized",
		"notifications/cancelled", "notifications/progress", "tools/list", "tools/call"}, keys(tools))

	all := Served(&mcp.ServerCapabilities{
		Tools:       &mcp.ToolCapabilities{ListChanged: true},
		Resources:   &mcp.ResourceCapabilities{Subscribe: true},
		Prompts:     &mcp.PromptCapabilities{},
		Completions: &mcp.CompletionCapabilities{},
	})
	assert.Len(t, all, len(methods)-1, "every method but logging/setLevel")
	assert.NotContains(t, all, "logging/setLevel")
}

func keys(ms Methods) []string {
	var names []string
	for name := range ms {
		names = append(names, name)
	}
	return names
}

// TestCheck is a table of requests and the era Check puts each in, or the
// code and message it refuses each with.
func TestCheck(t *testing.T) {
	ms := Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})
	tests := []struct {
		name, method, params, header string
		era                          Era
		code                         int64 // 0: served
		msg                          string
	}{
		{"legacy call", "tools/call", `{"name":"echo","arguments":{}}`, "", Legacy, 0, ""},
		{"legacy list", "tools/list", ``, "", Legacy, 0, ""},
		{"initialize", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, "", Legacy, 0, ""},
		{"modern call", "tools/call", `{"name":"echo",` + modernMeta + `}`, "", Modern, 0, ""},
		{"modern call over HTTP", "tools/call", `{"name":"echo",` + modernMeta + `}`, "2026-07-28", Modern, 0, ""},
		{"discover", "server/discover", `{` + modernMeta + `}`, "", Modern, 0, ""},

		{"unknown method", "no/such", ``, "", Legacy, jsonrpc.CodeMethodNotFound, `method not found: "no/such"`},
		{"method of a capability not advertised", "resources/list", ``, "", Legacy, jsonrpc.CodeMethodNotFound,
			"this server does not advertise the resources capability"},
		{"modern ping", "ping", `{` + modernMeta + `}`, "", Modern, jsonrpc.CodeMethodNotFound, `"ping" is not part of MCP 2026-07-28`},
		{"modern initialize", "initialize", `{` + modernMeta + `}`, "", Modern, jsonrpc.CodeMethodNotFound, "no initialize handshake"},
		{"discover without _meta", "server/discover", `{}`, "", Modern, jsonrpc.CodeInvalidParams, "must carry the protocol version"},
		{"header without _meta", "tools/list", `{}`, "2026-07-28", Modern, jsonrpc.CodeInvalidParams, "must carry the protocol version"},
		{"version not a string", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":2026}}`, "", Modern,
			jsonrpc.CodeInvalidParams, "must carry the protocol version"},
		{"future version", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`,
			"", Modern, mcp.CodeUnsupportedProtocolVersion, `unsupported protocol version "2099-01-01"`},
		{"version key written with an escape", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersio\u006e":"1999-01-01"}}`,
			"", Modern, mcp.CodeUnsupportedProtocolVersion, `unsupported protocol version "1999-01-01"`},
		{"_meta written with an escape", "tools/list", `{"\u005fmeta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01"}}`,
			"", Modern, mcp.CodeUnsupportedProtocolVersion, `unsupported protocol version "1999-01-01"`},
		{"past version", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}`,
			"", Modern, mcp.CodeUnsupportedProtocolVersion, `unsupported protocol version "1900-01-01"`},
		{"legacy version in _meta", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`,
			"", Modern, mcp.CodeUnsupportedProtocolVersion, "2025-11-25 is served after an initialize handshake"},
		{"unsupported version before unknown method", "ping", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}`,
			"", Modern, mcp.CodeUnsupportedProtocolVersion, `unsupported protocol version "2099-01-01"`},
		{"header differs from _meta", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}`,
			"2026-07-28", Modern, mcp.CodeHeaderMismatch, `header "2026-07-28" differs from "2099-01-01"`},

		{"call without params", "tools/call", ``, "", Legacy, jsonrpc.CodeInvalidParams, "tools/call needs params, a JSON object"},
		{"call with null params", "tools/call", `null`, "", Legacy, jsonrpc.CodeInvalidParams, "tools/call needs params"},
		{"params an array", "ping", `[]`, "", Legacy, jsonrpc.CodeInvalidParams, "ping params must be a JSON object, not an array"},
		{"name a number", "tools/call", `{"name":5}`, "", Legacy, jsonrpc.CodeInvalidParams, `tools/call params: "name" must be a string, not a number`},
		{"cursor a number", "tools/list", `{"cursor":5}`, "", Legacy, jsonrpc.CodeInvalidParams, `"cursor" must be a string, not a number`},
		{"clientInfo.name a number", "initialize", `{"clientInfo":{"name":7}}`, "", Legacy, jsonrpc.CodeInvalidParams,
			`initialize params: "clientInfo.name" must be a string, not a number`},
		{"modern params checked too", "tools/call", `{"name":[],` + modernMeta + `}`, "", Modern, jsonrpc.CodeInvalidParams,
			`"name" must be a string, not an array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := &Message{ID: json.RawMessage(`1`), Method: tt.method}
			if tt.params != "" {
				msg.Params = json.RawMessage(tt.params)
			}
			era, err := ms.Check(msg, tt.header)
			assert.Equal(t, tt.era, era, "Check(%s %s, header %q): era", tt.method, tt.params, tt.header)
			if tt.code == 0 {
				assert.NoError(t, err, "Check(%s %s, header %q)", tt.method, tt.params, tt.header)
				return
			}
			var e *jsonrpc.Error
			require.True(t, errors.As(err, &e), "Check(%s %s) = %v, want a *jsonrpc.Error", tt.method, tt.params, err)
			assert.Equal(t, tt.code, e.Code, "Check(%s %s): code of %q", tt.method, tt.params, e.Message)
			assert.Contains(t, e.Message, tt.msg, "Check(%s %s)", tt.method, tt.params)
		})
	}
}

// TestUnsupportedVersionData checks the data of -32022: the versions served
// and the one requested (MCP 2026-07-28, "Versioning").
func TestUnsupportedVersionData(t *testing.T) {
	var e *jsonrpc.Error
	require.True(t, errors.As(unsupported("v999.0.0"), &e))
	assert.Equal(t, int64(-32022), e.Code)
	assert.JSONEq(t, `{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"v999.0.0"}`, string(e.Data))
}
