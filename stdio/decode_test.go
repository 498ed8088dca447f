package stdio

import (
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
)

// describe prints what decode made of a line, one fact a string:
//
//	request id=2 method="ping" params=<none>
//	notification method="ping" params={"x":1}
//	response id=1 result={}
//	-32600 id=5: invalid request: missing "method"
func describe(msg jsonrpc.Message, bad *badMessage) string {
	if bad != nil {
		id := string(bad.ID)
		if id == "" {
			id = "null"
		}
		return fmt.Sprintf("%d id=%s: %s", bad.Code, id, bad.Message)
	}
	switch m := msg.(type) {
	case *jsonrpc.Request:
		params := string(m.Params)
		if params == "" {
			params = "<none>"
		}
		if !m.ID.IsValid() {
			return fmt.Sprintf("notification method=%q params=%s", m.Method, params)
		}
		return fmt.Sprintf("request id=%v method=%q params=%s", m.ID.Raw(), m.Method, params)
	case *jsonrpc.Response:
		return fmt.Sprintf("response id=%v result=%s", m.ID.Raw(), m.Result)
	}
	return fmt.Sprintf("%T", msg)
}

// TestDecodeWhitespace: JSON allows whitespace (space, tab, CR, LF) before
// and after a value and around its members (RFC 8259 §2), so a message is
// read the same with it or without it.
func TestDecodeWhitespace(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"none", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, `request id=2 method="ping" params=<none>`},
		{"leading space", ` {"jsonrpc":"2.0","id":2,"method":"ping"}`, `request id=2 method="ping" params=<none>`},
		{"leading tab", "\t{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}", `request id=3 method="ping" params=<none>`},
		{"leading CR", "\r{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}", `request id=3 method="ping" params=<none>`},
		{"trailing spaces", `{"jsonrpc":"2.0","id":4,"method":"ping"}   `, `request id=4 method="ping" params=<none>`},
		{"trailing tab", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\t", `request id=4 method="ping" params=<none>`},
		{"around members", `{ "jsonrpc" : "2.0" , "id" : 5 , "method" : "ping" , "params" : { } }`, `request id=5 method="ping" params={ }`},
		{"notification", `  {"jsonrpc":"2.0","method":"notifications/initialized"}  `, `notification method="notifications/initialized" params=<none>`},
		{"response", ` {"jsonrpc":"2.0","id":"a","result":{}}`, `response id=a result={}`},
		{"an array", ` [{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
			`-32600 id=null: invalid request: a message must be a JSON object, found an array (JSON-RPC batches are not supported; MCP dropped them in 2025-06-18)`},
		{"a number", "\t42 ", `-32600 id=null: invalid request: a message must be a JSON object, found a number`},
		{"null", ` null`, `-32600 id=null: invalid request: a message must be a JSON object, found null`},
		{"only whitespace", "  \t", `-32700 id=null: parse error at column 3: unexpected end of JSON input`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, describe(decode([]byte(tt.line))), "decode(%q)", tt.line)
		})
	}
}

// TestDecodeMemberNames: member names are case-sensitive, as JSON-RPC 2.0
// spells them. A member whose name differs only in case is another member,
// ignored like any unknown one; when that leaves one missing, the error
// says why.
func TestDecodeMemberNames(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"ID is not id: a notification", `{"jsonrpc":"2.0","ID":4,"method":"ping"}`,
			`notification method="ping" params=<none>`},
		{"Method is not method", `{"jsonrpc":"2.0","id":5,"Method":"ping"}`,
			`-32600 id=5: invalid request: missing "method" (member names are case-sensitive: "Method" is not "method")`},
		{"JSONRPC is not jsonrpc", `{"JSONRPC":"2.0","method":"ping","id":6}`,
			`-32600 id=6: invalid request: missing "jsonrpc": "2.0" (member names are case-sensitive: "JSONRPC" is not "jsonrpc")`},
		{"Params is not params", `{"jsonrpc":"2.0","id":7,"method":"tools/list","Params":{"cursor":"x"}}`,
			`request id=7 method="tools/list" params=<none>`},
		{"Result is not result", `{"jsonrpc":"2.0","id":8,"Result":{}}`,
			`-32600 id=8: invalid request: missing "method" (member names are case-sensitive: "Result" is not "result")`},
		{"unknown members are ignored", `{"jsonrpc":"2.0","id":9,"method":"ping","extra":[1,{"id":2}]}`,
			`request id=9 method="ping" params=<none>`},
		// encoding/json keeps the last of two members with one name, and so
		// does decode. (RFC 8259 §4: names "SHOULD be unique".)
		{"duplicate id: the last wins", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
			`request id=2 method="ping" params=<none>`},
		{"duplicate method: the last wins", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"ping"}`,
			`request id=1 method="ping" params=<none>`},
		{"both id and ID", `{"jsonrpc":"2.0","ID":1,"id":2,"method":"ping"}`,
			`request id=2 method="ping" params=<none>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, describe(decode([]byte(tt.line))), "decode(%s)", tt.line)
		})
	}
}

// TestDecodeStrings: "jsonrpc" and "method" are JSON strings, read with
// their escapes decoded; anything else is not a string, however it looks.
func TestDecodeStrings(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"jsonrpc escaped", `{"jsonrpc":"\u0032.0","id":1,"method":"ping"}`, `request id=1 method="ping" params=<none>`},
		{"jsonrpc with a space", `{"jsonrpc":"2.0 ","id":1,"method":"ping"}`,
			`-32600 id=1: invalid request: "jsonrpc" must be "2.0", found "2.0 "`},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":1,"method":"ping"}`,
			`-32600 id=1: invalid request: "jsonrpc" must be "2.0", found 2.0`},
		{"jsonrpc null", `{"jsonrpc":null,"id":1,"method":"ping"}`,
			`-32600 id=1: invalid request: "jsonrpc" must be "2.0", found null`},
		{"jsonrpc an array", `{"jsonrpc":["2.0"],"id":1,"method":"ping"}`,
			`-32600 id=1: invalid request: "jsonrpc" must be "2.0", found ["2.0"]`},
		{"method escaped", `{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}`, `request id=1 method="ping" params=<none>`},
		{"method with a slash escaped", `{"jsonrpc":"2.0","id":1,"method":"tools\/list"}`, `request id=1 method="tools/list" params=<none>`},
		{"method empty", `{"jsonrpc":"2.0","id":1,"method":""}`, `request id=1 method="" params=<none>`},
		{"method null", `{"jsonrpc":"2.0","id":1,"method":null}`,
			`-32600 id=1: invalid request: "method" must be a string, found null`},
		{"method invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}", "request id=1 method=\"p\ufffdng\" params=<none>"}, // U+FFFD, as encoding/json reads it
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, describe(decode([]byte(tt.line))), "decode(%s)", tt.line)
		})
	}
}
