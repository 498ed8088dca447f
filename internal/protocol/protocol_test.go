package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
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

// TestEncode: an error reply with no id carries "id": null (JSON-RPC 2.0 §5).
func TestEncode(t *testing.T) {
	data, err := Encode(&jsonrpc.Response{Error: Errorf(-32700, "no")})
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"no"}}`, string(data))
}

func TestServed(t *testing.T) {
	tools := Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})
	var served []string
	for name, ok := range tools {
		if ok {
			served = append(served, name)
		}
	}
	assert.ElementsMatch(t, []string{"initialize", "ping", "server/discover", "notifications/initialized",
		"notifications/cancelled", "tools/list", "tools/call"}, served)
	assert.True(t, Served(&mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}})["resources/read"])
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

// TestRefusalsInert: each refusal that quotes a client's text quotes it
// inert, as Inert does, whether the text came escaped in JSON (ESC, BEL as
// \u001b, \u0007) or raw (U+009B, U+202E, as UTF-8): the method of a
// modern request without its version, an id in use, and the "id",
// "jsonrpc" and "method" members refused.
func TestRefusalsInert(t *testing.T) {
	const hostile = `\u001b[2J\u0007` + "\u009b31m\u202e" // JSON text: two escaped, two raw
	ms := Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})
	var escaped string
	require.NoError(t, json.Unmarshal([]byte(`"`+hostile+`"`), &escaped))
	id, err := jsonrpc.MakeID(escaped)
	require.NoError(t, err)
	messages := map[string]string{"id in use": InUse(id).Message}
	for name, line := range map[string]string{
		"params must carry the version": `{"jsonrpc":"2.0","id":1,"method":"` + hostile + `","params":{}}`,
		"id not UTF-8":                  `{"jsonrpc":"2.0","id":"` + "\xff" + hostile + `","method":"ping"}`,
		"id a lone surrogate":           `{"jsonrpc":"2.0","id":"\ud800` + hostile + `","method":"ping"}`,
		"id an object":                  `{"jsonrpc":"2.0","id":{"x":"` + hostile + `"},"method":"ping"}`,
		"jsonrpc":                       `{"jsonrpc":"` + hostile + `","id":1,"method":"ping"}`,
		"method":                        `{"jsonrpc":"2.0","id":1,"method":["` + hostile + `"]}`,
	} {
		_, err := ms.Admit([]byte(line), "2026-07-28", false)
		var r *Refusal
		require.ErrorAs(t, err, &r, "Admit(%s)", line)
		messages[name] = r.Err.Message
	}
	for name, msg := range messages {
		for _, r := range msg {
			assert.True(t, unicode.IsGraphic(r), "%s: %q holds %U, which a terminal acts on", name, msg, r)
		}
	}
}

// TestKeptOfInitialize: a session keeps the version, the capabilities of
// the specification and the client's name, not the rest.
// TestInert: what a client sent, quoted back, shows as text: controls,
// C1 and bidirectional overrides escaped, spaces of every kind kept; and
// -32022's data says the version requested so too.
func TestInert(t *testing.T) {
	assert.Equal(t, `a\x1b[2J\u009b31m\u202eb\u2028 `+"\u00a0c", Inert("a\x1b[2J\u009b31m\u202eb\u2028 \u00a0c"))
	assert.Equal(t, "a b\u00a0c", Inert("a b\u00a0c"), "spaces are graphic")
	assert.LessOrEqual(t, len(Inert(strings.Repeat("\x1b", 1000))), MaxQuote+len("…"))

	var e *jsonrpc.Error
	require.ErrorAs(t, unsupported("\u202e\u009b2J"), &e)
	var data mcp.UnsupportedProtocolVersionData
	require.NoError(t, json.Unmarshal(e.Data, &data))
	assert.Equal(t, `\u202e\u009b2J`, data.Requested)
	assert.Contains(t, e.Message, `\u202e\u009b2J`)
}

func TestKeptOfInitialize(t *testing.T) {
	params := `{"protocolVersion":"2025-11-25` + strings.Repeat("v", 1<<20) + `","_meta":{"x":1},"capabilities":{"roots":{"listChanged":true},"sampling":{},` +
		`"experimental":{"big":"` + strings.Repeat("x", 1<<20) + `"}},"clientInfo":{"name":"` + strings.Repeat("n", 1000) + `","version":"1","icons":[{"src":"a"}]}}`
	msg, err := Served(nil).Admit([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+params+`}`), "", false)
	require.NoError(t, err)
	kept := msg.Request.Params
	assert.Less(t, len(kept), 1000)
	assert.Contains(t, string(kept), `"protocolVersion":"2025-11-25vvv`, "the version, cut")
	assert.Contains(t, string(kept), `"roots":{"listChanged":true}`)
	assert.Contains(t, string(kept), `"sampling":{}`)
	assert.Contains(t, string(kept), `"version":"1"`)
	assert.NotContains(t, string(kept), "experimental")
	assert.NotContains(t, string(kept), "_meta")

	// The version go-sdk agrees to, for one asked at or past 2026-07-28,
	// which initialize does not serve; any other as asked.
	for asked, want := range map[string]string{"2026-07-28": "2025-11-25", "2099-01-01": "2025-11-25", "2020-01-01": "2020-01-01", "2025-06-18": "2025-06-18"} {
		msg, err := Served(nil).Admit([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+asked+`"}}`), "", false)
		require.NoError(t, err)
		var p mcp.InitializeParams
		require.NoError(t, json.Unmarshal(msg.Request.Params, &p))
		assert.Equal(t, want, p.ProtocolVersion, "initialize asking %s: the version kept", asked)
	}
}

