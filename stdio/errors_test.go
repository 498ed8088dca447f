package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		{"ping params an array", "ping", &jsonrpc.Error{Code: -32602,
			Message: `handling 'ping': invalid params: unmarshaling "[]" into a *mcp.PingParams: json: cannot unmarshal "[]" into Go value of type mcp.PingParams`},
			-32602, `invalid params: ping params must be an object (or no params at all), not an array`},
		{"tools/list params a boolean", "tools/list", &jsonrpc.Error{Code: -32602,
			Message: `handling 'tools/list': invalid params: unmarshaling "true" into a *mcp.ListToolsParams: json: …`},
			-32602, `invalid params: tools/list params must be an object with an optional "cursor" (a string from a previous tools/list result), not a boolean`},
		{"params a string of a method with no shape listed", "prompts/list", &jsonrpc.Error{Code: -32602,
			Message: `handling 'prompts/list': invalid params: unmarshaling "\"x\"" into a *mcp.ListPromptsParams: json: …`},
			-32602, `invalid params: prompts/list params must be a JSON object, not a string`},
		{"an object, the error only text", "prompts/list", &jsonrpc.Error{Code: -32602,
			Message: `handling 'prompts/list': invalid params: unmarshaling "{\"cursor\":5}" into a *mcp.ListPromptsParams: json: …`},
			-32602, `invalid params: prompts/list params must be a JSON object`},
		{"a member of the wrong type", "tools/list",
			sdkParamsError("tools/list", `{"cursor":5}`, &struct {
				Cursor string `json:"cursor"`
			}{}),
			-32602, `invalid params: tools/list params must be an object with an optional "cursor" (a string from a previous tools/list result); "cursor" must be a string, not a number`},
		{"_meta not an object", "ping",
			sdkParamsError("ping", `{"_meta":"x"}`, &struct {
				Meta map[string]any `json:"_meta"`
			}{}),
			-32602, `invalid params: ping params must be an object (or no params at all); "_meta" must be an object, not a string`},
		{"a member of a member", "initialize",
			sdkParamsError("initialize", `{"clientInfo":{"name":5}}`, &struct {
				ClientInfo struct {
					Name string `json:"name"`
				} `json:"clientInfo"`
			}{}),
			-32602, "invalid params: initialize params must be " + initShape + `; "clientInfo.name" must be a string, not a number`},
		{"an integer out of range", "tools/list",
			sdkParamsError("tools/list", `{"n":1e400}`, &struct {
				N int `json:"n"`
			}{}),
			-32602, `invalid params: tools/list params must be an object with an optional "cursor" (a string from a previous tools/list result); "n" must be an integer, not a number`},
		// The SDK's decoder, segmentio/encoding, quotes the start of the
		// value where encoding/json names its kind.
		{"as segmentio/encoding words it", "logging/setLevel",
			sdkError("logging/setLevel", `{"level":[1]}`, &json.UnmarshalTypeError{
				Value: strconv.Quote("[1]}"), Type: reflect.TypeFor[string](), Struct: "mcp.SetLoggingLevelParams", Field: "level"}),
			-32602, `invalid params: logging/setLevel params must be a JSON object; "level" must be a string, not an array`},
		{"a custom decoder's error", "completion/complete",
			sdkError("completion/complete", `{"ref":{"type":"x"}}`, errors.New(`unrecognized content type "x"`)),
			-32602, `invalid params: completion/complete params must be a JSON object`},
		{"as the SDK words it with MCPGODEBUG=nowrapinvalidparams=1", "ping",
			errorf(`handling 'ping': unmarshaling "5" into a *mcp.PingParams: json: cannot unmarshal "5" into Go value of type mcp.PingParams`),
			-32602, `invalid params: ping params must be an object (or no params at all), not a number`},
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

// sdkParamsError returns the error go-sdk v1.8.0 raises when params do
// not decode into the type of p, with the decoder's error in its chain.
func sdkParamsError(method, params string, p any) error {
	err := json.Unmarshal([]byte(params), p)
	if err == nil {
		panic(fmt.Sprintf("sdkParamsError: %s decodes into a %T", params, p))
	}
	return sdkError(method, params, err)
}

