package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wireMessage is the shape of every JSON-RPC 2.0 message on the wire: a
// request has a method (and an id unless it is a notification), a response
// has an id and a result or an error. Decoding into one struct reads a line
// once, whatever it turns out to be. The members stay raw: the SDK, not this
// package, decodes params and results into their MCP types.
type wireMessage struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
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
// *jsonrpc.Response, or a *badMessage saying why it is neither.
func decode(line []byte) (jsonrpc.Message, *badMessage) {
	var w wireMessage
	err := json.Unmarshal(line, &w)
	if err == nil && line[0] != '{' {
		// null: json.Unmarshal takes it for an object with no members.
		err = &json.UnmarshalTypeError{Value: "null"}
	}
	if err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, &badMessage{Code: jsonrpc.CodeParseError,
				Message: fmt.Sprintf("parse error at column %d: %s", syntax.Offset, syntax)}
		}
		// Valid JSON, but not an object: an array (a batch), a string,
		// a number, true, false or null.
		msg := "invalid request: a message must be a JSON object, found " + jsonKind(line)
		if bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("[")) {
			msg += " (JSON-RPC batches are not supported; MCP dropped them in 2025-06-18)"
		}
		return nil, &badMessage{Code: jsonrpc.CodeInvalidRequest, Message: msg}
	}

	id, idErr := makeID(w.ID)
	invalid := func(format string, args ...any) (jsonrpc.Message, *badMessage) {
		bad := &badMessage{
			Code:       jsonrpc.CodeInvalidRequest,
			Message:    "invalid request: " + fmt.Sprintf(format, args...),
			IsResponse: w.Method == nil && (w.Result != nil || w.Error != nil),
		}
		if idErr == nil && id.IsValid() {
			bad.ID = w.ID
		}
		return nil, bad
	}
	switch {
	case w.JSONRPC == nil:
		return invalid(`missing "jsonrpc": "2.0"`)
	case !bytes.Equal(w.JSONRPC, []byte(`"2.0"`)):
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

	var method string
	if w.Method[0] != '"' || json.Unmarshal(w.Method, &method) != nil {
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

// jsonKind names the type of the JSON value data holds.
func jsonKind(data []byte) string {
	data = bytes.TrimLeft(data, " \t")
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