// TestMiddleware: a panic is -32603 with the stack logged; an error without
// a code of the specifications gets -32603; a long message is cut.
func TestMiddleware(t *testing.T) {
	var logs strings.Builder
	mw := Middleware(slog.New(slog.NewTextHandler(&logs, nil)))
	handle := func(err error, panics bool) (mcp.Result, error) {
		method := "tools/call"
		if strings.Contains(err.Error(), "invalid params") {
			method = "tools/list"
		}
		return mw(func(context.Context, string, mcp.Request) (mcp.Result, error) {
			if panics {
				panic("something went wrong")
			}
			return nil, err
		})(context.Background(), method, &mcp.ListToolsRequest{Params: &mcp.ListToolsParams{}})
	}
	tests := []struct {
		err    error
		panics bool
		code   int64
		msg    string
	}{
		{errors.New("a panic"), true, -32603, "internal error"},
		{errors.New("no code"), false, -32603, "no code"},
		{&jsonrpc.Error{Code: 0, Message: "zero"}, false, -32603, "zero"},
		{&jsonrpc.Error{Code: -32001, Message: "an implementation's own"}, false, -32603, "an implementation's own"},
		{&jsonrpc.Error{Code: -32022, Message: "version"}, false, -32022, "version"},
		{errors.New(strings.Repeat("x", 100_000)), false, -32603, strings.Repeat("x", 200) + "…"},
		{&jsonrpc.Error{Code: -32602, Message: `unknown tool "` + strings.Repeat("x", 100_000) + `"`}, false, -32602, `unknown tool "xxx`},
		{&jsonrpc.Error{Code: -32602, Message: "invalid params"}, false, -32602, "the cursor is not one this server gave"},
	}
	for _, tt := range tests {
		_, err := handle(tt.err, tt.panics)
		var e *jsonrpc.Error
		require.ErrorAs(t, err, &e, "%v", tt.err)
		assert.Equal(t, tt.code, e.Code, "%.100v", tt.err)
		assert.Contains(t, e.Message, tt.msg, "%.100v", tt.err)
		assert.LessOrEqual(t, len(e.Message), MaxQuote+len("…"), "%.100v: a message as long as its input", tt.err)
	}
	assert.Contains(t, logs.String(), "something went wrong")
	assert.Contains(t, logs.String(), "goroutine", "the stack is logged")
}

// TestArgumentsProblem is a table of arguments and what is said of them
// for a schema like the tools'.
func TestArgumentsProblem(t *testing.T) {
	schema := &jsonschema.Schema{Type: "object", Required: []string{"expression"}, Properties: map[string]*jsonschema.Schema{
		"expression": {Type: "string"}, "format": {Type: "string", Enum: []any{"iso8601", "unix"}}, "n": {Type: "integer"}, "any": {}}}
	tests := []struct{ args, want string }{
		{`{"expression":"1"}`, ""},
		{`{"expression":"1","n":2}`, ""},
		{`{"expression":"1","any":[1]}`, ""},                                          // a property of no type takes any
		{`{"expression":"1","n":"2"}`, `argument "n" must be a number, not a string`}, // "integer" is a number
		{``, `missing required argument "expression"`},
		{`null`, `missing required argument "expression"`},
		{`[1]`, `arguments must be a JSON object, such as {"name": value}, not an array`},
		{`{"expression":null}`, `argument "expression" must be a string, not null`},
		{`{"expression":[1]}`, `argument "expression" must be a string, not an array`},
		{`{"expression":"1","format":"rfc822"}`, `argument "format" is "rfc822"; it must be one of ["iso8601" "unix"]`},
		{`{"expression":"1","format":"` + strings.Repeat("x", 1000) + `"}`, `argument "format" is "xxxxxxxx`},
		{`{"expression":"1","volume":11,"zone":1}`, `unknown argument "volume", "zone"; use only the arguments in the tool's inputSchema`},
	}
	for _, tt := range tests {
		got := argumentsProblem(schema, json.RawMessage(tt.args))
		if tt.want == "" {
			assert.Empty(t, got, "argumentsProblem(%s)", tt.args)
			continue
		}
		assert.Contains(t, got, tt.want, "argumentsProblem(%.80s)", tt.args)
		assert.Less(t, len(got), 2*MaxQuote, "argumentsProblem(%.80s)", tt.args)
	}
}

