package protocol

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecode is a table of lines and what Decode reads from each: a
// message, or the code and message of its refusal.
func TestDecode(t *testing.T) {
	tests := []struct {
		line       string
		id, method string // the message read; id as a reply carries it
		response   bool
		code       int64  // of the refusal, 0 if none
		msg        string // substring of the refusal's message
	}{
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, id: `1`, method: "ping"},
		{line: `{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}`, id: `"a"`, method: "tools/list"},
		{line: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, method: "notifications/initialized"},
		{line: ` {"jsonrpc":"2.0","id":-7,"method":"ping"}	`, id: `-7`, method: "ping"},
		{line: `{"jsonrpc":"\u0032.0","id":"\u0061","method":"ping"}`, id: `"a"`, method: "ping"},
		{line: `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, id: `123456789012345678901234567890`, method: "ping"},
		{line: "{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}", id: "\"a\uFFFDb\"", method: "ping"}, // invalid UTF-8 is not sent back
		{line: `{"jsonrpc":"2.0","id":1,"result":{}}`, id: `1`, response: true},
		{line: `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`, id: `1`, response: true},
		// "ID" is not "id": a notification with an extra member.
		{line: `{"jsonrpc":"2.0","ID":4,"method":"ping"}`, method: "ping"},

		{line: `not json`, code: jsonrpc.CodeParseError, msg: "invalid character 'o' in literal null (expecting 'u'), at byte 2"},
		{line: `{"jsonrpc":"2.0",`, code: jsonrpc.CodeParseError, msg: "unexpected end of JSON input"},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, code: jsonrpc.CodeParseError, msg: `"x" after the object`},
		{line: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, code: jsonrpc.CodeInvalidRequest, msg: "not an array (JSON-RPC batches are not supported"},
		{line: `42`, code: jsonrpc.CodeInvalidRequest, msg: "a message must be a JSON object, not a number"},
		{line: `null`, code: jsonrpc.CodeInvalidRequest, msg: "not null"},
		{line: `{"id":2,"method":"ping"}`, id: `2`, code: jsonrpc.CodeInvalidRequest, msg: `missing "jsonrpc": "2.0"`},
		{line: `{"jsonrpc":"1.0","id":3,"method":"ping"}`, id: `3`, code: jsonrpc.CodeInvalidRequest, msg: `"jsonrpc" must be "2.0", not "1.0"`},
		{line: `{"jsonrpc":"2.0","id":4}`, id: `4`, code: jsonrpc.CodeInvalidRequest, msg: `missing "method"`},
		{line: `{"jsonrpc":"2.0","id":5,"method":7}`, id: `5`, code: jsonrpc.CodeInvalidRequest, msg: `"method" must be a string, not a number`},
		{line: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, msg: `"id" must be a string or an integer, not null`},
		{line: `{"jsonrpc":"2.0","id":6.5,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, msg: `not 6.5`},
		{line: `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, msg: `not 1e3`},
		{line: `{"jsonrpc":"2.0","id":{"n":6},"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, msg: `not {"n":6}`},
		{line: `{"jsonrpc":"2.0","id":8,"Method":"ping"}`, id: `8`, code: jsonrpc.CodeInvalidRequest,
			msg: `missing "method" (member names are case-sensitive: "Method" is not "method")`},
		// A malformed response is a response: logged, never answered.
		{line: `{"jsonrpc":"1.0","id":9,"result":{}}`, id: `9`, response: true, code: jsonrpc.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			msg, err := Decode([]byte(tt.line))
			require.NotNil(t, msg, "Decode(%q) returned no message", tt.line)
			assert.Equal(t, tt.id, string(msg.ID), "Decode(%q).ID", tt.line)
			assert.Equal(t, tt.response, msg.Response, "Decode(%q).Response", tt.line)
			if tt.code == 0 {
				require.NoError(t, err, "Decode(%q)", tt.line)
				assert.Equal(t, tt.method, msg.Method, "Decode(%q).Method", tt.line)
				return
			}
			var e *jsonrpc.Error
			require.True(t, errors.As(err, &e), "Decode(%q) = %v, want a *jsonrpc.Error", tt.line, err)
			assert.Equal(t, tt.code, e.Code, "Decode(%q): code of %q", tt.line, e.Message)
			assert.Contains(t, e.Message, tt.msg, "Decode(%q)", tt.line)
		})
	}
}

// TestDecodeLongValues checks that refusals quote at most a little of a
// long value.
func TestDecodeLongValues(t *testing.T) {
	_, err := Decode([]byte(`{"jsonrpc":"` + strings.Repeat("x", 100_000) + `","id":1,"method":"ping"}`))
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 200, "Decode: the message quotes the whole value")
}

func TestKind(t *testing.T) {
	for in, want := range map[string]string{
		"": "nothing", " \n": "nothing", `{}`: "an object", ` [1]`: "an array", `"x"`: "a string",
		`true`: "a boolean", `false`: "a boolean", `null`: "null", `-1.5`: "a number",
	} {
		assert.Equal(t, want, Kind([]byte(in)), "Kind(%q)", in)
	}
}

// TestDecodeDepth checks that a message nesting deeper than MaxDepth is
// refused before any recursive decoder reads it, with its id when the id
// comes first, and that brackets within strings do not count.
func TestDecodeDepth(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name, line string
		id         string // of the refusal; "" if accepted
	}{
		{"at the limit", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + nest(MaxDepth-2) + `}}`, ""},
		{"brackets in strings", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat(`[{\"`, 1000) + `"}}`, ""},
		{"over the limit", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + nest(MaxDepth-1) + `}}`, "1"},
		{"two million", `{"jsonrpc":"2.0","id":"a","method":"ping","params":` + nest(2_000_000) + `}`, `"a"`},
		{"deep objects", `{"id":7,"params":` + strings.Repeat(`{"a":`, 50_000) + "1" + strings.Repeat("}", 50_000) + "}", "7"},
		{"id after the depth", `{"params":` + nest(20_000) + `,"id":7}`, "null"},
		{"not even an object", strings.Repeat("[", 2_000_000), "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := Decode([]byte(tt.line))
			if tt.id == "" {
				require.NoError(t, err)
				return
			}
			var e *jsonrpc.Error
			require.True(t, errors.As(err, &e), "Decode = %v, want a *jsonrpc.Error", err)
			assert.EqualValues(t, jsonrpc.CodeInvalidRequest, e.Code)
			assert.Contains(t, e.Message, "more than 64 levels deep")
			id := string(msg.ID)
			if id == "" {
				id = "null"
			}
			assert.Equal(t, tt.id, id, "id of the refusal")
		})
	}
}
