package protocol

// The tests of message.go and json.go: a message read, its JSON-level
// checks, and its admission.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// TestDecode is a table of lines and what decode makes of each: a request
// (its method), a response, or a refusal (its code, id and message).
func TestDecode(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		line     string
		method   string // of the request read
		response bool
		code     int64  // of the refusal; 0 if none
		id       any    // of the refusal, as MakeID takes it
		msg      string // in the refusal's message
	}{
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, method: "ping"},
		{line: ` {"jsonrpc":"\u0032.0","id":"a","method":"p\u0069ng"}	`, method: "ping"},
		{line: `{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`, method: "ping"},
		{line: `{"jsonrpc":"2.0","ID":4,"method":"ping"}`, method: "ping"}, // "ID" is not "id": a notification
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat(`[{\"`, 1000) + `"}}`, method: "ping"},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + nest(maxNesting-2) + `}}`, method: "ping"},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":[` + strings.Repeat(`1,`, maxValues-10) + `1]}}`, method: "ping"},
		{line: `{"jsonrpc":"2.0","id":"\ud83d\ude00","method":"ping"}`, method: "ping"},                                                  // a surrogate pair is one character
		{line: `{ "jsonrpc" : "2.0" ,	"id" :` + "\r\n" + ` 1 , "method" : "ping" , "params" : { } }`, method: "ping"},                    // white space around ':' is not a member's value
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":[` + strings.Repeat(`1,`, maxValues-7) + `1]}}`, method: "ping"},   // 10,000 values exactly
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":[` + strings.Repeat(`[],`, maxValues/2) + `[]]}}`, method: "ping"}, // 5,007 values: an end of an array is none
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":{"a":1},"b":[{"a":"a"},{"a":2,"b":"a"}],` + names(20) + `}}`, method: "ping"},
		{line: `{"jsonrpc":"2.0","id":1,"result":{}}`, response: true},
		{line: `{"jsonrpc":"1.0","id":9,"result":{}}`, response: true}, // malformed, and still never answered

		{line: `not json`, code: -32700, msg: "invalid character 'o' in literal null (expecting 'u'), at byte 2"},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, code: -32700, msg: "after top-level value"},
		{line: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, code: -32600, msg: "not an array (JSON-RPC batches are not supported"},
		{line: `]]0[`, code: -32700, msg: "invalid character ']' looking for beginning of value"},
		{line: `42`, code: -32600, msg: "a message must be a JSON object, not a number"},
		{line: `{"id":2,"method":"ping"}`, code: -32600, id: 2.0, msg: `"jsonrpc" must be "2.0"; this message has no "jsonrpc"`},
		{line: `{"jsonrpc":"1.0","id":3,"method":"ping"}`, code: -32600, id: 3.0, msg: `"jsonrpc" must be "2.0"; this message has "1.0"`},
		{line: `{"jsonrpc":"2.0","id":4}`, code: -32600, id: 4.0, msg: `"method" must be a string; this message has no "method"`},
		{line: `{"jsonrpc":"2.0","id":5,"method":7}`, code: -32600, id: 5.0, msg: `this message has 7`},
		{line: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, code: -32600, msg: `"id" must be a string or an integer, not null`},
		{line: `{"jsonrpc":"2.0","id":6.5,"method":"ping"}`, code: -32600, msg: `not 6.5`},
		{line: `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, code: -32600, msg: `not 1e3`},
		{line: `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, code: -32600, msg: `within ±2^53`},
		{line: `{"jsonrpc":"2.0","id":{"n":6},"method":"ping"}`, code: -32600, msg: `not {"n":6}`},
		{line: `{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`, code: -32600, msg: `"id" must be valid Unicode, not "\ud800"`},
		{line: `{"jsonrpc":"2.0","id":"a\udc00\ud800","method":"ping"}`, code: -32600, msg: `not "a\udc00\ud800"`},
		{line: "{\"jsonrpc\":\"2.0\",\"id\":\"a\xff\xfeb\",\"method\":\"ping\"}", code: -32600,
			msg: "\"id\" must be valid Unicode, not \"a\ufffdb\": it holds bytes that are not UTF-8"},
		{line: `{"jsonrpc":"1.0","ID":2,"method":"ping"}`, code: -32600, msg: `"jsonrpc" must be "2.0"`}, // member names are case-sensitive
		{line: `{"jsonrpc":"1.0","Id":2,"method":"ping"}`, code: -32600, msg: `"jsonrpc" must be "2.0"`},
		{line: `{"jsonrpc":"2.0","ID":2,"method":"ping","params":{"x":` + nest(100) + `}}`, code: -32600, msg: "more than 64 levels deep"},
		// A name twice in one object is read differently by different
		// decoders: Admit, a struct, kept the first _meta; go-sdk, a map,
		// the last, null, and answered the request as of no revision.
		{line: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `,"_meta":null}}`, code: -32600, id: 1.0,
			msg: `the name "_meta" appears twice in one object, at byte 169`},
		{line: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `,"_m\u0065ta":null}}`, code: -32600, id: 1.0, msg: `"_meta" appears twice`},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping","id":2}`, code: -32600, msg: `"id" appears twice`},
		{line: `{"jsonrpc":"2.0","id":3,"method":"ping","method":"tools/list"}`, code: -32600, id: 3.0, msg: `"method" appears twice`},
		{line: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a","message":"b"}}}`,
			code: -32600, id: 4.0, msg: `"message" appears twice`},
		{line: `{"jsonrpc":"2.0","id":5,"method":"ping","params":{` + names(20) + `,"k7":1}}`, code: -32600, id: 5.0, msg: `"k7" appears twice`},
		{line: "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":{\"\xff\":1,\"\xfe\":2}}", code: -32600, id: 6.0, msg: "\"\ufffd\" appears twice"},
		{line: `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"` + strings.Repeat("n", 1000) + `":1,"` + strings.Repeat("n", 1000) + `":2}}`, code: -32600, id: 7.0,
			msg: `the name "nnn`}, // quoted cut
		{line: `{"jsonrpc":"2.0","id":8,"method":null}`, code: -32600, id: 8.0, msg: `"method" must be a string; this message has null`},
		{line: `{"jsonrpc":"` + strings.Repeat("x", 100_000) + `","id":1,"method":"ping"}`, code: -32600, id: 1.0, msg: `this message has "xxx`},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + nest(maxNesting-1) + `}}`, code: -32600, id: 1.0, msg: "more than 64 levels deep"},
		{line: strings.Repeat("[", 2_000_000), code: -32600, msg: "more than 64 levels deep"},
		{line: `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":` + nest(9_000) + `}}`, code: -32600, id: 7.0, msg: "more than 64 levels deep"},
		{line: `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":` + nest(2_000_000) + `}}`, code: -32600, msg: "more than 64 levels deep"}, // past encoding/json's 10,000 levels
		{line: `{"jsonrpc":"2.0","method":"ping","params":{"x":` + nest(100) + `},"id":"late"}`, code: -32600, id: "late", msg: "more than 64 levels deep"},
		{line: `{"jsonrpc":"2.0","id":6.5,"method":"ping","params":{"x":` + nest(100) + `}}`, code: -32600, msg: "more than 64 levels deep"},
		{line: `[{"id":1},` + nest(100) + `]`, code: -32600, msg: "more than 64 levels deep"},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{` + strings.Repeat(`"":{},`, maxValues) + `"":1}}}`, code: -32600,
			id: 1.0, msg: "more than 10000 JSON values"},
		{line: `{"jsonrpc":"2.0","method":"ping","params":[` + strings.Repeat(`[],`, 2*maxValues) + `1],"id":2}`, code: -32600,
			id: 2.0, msg: "more than 10000 JSON values"},
	}
	for _, tt := range tests {
		t.Run(Cut(tt.line, 60), func(t *testing.T) {
			msg, err := decode([]byte(tt.line))
			if tt.code == 0 {
				require.NoError(t, err, "decode(%.80q)", tt.line)
				if req, ok := msg.(*jsonrpc.Request); ok {
					assert.Equal(t, tt.method, req.Method, "decode(%.80q)", tt.line)
				}
				_, isResponse := msg.(*jsonrpc.Response)
				assert.Equal(t, tt.response, isResponse, "decode(%.80q) is a response", tt.line)
				return
			}
			var r *Refusal
			require.ErrorAs(t, err, &r, "decode(%.80q)", tt.line)
			assert.Equal(t, tt.code, r.Err.Code, "decode(%.80q): %s", tt.line, r.Err.Message)
			want, _ := jsonrpc.MakeID(tt.id)
			assert.Equal(t, want, r.ID, "decode(%.80q): id", tt.line)
			assert.Contains(t, r.Err.Message, tt.msg, "decode(%.80q)", tt.line)
			assert.Less(t, len(r.Err.Message), 2*MaxQuote, "decode(%.80q) quotes too much", tt.line)
		})
	}
}

// FuzzDecode: whatever a line holds, decode does not panic, and refuses
// it, if it does, with -32700 or -32600 and a message of a few hundred
// bytes at most.
//
//	go test -run XXX -fuzz FuzzDecode ./internal/protocol
func FuzzDecode(f *testing.F) {
	for _, line := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `]]0[`, `{"a":{"b":1,"b":2}}`,
		`{"jsonrpc":"2.0","id":"\ud800","method":"p","params":{"_meta":{"k\u0065y":1e400}}}`, "{\"id\":\"\xff\"}"} {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		_, err := decode([]byte(line))
		var r *Refusal
		if errors.As(err, &r) {
			assert.Contains(t, []int64{jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest}, r.Err.Code, "decode(%q)", line)
			assert.Less(t, len(r.Err.Message), 3*MaxQuote, "decode(%q)", line)
		}
	})
}

// names returns n members of an object, "k0":0 to "k<n-1>":n-1.
func names(n int) string {
	members := make([]string, n)
	for i := range members {
		members[i] = fmt.Sprintf(`"k%d":%d`, i, i)
	}
	return strings.Join(members, ",")
}

// TestAdmit is a table of requests, and the era Admit puts each in, or the
// code and message it refuses each with.
func TestAdmit(t *testing.T) {
	ms := Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})
	tests := []struct {
		name, method, params, header string
		modern                       bool
		code                         int64 // 0: served
		msg                          string
	}{
		{"legacy call", "tools/call", `{"name":"echo","arguments":{}}`, "", false, 0, ""},
		{"legacy list", "tools/list", ``, "", false, 0, ""},
		{"initialize", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, "", false, 0, ""},
		{"modern call", "tools/call", `{"name":"echo",` + modernMeta + `}`, "", true, 0, ""},
		{"modern call over HTTP", "tools/call", `{"name":"echo",` + modernMeta + `}`, "2026-07-28", true, 0, ""},
		{"discover", "server/discover", `{` + modernMeta + `}`, "", true, 0, ""},

		{"unknown method", "no/such", ``, "", false, -32601, `method not found: "no/such"`},
		{"capability not advertised", "resources/list", ``, "", false, -32601, "does not advertise the resources capability"},
		{"a long method without _meta", strings.Repeat("m", 100_000), `{}`, "2026-07-28", true, -32602, "mmm… params must carry the protocol version"},
		{"discover without _meta", "server/discover", `{}`, "", true, -32602, "must carry the protocol version"},
		{"header without _meta", "tools/list", `{}`, "2026-07-28", true, -32602, "must carry the protocol version"},
		{"version not a string", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":2026}}`, "", true, -32602, "must carry"},
		{"future version", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}`, "", true, -32022, `unsupported protocol version "2099-01-01"`},
		{"escaped key", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersio\u006e":"1999-01-01"}}`, "", true, -32022, `"1999-01-01"`},
		{"legacy version in _meta", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`, "", true, -32022, "served after an initialize handshake"},

		{"header differs from _meta", "tools/list", `{` + modernMeta + `}`, "2099-01-01", true, mcp.CodeHeaderMismatch,
			`header mismatch: the MCP-Protocol-Version header "2099-01-01" differs from "2026-07-28" in _meta`},
		{"call without params", "tools/call", ``, "", false, -32602, "tools/call needs params, a JSON object"},
		{"call with null params", "tools/call", `null`, "", false, -32602, "tools/call needs params"},
		{"params an array", "ping", `[]`, "", false, -32602, "ping params must be a JSON object, not an array"},
		{"name a number", "tools/call", `{"name":5}`, "", false, -32602, `tools/call params: "name" must be a string, not a number`},
		{"cursor a number", "tools/list", `{"cursor":5}`, "", false, -32602, `"cursor" must be a string, not a number`},
		{"nested field", "initialize", `{"clientInfo":{"name":7}}`, "", false, -32602, `"clientInfo.name" must be a string, not a number`},
		{"a notification with an id", "notifications/cancelled", `{"requestId":1}`, "", false, -32600, `"notifications/cancelled" is a notification: send it without an id`},
		{"a request without an id", "tools/list", ``, "", false, -32600, `"tools/list" is a request: give it an id`},
		{"a number out of range", "tools/list", `{"_meta":{"progressToken":1e400}}`, "", false, -32602,
			`tools/list params: "_meta.progressToken" is 1e400, out of range: a number here must be within ±1.8e+308`},
		{"a number out of range in experimental", "initialize", `{"capabilities":{"experimental":{"x":-1e400}}}`, "", false, -32602,
			`"capabilities.experimental.x" is -1e400, out of range`},
		{"a notification's version is not read", "notifications/initialized", `{` + modernMeta + `}`, "", false, 0, ""},
		{"a number out of range beside the version", "tools/list", `{` + modernMeta[:len(modernMeta)-1] + `,"x":1e400}}`, "", true, -32602,
			`"_meta.x" is 1e400, out of range`},
		{"a number out of range beside the version, over HTTP", "tools/list", `{` + modernMeta[:len(modernMeta)-1] + `,"x":1e400}}`, "2026-07-28", true, -32602,
			`"_meta.x" is 1e400, out of range`},
		{"modern params checked too", "tools/call", `{"name":[],` + modernMeta + `}`, "", true, -32602, `"name" must be a string, not an array`},
		{"a long method cut whole characters", "a" + strings.Repeat("é", 1000), ``, "", false, -32601, `method not found: "a` + strings.Repeat("é", 99) + `…"`},
		// A cancellation may name a 2026-07-28 request on stdio, which no
		// initialize precedes, and carries no version of its own.
		{"a cancellation before initialize", "notifications/cancelled", `{"requestId":1}`, "", false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := `{"jsonrpc":"2.0","id":1,"method":` + strconv.Quote(tt.method)
			if tt.name == "a request without an id" || tt.name == "a notification's version is not read" || tt.name == "a cancellation before initialize" {
				data = `{"jsonrpc":"2.0","method":` + strconv.Quote(tt.method)
			}
			if tt.params != "" {
				data += `,"params":` + tt.params
			}
			msg, err := ms.Admit([]byte(data+"}"), tt.header, tt.method != "initialize" && tt.name != "a cancellation before initialize")
			assert.Equal(t, tt.modern, msg.Modern, "Admit(%s %s, header %q): modern", tt.method, tt.params, tt.header)
			if tt.code == 0 {
				assert.NoError(t, err, "Admit(%s %s, header %q)", tt.method, tt.params, tt.header)
				return
			}
			var r *Refusal
			require.ErrorAs(t, err, &r, "Admit(%s %s)", tt.method, tt.params)
			assert.Equal(t, tt.code, r.Err.Code, "Admit(%s %s): %s", tt.method, tt.params, r.Err.Message)
			assert.Contains(t, r.Err.Message, tt.msg, "Admit(%s %s)", tt.method, tt.params)
			if tt.name == "unknown method" { // not "not advertised": no capability serves it
				assert.Equal(t, tt.msg, r.Err.Message, "Admit(%s %s)", tt.method, tt.params)
			}
			assert.Less(t, len(r.Err.Message), 3*MaxQuote, "Admit(%.40s %.40s) quotes too much", tt.method, tt.params)
		})
	}
	// -32022 lists the versions served (MCP 2026-07-28, "Versioning").
	_, err := ms.Admit([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9"}}}`), "", true)
	var r *Refusal
	require.ErrorAs(t, err, &r)
	assert.JSONEq(t, `{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"v9"}`, string(r.Err.Data))
	// It quotes a little of the version requested, not 8 MiB.
	_, err = ms.Admit([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"`+
		strings.Repeat("v", 100_000)+`"}}}`), "", true)
	require.ErrorAs(t, err, &r)
	assert.Less(t, len(r.Err.Data)+len(r.Err.Message), 4*MaxQuote)
}

