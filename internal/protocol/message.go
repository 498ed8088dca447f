package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
)

// A Message is one JSON-RPC 2.0 message from a client: a request (a Method
// and an ID), a notification (a Method and no ID), or a response (neither).
type Message struct {
	// ID is the id as a reply carries it, valid UTF-8; nil for a
	// notification, or an id that could not be read: the error reply then
	// carries "id": null (JSON-RPC 2.0 §5).
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	// Response is set for a message with a "result" or an "error" and no
	// "method". This server sends no requests: a response is logged and
	// never answered, even a malformed one, lest two peers answer each
	// other for ever.
	Response bool
}

// wire holds every member a JSON-RPC 2.0 message may have, raw.
type wire struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// Decode reads the message data holds. It always returns a Message; an
// error, a *jsonrpc.Error, refuses it and is the reply (unless it is a
// Response): -32700 for data that is not JSON, -32600 for JSON that is not
// a JSON-RPC 2.0 message.
//
// It decodes with the library go-sdk uses, matching member names exactly
// ("ID" is not "id"), but not with jsonrpc.DecodeMessage, which truncates
// an id of 1.5 to 1, cannot tell "id": null from no id, and allocates two
// 32 KiB buffers a message.
func Decode(data []byte) (*Message, error) {
	if tooDeep(data) {
		return &Message{ID: shallowID(data)}, Errorf(jsonrpc.CodeInvalidRequest,
			"invalid request: the message nests arrays and objects more than %d levels deep; MCP messages need a few", MaxDepth)
	}
	var w wire // its members point into data: what is kept is copied
	rest, err := segjson.Parse(data, &w, segjson.DontMatchCaseInsensitiveStructFields|segjson.ZeroCopy)
	var syntax *segjson.SyntaxError
	switch {
	case errors.As(err, &syntax):
		// encoding/json says where the fault is; segmentio/encoding does not.
		if err := json.Unmarshal(data, new(any)); errors.As(err, &syntax) {
			return &Message{}, Errorf(jsonrpc.CodeParseError, "parse error: the message is not JSON: %s, at byte %d", err, syntax.Offset)
		}
		return &Message{}, Errorf(jsonrpc.CodeParseError, "parse error: the message is not JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	case err != nil || Kind(data) != "an object":
		kind := Kind(data)
		msg := "invalid request: a message must be a JSON object, not " + kind
		if kind == "an array" {
			msg += " (JSON-RPC batches are not supported: MCP removed them in 2025-06-18)"
		}
		return &Message{}, Errorf(jsonrpc.CodeInvalidRequest, "%s", msg)
	case len(rest) > 0:
		return &Message{}, Errorf(jsonrpc.CodeParseError, "parse error: the message is not JSON: %q after the object", cut(rest))
	}

	m := &Message{Params: bytes.Clone(w.Params), Response: w.Method == nil && (w.Result != nil || w.Error != nil)}
	id, idErr := CanonicalID(w.ID)
	if idErr == nil {
		m.ID = id
	}
	invalid := func(format string, args ...any) (*Message, error) {
		return m, Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %s%s", fmt.Sprintf(format, args...), caseHint(data))
	}
	switch version, _ := stringValue(w.JSONRPC); {
	case w.JSONRPC == nil:
		return invalid(`missing "jsonrpc": "2.0"`)
	case version != "2.0":
		return invalid(`"jsonrpc" must be "2.0", not %s`, cut(w.JSONRPC))
	case idErr != nil:
		return invalid("%v", idErr)
	case m.Response:
		return m, nil
	case w.Method == nil:
		return invalid(`missing "method"`)
	case w.ID != nil && m.ID == nil:
		return invalid(`"id" must be a string or an integer, not null; leave it out to send a notification`)
	}
	method, ok := stringValue(w.Method)
	if !ok {
		return invalid(`"method" must be a string, not %s`, Kind(w.Method))
	}
	m.Method = method
	return m, nil
}

// MaxDepth is how deeply the arrays and objects of a message may nest: MCP
// needs a few levels, and a line of a million '[' would exhaust the stack
// of the recursive JSON decoders used here and in go-sdk.
const MaxDepth = 64

// tooDeep reports whether data nests deeper than MaxDepth, without decoding.
func tooDeep(data []byte) bool {
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++ // the escaped byte is not a quote
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			if depth++; depth > MaxDepth {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// shallowID returns the id of a message too deep to decode, if it comes
// first, for the refusal. encoding/json reads without recursion.
func shallowID(data []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(data))
	if open, err := dec.Token(); err != nil || open != json.Delim('{') {
		return nil
	}
	for dec.More() {
		name, err := dec.Token()
		var value json.RawMessage
		if err != nil || dec.Decode(&value) != nil {
			return nil
		}
		if name == "id" {
			id, _ := CanonicalID(value)
			return id
		}
	}
	return nil
}

// isInteger reports whether raw is an integer as JSON writes it.
func isInteger(raw []byte) bool {
	digits := bytes.TrimPrefix(raw, []byte("-"))
	return len(digits) > 0 && (digits[0] != '0' || len(digits) == 1) &&
		len(bytes.TrimLeft(digits, "0123456789")) == 0
}

// CanonicalID returns the id a reply carries for raw, an "id" as sent: nil
// for none or null; an integer as written; a string re-encoded, invalid
// UTF-8 becoming U+FFFD. MCP allows no other ids.
func CanonicalID(raw json.RawMessage) (json.RawMessage, error) {
	switch {
	case raw == nil || string(raw) == "null":
		return nil, nil
	case isInteger(raw):
		return bytes.Clone(raw), nil
	}
	if s, ok := stringValue(raw); ok {
		return json.Marshal(s)
	}
	return nil, fmt.Errorf(`"id" must be a string or an integer, not %s`, cut(raw))
}

// stringValue returns the string raw holds, and whether it is one.
func stringValue(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	// Most strings have no escapes: they are what is between the quotes.
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if segjson.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// memberNames are the names of the members of a JSON-RPC 2.0 message.
var memberNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// caseHint returns a note on a member whose name differs from a JSON-RPC
// member's only in case, for a message already refused; else "".
func caseHint(data []byte) string {
	var members map[string]json.RawMessage
	if segjson.Unmarshal(data, &members) != nil {
		return ""
	}
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

// Kind names the type of the JSON value data holds, from its first byte,
// as a message would: "an object", "null", "nothing" for white space…
func Kind(data []byte) string {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return "nothing"
	}
	switch data[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// cut returns raw as text of at most 40 bytes, for an error message.
func cut(raw []byte) string { return cutAt(string(raw), 40) }

// cutAt returns s cut to n bytes, without a broken character, and "…".
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// Errorf returns a JSON-RPC error with the given code and message.
func Errorf(code int64, format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
