package stdio

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
)

// TestWireError: the errors go-sdk v1.8.0 raises, as it words them, go out
// with a standard code and, for params, a message that says what valid
// params look like.
func TestWireError(t *testing.T) {
	const (
		callShape = `an object with "name" (the tool to call) and optional "arguments" (an object)`
		initShape = `an object with "protocolVersion" (a string such as "2025-11-25"), "capabilities" and "clientInfo"`
	)
	tests := []struct {
		name    string
		method  string
		err     error
		code    int64
		message string
	}{
		{"method not found", "no/such", &jsonrpc.Error{Code: -32601, Message: `method not found: "no/such"`},
			-32601, `method not found: "no/such"`},
		{"before initialize", "tools/list", errorf(`method "tools/list" is invalid during session initialization`),
			-32600, `method "tools/list" is invalid during session initialization`},
		{"params absent", "tools/call", &jsonrpc.Error{Code: -32600, Message: `invalid request: missing required "params"`},
			-32602, "invalid params: tools/call params are missing; they must be " + callShape},
		{"params null", "tools/call", &jsonrpc.Error{Code: -32600, Message: `handling 'tools/call': invalid request: missing required "params"`},
			-32602, "invalid params: tools/call params must be " + callShape + ", not null"},
		{"params a string", "tools/call", &jsonrpc.Error{Code: -32602,
			Message: `handling 'tools/call': invalid params: unmarshaling "\"echo\"" into a *mcp.CallToolParamsRaw: json: cannot unmarshal …`},
			-32602, "invalid params: tools/call params must be " + callShape + ", not a string"},
		{"params an array", "tools/call", &jsonrpc.Error{Code: -32602,
			Message: `handling 'tools/call': invalid params: unmarshaling "[\"echo\"]" into a *mcp.CallToolParamsRaw: json: …`},
			-32602, "invalid params: tools/call params must be " + callShape + ", not an array"},
		{"params an object of the wrong shape", "tools/call", &jsonrpc.Error{Code: -32602,
			Message: `handling 'tools/call': invalid params: unmarshaling "{\"name\":7}" into a *mcp.CallToolParamsRaw: json: …`},
			-32602, "invalid params: tools/call params must be " + callShape},
		{"no tool name", "tools/call", &jsonrpc.Error{Code: -32602, Message: `unknown tool ""`},
			-32602, `invalid params: tools/call params must name a tool: "name" is missing or empty`},
		{"unknown tool", "tools/call", &jsonrpc.Error{Code: -32602, Message: `unknown tool "x"`},
			-32602, `unknown tool "x"`},
		{"initialize params null", "initialize", errorf(`handling 'initialize': missing required "params"`),
			-32602, "invalid params: initialize params must be " + initShape + ", not null"},
		{"initialize params of the wrong shape", "initialize",
			errorf(`handling 'initialize': unmarshaling "{\"protocolVersion\":2025}" into a *mcp.initializeParamsV2: json: …`),
			-32602, "invalid params: initialize params must be " + initShape},
		{"ping params a number", "ping", &jsonrpc.Error{Code: -32602,
			Message: `handling 'ping': invalid params: unmarshaling "3" into a *mcp.PingParams: json: …`},
			-32602, `invalid params: ping params must be an object (or no params at all), not a number`},
		{"params of a method with no shape listed", "resources/read", &jsonrpc.Error{Code: -32600, Message: `invalid request: missing required "params"`},
			-32602, "invalid params: resources/read params are missing; they must be a JSON object"},
		{"unsupported protocol version", "tools/list", &jsonrpc.Error{Code: codeUnsupportedProtocolVersion, Message: "unsupported protocol version"},
			-32602, "unsupported protocol version"},
		{"MCP extension code", "tools/list", &jsonrpc.Error{Code: -32004, Message: "server is closing"},
			-32603, "server is closing"},
		{"plain error", "tools/call", errorf("something else"),
			-32603, "something else"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wireError(tt.err, tt.method)
			assert.Equal(t, tt.code, got.Code, "wireError(%q, %q).Code", tt.err, tt.method)
			assert.Equal(t, tt.message, got.Message, "wireError(%q, %q).Message", tt.err, tt.method)
		})
	}
}

// TestWireErrorKeepsData: an error's data goes out with it.
func TestWireErrorKeepsData(t *testing.T) {
	data := []byte(`{"supported":["2025-11-25"]}`)
	got := wireError(&jsonrpc.Error{Code: codeUnsupportedProtocolVersion, Message: "unsupported", Data: data}, "tools/list")
	assert.JSONEq(t, string(data), string(got.Data))
}

type stringError string

func (e stringError) Error() string { return string(e) }
func errorf(s string) error         { return stringError(s) }