// failAfter bounds every wait below; it ends one only when a test fails.
const failAfter = 10 * time.Second

// TestHandshake: a 2025 session sends initialize once, first; ping may
// come before it (MCP 2025-11-25, "Lifecycle").
func TestHandshake(t *testing.T) {
	tests := []struct {
		method      string
		initialized bool
		msg         string // in the refusal; "" if none
	}{
		{"initialize", false, ""},
		{"ping", false, ""},
		{"ping", true, ""},
		{"tools/list", true, ""},
		{"initialize", true, "this session is initialized already"},
		{"tools/list", false, `"tools/list" before initialize: send initialize first`},
		{strings.Repeat("m", 100_000), false, `"mmm`},
	}
	for _, tt := range tests {
		err := handshake(tt.method, tt.initialized)
		if tt.msg == "" {
			assert.Nil(t, err, "Handshake(%q, %v)", tt.method, tt.initialized)
			continue
		}
		e := err
		require.NotNil(t, e, "Handshake(%.40q, %v)", tt.method, tt.initialized)
		assert.EqualValues(t, jsonrpc.CodeInvalidRequest, e.Code, "Handshake(%.40q, %v)", tt.method, tt.initialized)
		assert.Contains(t, e.Message, tt.msg, "Handshake(%.40q, %v)", tt.method, tt.initialized)
		assert.Less(t, len(e.Message), 3*MaxQuote, "Handshake(%.40q, %v) quotes too much", tt.method, tt.initialized)
	}
}