// TestWithoutHostArguments is a table of arguments, and what is left of
// them for a tool whose inputSchema does not declare HostArguments, and
// for one that does.
func TestWithoutHostArguments(t *testing.T) {
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"message": {Type: "string"}}}
	declares := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"message": {Type: "string"}, "wait_for_previous": {Type: "boolean"}}}
	tests := []struct{ args, want string }{
		{`{"message":"hi"}`, `{"message":"hi"}`},
		{`{"message":"hi","wait_for_previous":true}`, `{"message":"hi"}`},
		{`{"message":"hi","wait\u005ffor_previous":true}`, `{"message":"hi"}`}, // names compare unescaped
		{`{"message":"wait_for_previous"}`, `{"message":"wait_for_previous"}`},
		{`{"message":"\n"}`, `{"message":"\n"}`},
		{`[1]`, `[1]`},
	}
	for _, tt := range tests {
		got := withoutHostArguments(schema, json.RawMessage(tt.args))
		assert.JSONEq(t, tt.want, string(got), "withoutHostArguments(%s)", tt.args)
		got = withoutHostArguments(declares, json.RawMessage(tt.args))
		assert.JSONEq(t, tt.args, string(got), "withoutHostArguments(%s) for a tool that declares them", tt.args)
	}
}

// failAfter bounds every wait below; it ends one only when a test fails.
const failAfter = 10 * time.Second

// await fails the test unless ch is closed within failAfter.
func await(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(failAfter):
		t.Fatalf("%s did not happen within %v", what, failAfter)
	}
}

// TestSchemasOutliveFirstCall: the tools' inputSchemas, read once at the
// first call, are read under a context the call's cancellation cannot
// end: a first call cancelled while they are read leaves them to the calls
// after it, which set a host's argument aside from them.
func TestSchemasOutliveFirstCall(t *testing.T) {
	listing, listed := make(chan struct{}), make(chan struct{})
	var reached json.RawMessage // the arguments the last call reached the tool with
	next := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" {
			reached = req.(*mcp.CallToolRequest).Params.Arguments
			return &mcp.CallToolResult{}, nil
		}
		close(listing) // tools/list is called once
		// On the first call's goroutine, where t.Fatal must not be called:
		select {
		case <-listed:
		case <-time.After(failAfter):
			t.Error("the first call was not cancelled")
		}
		if ctx.Err() != nil {
			return nil, ctx.Err() // as go-sdk's handler would
		}
		schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"message": {Type: "string"}}}
		return &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "echo", InputSchema: schema}}}, nil
	}
	handle := Middleware(slog.New(slog.DiscardHandler))(next)
	call := func(ctx context.Context) {
		args := json.RawMessage(`{"message":"hi","wait_for_previous":true}`)
		_, err := handle(ctx, "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "echo", Arguments: args}})
		assert.NoError(t, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{})
	go func() {
		defer close(first)
		call(ctx)
	}()
	await(t, listing, "the first call's read of the schemas")
	cancel()
	close(listed)
	await(t, first, "the first call's return")
	call(context.Background())
	assert.JSONEq(t, `{"message":"hi"}`, string(reached), "the second call reached the tool with a host's argument: it had no schema")
}

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

// TestCutLogValue: a log line quotes at most MaxQuote bytes of each
// string, but a panic's stack, whole.
func TestCutLogValue(t *testing.T) {
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: CutLogValue}))
	long := strings.Repeat("x", 100_000)
	logger.Info("m", "tool", long, "stack", long, "n", 7)
	assert.Contains(t, logs.String(), "tool="+strings.Repeat("x", MaxQuote)+"… ")
	assert.Contains(t, logs.String(), "stack="+long+" ")
	assert.Contains(t, logs.String(), "n=7")
}

// TestLimitsPage: docs/limits.md states this package's limits as they are.
func TestLimitsPage(t *testing.T) {
	page, err := os.ReadFile("../../docs/limits.md")
	require.NoError(t, err)
	for _, want := range []string{
		fmt.Sprintf("arrays and objects %d levels deep", maxNesting),
		fmt.Sprintf("%d,%03d JSON values in a message", maxValues/1000, maxValues%1000),
	} {
		assert.Contains(t, string(page), want)
	}
}
