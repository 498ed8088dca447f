package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wireMessage is the shape of every JSON-RPC 2.0 message on the wire: a
// request has a method (and an id unless it is a notification), a response
// has an id and a result or an error. A line is read once, into its
// members, whatever it turns out to be. The members stay raw: the SDK,
// not this package, decodes params and results into their MCP types.
type wireMessage struct {
	JSONRPC, ID, Method, Params, Result, Error json.RawMessage
}

// readMembers reads the members of the JSON object a line holds, by name.
// The names match exactly, as JSON-RPC 2.0 spells them: "ID" is not "id",
// and {"jsonrpc":"2.0","ID":4,"method":"ping"} is a notification. (Struct
// tags would not do: encoding/json matches them case-insensitively.) Of two
// members with the same name, the last wins, as encoding/json does for
// struct fields. A value that is not an object is a
// *json.UnmarshalTypeError, and one that is not JSON a *json.SyntaxError.
func readMembers(line []byte) (map[string]json.RawMessage, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		return nil, err
	}
	if members == nil {
		// null: json.Unmarshal leaves the map nil.
		return nil, &json.UnmarshalTypeError{Value: "null"}
	}
	return members, nil
}

// A badMessage describes a line that is not a JSON-RPC 2.0 message the SDK
// can be given, and the error the connection answers it with.
type badMessage struct {
	// ID is the request's id as it was sent, or nil when no valid id could be
	// read; the reply then carries "id": null (JSON-RPC 2.0 §5).
	ID json.RawMessage
	// Code is -32700 (parse error) for a line that is not JSON, and -32600
	// (invalid request) for JSON that is not a JSON-RPC 2.0 message.
	Code    int64
	Message string
	// IsResponse is set when the line looked like a response (a result or an
	// error, no method). It is logged, never answered: replying to a reply
	// could set two peers answering each other for ever.
	IsResponse bool
}

// decode returns the message one line holds: a *jsonrpc.Request or a
// *jsonrpc.Response, or a *badMessage saying why it is neither. Whitespace
// around the object is allowed, as anywhere in JSON (RFC 8259 §2).
func decode(line []byte) (jsonrpc.Message, *badMessage) {
	members, err := readMembers(line)
	if err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, &badMessage{Code: jsonrpc.CodeParseError,
				Message: fmt.Sprintf("parse error at column %d: %s", syntax.Offset, syntax)}
		}
		// Valid JSON, but not an object: an array (a batch), a string,
		// a number, true, false or null.
		found := JSONKind(line)
		msg := "invalid request: a message must be a JSON object, found " + found
		if found == "an array" {
			msg += " (JSON-RPC batches are not supported; MCP dropped them in 2025-06-18)"
		}
		return nil, &badMessage{Code: jsonrpc.CodeInvalidRequest, Message: msg}
	}
	// Members other than these are ignored.
	w := wireMessage{
		JSONRPC: members["jsonrpc"],
		ID:      members["id"],
		Method:  members["method"],
		Params:  members["params"],
		Result:  members["result"],
		Error:   members["error"],
	}

	id, idErr := makeID(w.ID)
	invalid := func(format string, args ...any) (jsonrpc.Message, *badMessage) {
		bad := &badMessage{
			Code:       jsonrpc.CodeInvalidRequest,
			Message:    "invalid request: " + fmt.Sprintf(format, args...) + caseHint(members),
			IsResponse: w.Method == nil && (w.Result != nil || w.Error != nil),
		}
		if idErr == nil && id.IsValid() {
			bad.ID = w.ID
		}
		return nil, bad
	}
	version, _ := jsonString(w.JSONRPC)
	switch {
	case w.JSONRPC == nil:
		return invalid(`missing "jsonrpc": "2.0"`)
	case version != "2.0":
		return invalid(`"jsonrpc" must be "2.0", found %s`, w.JSONRPC)
	case idErr != nil:
		return invalid("%v", idErr)
	}

	if w.Method == nil {
		switch {
		case w.Result == nil && w.Error == nil:
			return invalid(`missing "method"`)
		case !id.IsValid():
			return invalid(`a response must have an "id"`)
		case w.Result != nil && w.Error != nil:
			return invalid(`a response has a "result" or an "error", not both`)
		}
		resp := &jsonrpc.Response{ID: id, Result: w.Result}
		if w.Error != nil {
			var e jsonrpc.Error
			if err := json.Unmarshal(w.Error, &e); err != nil {
				return invalid(`"error" must be an object with a "code" and a "message"`)
			}
			resp.Error = &e
		}
		return resp, nil
	}

	method, ok := jsonString(w.Method)
	if !ok {
		return invalid(`"method" must be a string, found %s`, w.Method)
	}
	if w.ID != nil && !id.IsValid() {
		return invalid(`"id" must be a string or an integer, found null`)
	}
	return &jsonrpc.Request{ID: id, Method: method, Params: w.Params}, nil
}

