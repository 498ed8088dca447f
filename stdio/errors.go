package stdio

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// codeUnsupportedProtocolVersion is the code the SDK answers a request that
// asks, in its _meta, for a draft protocol version this server does not
// serve (SEP-2575's -32022).
const codeUnsupportedProtocolVersion = -32022

// wireError returns the error object to send for err, a handler's or the
// SDK's error in answer to a request for method, with one of JSON-RPC 2.0's
// standard codes (§5.1):
//
//	-32700  parse error       the line is not JSON (answered by decode)
//	-32600  invalid request   not a valid request, or not now
//	-32601  method not found
//	-32602  invalid params
//	-32603  internal error    anything else: a fault in the server
//
// Errors that handlers return can be given their codes by middleware; this
// is for the errors the SDK raises itself before any middleware runs. Some
// of those carry code 0 in go-sdk v1.8.0, and some quote the params and the
// JSON decoder's own error, which a client cannot act on. They are
// recognised by their text (see sdkErrors) and said again in plain words.
// Any other error keeps its message and data, and gets -32603 if its code is
// not a standard one, never 0.
func wireError(err error, method string) *jsonrpc.Error {
	out := &jsonrpc.Error{Message: err.Error()}
	var coded *jsonrpc.Error
	if errors.As(err, &coded) {
		out.Code, out.Data = coded.Code, coded.Data
	}
	for _, e := range sdkErrors {
		if m := e.pattern.FindStringSubmatch(out.Message); m != nil {
			out.Code = e.code
			if e.plain != nil {
				out.Message = e.plain(method, m, err)
			}
			return out
		}
	}
	switch {
	case out.Code == codeUnsupportedProtocolVersion:
		// MCP's own answer to an unsupported version is -32602 (lifecycle,
		// "Error Handling"); the data still lists the versions served.
		out.Code = jsonrpc.CodeInvalidParams
	case !IsStandardCode(out.Code):
		out.Code = jsonrpc.CodeInternalError
	}
	return out
}

// sdkErrors match the messages of the errors go-sdk v1.8.0 raises before a
// request reaches any middleware, give each a standard code, and, when
// plain is set, say it in plain words: what was wrong, and what valid
// params look like. The SDK's messages, with the code it sends them with:
//
//	invalid request: missing required "params"                        -32600  params absent
//	handling 'tools/call': invalid request: missing required "params" -32600  params null
//	handling 'initialize': missing required "params"                  0       params null
//	handling 'ping': invalid params: unmarshaling "[]" into a *mcp.PingParams: json: …                  -32602
//	handling 'initialize': unmarshaling "{…}" into a *mcp.initializeParamsV2: json: …                0
//	unknown tool ""                                                   -32602  tools/call params without a "name"
//	method "tools/list" is invalid during session initialization       0       a request before initialize
//
// (An unknown tool with a name keeps the SDK's message, unknown tool "x".)
// The "unmarshaling" messages come from every method whose params do not
// decode, and quote the params and the JSON decoder's message, with Go type
// names; none of that reaches the client.
var sdkErrors = []struct {
	pattern *regexp.Regexp
	code    int64
	plain   func(method string, m []string, err error) string // nil keeps the message
}{
	{regexp.MustCompile(`^invalid request: missing required "params"$`), jsonrpc.CodeInvalidParams,
		func(method string, _ []string, _ error) string {
			return fmt.Sprintf("invalid params: %s params are missing; they must be %s", method, paramsShape(method))
		}},
	{regexp.MustCompile(`^handling '[^']*': (?:invalid request: )?missing required "params"$`), jsonrpc.CodeInvalidParams,
		func(method string, _ []string, _ error) string { return paramsMustBe(method, "null") }},
	// The SDK quotes the params with %q, which starts the message with
	// their first character (\" for a string): enough to tell their kind,
	// without reading a long quote.
	{regexp.MustCompile(`^handling '[^']*': (?:invalid params: )?unmarshaling "(\\"|.)`), jsonrpc.CodeInvalidParams,
		func(method string, m []string, err error) string {
			found := JSONKind([]byte(strings.TrimPrefix(m[1], `\`)))
			if found != "an object" {
				return paramsMustBe(method, found)
			}
			return paramsMustBe(method, "") + wrongMember(err)
		}},
	{regexp.MustCompile(`^unknown tool ""$`), jsonrpc.CodeInvalidParams,
		func(string, []string, error) string {
			return `invalid params: tools/call params must name a tool: "name" is missing or empty`
		}},
	{regexp.MustCompile(`^method "[^"]*" is invalid during session initialization$`), jsonrpc.CodeInvalidRequest, nil},
}

// wrongMember says which member of params that are an object did not
// decode, and why: `; "cursor" must be a string, not a number`. It reads
// them from the decoder's *json.UnmarshalTypeError, which the SDK wraps
// with %w (its Field is the member's path, "clientInfo.name" for a member
// of a member), and returns "" when err holds none: a custom decoder's
// error, or an error that is only text.
func wrongMember(err error) string {
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) || typeErr.Field == "" {
		return ""
	}
	msg := fmt.Sprintf("; %q must be %s", typeErr.Field, typeKind(typeErr.Type))
	if found := valueKind(typeErr.Value); found != "" {
		msg += ", not " + found
	}
	return msg
}

// typeKind names the kind of JSON value that decodes into a value of type
// t: "a string", "an object".
func typeKind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "of another type"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "of another type"
}

// valueKind names the kind of JSON value an UnmarshalTypeError's Value
// describes, or returns "" if it cannot tell. encoding/json puts a word
// there ("number", "bool"); the SDK's decoder, segmentio/encoding, quotes
// the start of the value itself ("\"5}\"").
func valueKind(v string) string {
	if quoted, err := strconv.Unquote(v); err == nil {
		return JSONKind([]byte(quoted))
	}
	switch {
	case strings.HasPrefix(v, "number"): // "number 1e400": out of range
		return "a number"
	case v == "string":
		return "a string"
	case v == "bool":
		return "a boolean"
	case v == "array":
		return "an array"
	case v == "object":
		return "an object"
	}
	return ""
}

// paramsShapes describe the params of the requests this server answers, as
// the MCP specification (2025-11-25) defines them. A method not listed here
// is described as taking "a JSON object".
var paramsShapes = map[string]string{
	"initialize": `an object with "protocolVersion" (a string such as "2025-11-25"), "capabilities" and "clientInfo"`,
	"tools/call": `an object with "name" (the tool to call) and optional "arguments" (an object)`,
	"tools/list": `an object with an optional "cursor" (a string from a previous tools/list result)`,
	"ping":       `an object (or no params at all)`,
}

func paramsShape(method string) string {
	if shape, ok := paramsShapes[method]; ok {
		return shape
	}
	return "a JSON object"
}

// paramsMustBe says what the params of method must be and, if found is not
// empty, what they were instead: "a string", "null".
func paramsMustBe(method, found string) string {
	msg := fmt.Sprintf("invalid params: %s params must be %s", method, paramsShape(method))
	if found != "" {
		msg += ", not " + found
	}
	return msg
}

// IsStandardCode reports whether code is one of the five error codes
// JSON-RPC 2.0 defines (§5.1): -32700, -32600, -32601, -32602 or -32603.
func IsStandardCode(code int64) bool {
	switch code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound,
		jsonrpc.CodeInvalidParams, jsonrpc.CodeInternalError:
		return true
	}
	return false
}