// sdkError wraps err as go-sdk v1.8.0 does an error decoding params
// (mcp/shared.go, newMethodInfo).
func sdkError(method, params string, err error) error {
	invalidParams := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params"}
	err = fmt.Errorf("%w: unmarshaling %q into a %T: %w", invalidParams, params, &struct{}{}, err)
	return fmt.Errorf("handling '%s': %w", method, err)
}

type stringError string

func (e stringError) Error() string { return string(e) }
func errorf(s string) error         { return stringError(s) }

// TestParamsErrorsOfEveryMethod sends every request the SDK serves, with
// params of each wrong kind, to a real server, and checks each reply: a
// result, or -32602 in plain words that name the method, with no Go type
// or decoder message in them. Notifications with wrong params are not
// answered.
func TestParamsErrorsOfEveryMethod(t *testing.T) {
	methods := []string{"ping", "tools/list", "tools/call", "resources/list", "resources/templates/list",
		"resources/read", "prompts/list", "prompts/get", "logging/setLevel", "completion/complete"}
	// Each params, and the words the error must contain when they are
	// refused.
	params := []struct{ params, says string }{
		{`[]`, "not an array"},
		{`"x"`, "not a string"},
		{`5`, "not a number"},
		{`true`, "not a boolean"},
		{`null`, ""},
		{`{"cursor":5}`, `"cursor" must be a string, not a number`},
		{`{"_meta":5}`, `"_meta" must be an object, not a number`},
	}
	const initialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

	var in strings.Builder
	sent := map[string]string{} // id → method and params
	send := func(id, method, params string) {
		sent[id] = method + " " + params
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%q,"method":%q,"params":%s}`+"\n", id, method, params)
	}
	for i, p := range params {
		send(fmt.Sprint("initialize-", i), "initialize", p.params)
	}
	in.WriteString(initialize + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for _, method := range methods {
		for i, p := range params {
			send(fmt.Sprint(method, "-", i), method, p.params)
		}
	}
	for _, p := range params {
		for _, method := range []string{"notifications/initialized", "notifications/roots/list_changed", "notifications/cancelled"} {
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":%q,"params":%s}`+"\n", method, p.params)
		}
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(server, &mcp.Tool{Name: "echo"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	var out syncBuffer
	transport := &Transport{Reader: strings.NewReader(in.String()), Writer: &out, GracePeriod: 5 * time.Second}
	require.NoError(t, server.Run(context.Background(), transport))

	answered := map[string]bool{}
	for line := range strings.Lines(out.String()) {
		var resp struct {
			ID    string         `json:"id"`
			Error *jsonrpc.Error `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &resp), "a reply: %s", line)
		if resp.ID == "init" {
			continue
		}
		request, ok := sent[resp.ID]
		require.True(t, ok, "a reply to no request sent: %s", line)
		answered[resp.ID] = true
		if resp.Error == nil {
			continue
		}
		dash := strings.LastIndexByte(resp.ID, '-')
		method := resp.ID[:dash]
		i, err := strconv.Atoi(resp.ID[dash+1:])
		require.NoError(t, err)
		t.Run(request, func(t *testing.T) {
			msg := resp.Error.Message
			for _, internal := range []string{"unmarshaling", "json:", "Go ", "mcp.", "*", "map["} {
				assert.NotContains(t, msg, internal, "the reply to %s", request)
			}
			if params[i].params == `{"cursor":5}` && !strings.HasSuffix(method, "/list") {
				// Only list requests have a cursor; the others are refused
				// for what they lack: "unknown tool", "Resource not found".
				return
			}
			assert.True(t, strings.HasPrefix(msg, "invalid params: "+method+" params "), "the reply to %s: %s", request, msg)
			assert.Equal(t, int64(jsonrpc.CodeInvalidParams), resp.Error.Code, "the reply to %s: %s", request, msg)
			assert.Contains(t, msg, params[i].says, "the reply to %s", request)
		})
	}
	for id, request := range sent {
		assert.True(t, answered[id], "no reply to %s", request)
	}
}