// maxExactID is the largest integer id accepted. jsonrpc.MakeID takes a
// number id as a float64, which holds every integer up to 2⁵³ exactly.
const maxExactID = 1 << 53

// makeID converts a raw "id" member to a jsonrpc.ID: the zero ID when it is
// missing or null, else a string or an integer, the two kinds MCP allows
// (JSON-RPC 2.0 §4 also allows fractions, but advises against them).
func makeID(raw json.RawMessage) (jsonrpc.ID, error) {
	var v any
	switch {
	case raw == nil || bytes.Equal(raw, []byte("null")):
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, err
		}
		v = s
	default:
		f, err := strconv.ParseFloat(string(raw), 64)
		// ParseFloat rounds 2⁵³+1 to 2⁵³: check an integer as written.
		if n, intErr := strconv.ParseInt(string(raw), 10, 64); intErr == nil && (n > maxExactID || n < -maxExactID) {
			err = strconv.ErrRange
		}
		if err != nil || f != math.Trunc(f) || math.Abs(f) > maxExactID {
			return jsonrpc.ID{}, fmt.Errorf(`"id" must be a string or an integer between -2^53 and 2^53, found %s`, raw)
		}
		v = f
	}
	return jsonrpc.MakeID(v)
}

// jsonString returns the string raw holds, its escapes decoded ("\u0032.0"
// is "2.0"), and whether raw is a JSON string at all. raw is a value from a
// line that has been parsed, so it is valid JSON.
func jsonString(raw json.RawMessage) (string, bool) {
	// The quote first: json.Unmarshal takes null for an empty string.
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	// Most strings have no escapes: they are what is between the quotes.
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// memberNames are the names of the members of a JSON-RPC 2.0 message.
var memberNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// caseHint returns, for a message that has a member whose name differs
// from one of memberNames only in case, a note saying so, to append to the
// error message; else "". The note shows the first such name, in the
// order of memberNames.
func caseHint(members map[string]json.RawMessage) string {
	for _, want := range memberNames {
		if _, ok := members[want]; ok {
			continue
		}
		for name := range members {
			if strings.EqualFold(name, want) {
				return fmt.Sprintf(" (member names are case-sensitive: %q is not %q)", name, want)
			}
		}
	}
	return ""
}

// JSONKind names the type of the JSON value data holds, from its first
// byte after any whitespace, as a message would: "an object", "an array",
// "a string", "a number", "a boolean", "null", or "nothing" if data holds
// only whitespace. It does not check that the value is well formed.
func JSONKind(data []byte) string {
	data = bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(data) == 0:
		return "nothing"
	case data[0] == '{':
		return "an object"
	case data[0] == '[':
		return "an array"
	case data[0] == '"':
		return "a string"
	case data[0] == 't', data[0] == 'f':
		return "a boolean"
	case data[0] == 'n':
		return "null"
	default:
		return "a number"
	}
}
