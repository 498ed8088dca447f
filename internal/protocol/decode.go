package protocol

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
)

// maxNesting is how deeply a message may nest arrays and objects, and
// maxValues how many values it may hold: MCP needs a few levels and a few
// hundred values, and the decoders' stacks grow with depth, their time and
// memory with values (8 MiB of {} is 2.8 million maps).
const (
	maxNesting = 64
	maxValues  = 10_000
)

// A Refusal is the error reply to a message refused before go-sdk sees it.
type Refusal struct {
	ID  jsonrpc.ID // zero, sent as null, if no id could be read
	Err *jsonrpc.Error
}

func (r *Refusal) Error() string { return r.Err.Message }

// Decode reads the message in data, a stdio line or an HTTP body, with
// go-sdk's jsonrpc.DecodeMessage, and refuses what that lets through: a
// message nested more than 64 levels or of more than 10,000 values, text
// after it, and ids MCP does not allow, which DecodeMessage reads as
// others (null as none, 6.5 as 6).
//
// It returns a *jsonrpc.Request or *jsonrpc.Response, or a *Refusal: -32700
// for data that is not JSON, -32600 for JSON that is not a JSON-RPC 2.0
// request. A response, even a malformed one, is a *jsonrpc.Response, which
// the server never answers: two peers must not answer each other for ever.
func Decode(data []byte) (jsonrpc.Message, error) {
	switch depth, values := shape(data); {
	case depth > maxNesting:
		return nil, refuse(leadingID(data), "the message nests arrays and objects more than %d levels deep; MCP messages need a few", maxNesting)
	case values > maxValues:
		return nil, refuse(leadingID(data), "the message holds more than %d JSON values; MCP messages need a few hundred", maxValues)
	}
	if req := plain(data); req != nil {
		return req, nil
	}
	var envelope struct {
		ID json.RawMessage `json:"id"`
	}
	msg, err := jsonrpc.DecodeMessage(data)
	rest, perr := segjson.Parse(data, &envelope, segjson.DontMatchCaseInsensitiveStructFields|segjson.ZeroCopy)
	r, isResponse := msg.(*jsonrpc.Response)
	switch {
	case err != nil || perr != nil || len(bytes.TrimLeft(rest, " \t\r\n")) > 0:
	case isResponse && r.Result == nil && r.Error == nil: // {"id": 1} is no response
	case !isResponse && envelope.ID != nil && badID(envelope.ID) != "":
		return nil, refuse(jsonrpc.ID{}, "%s", badID(envelope.ID))
	default:
		return msg, nil
	}
	return diagnose(data)
}

// badID says what is wrong with an id as sent, or returns "" for a string
// or an integer that go-sdk reads exactly, into a float64.
func badID(raw json.RawMessage) string {
	switch n, err := strconv.ParseInt(string(raw), 10, 64); {
	case raw[0] == '"', err == nil && -1<<53 < n && n < 1<<53:
		return ""
	case string(raw) == "null":
		return `"id" must be a string or an integer, not null; leave it out to send a notification`
	}
	return fmt.Sprintf(`"id" must be a string or an integer within ±2^53, not %s`, Cut(string(raw), 40))
}

// diagnose says why go-sdk's decoder refused data, or read only a part of
// it, from encoding/json's errors and a look at the message's members.
func diagnose(data []byte) (jsonrpc.Message, error) {
	var syntax *json.SyntaxError
	var m map[string]json.RawMessage
	switch err := json.Unmarshal(data, &m); {
	case errors.As(err, &syntax):
		return nil, &Refusal{Err: Errorf(jsonrpc.CodeParseError, "parse error: the message is not JSON: %s, at byte %d", err, syntax.Offset)}
	case kind(data) == "an array":
		return nil, refuse(jsonrpc.ID{}, "a message must be a JSON object, not an array (JSON-RPC batches are not supported: MCP removed them in 2025-06-18)")
	case err != nil || m == nil:
		return nil, refuse(jsonrpc.ID{}, "a message must be a JSON object, not %s", kind(data))
	}
	var id jsonrpc.ID
	if raw := m["id"]; raw != nil && badID(raw) == "" {
		var v any
		_ = json.Unmarshal(raw, &v)
		id, _ = jsonrpc.MakeID(v)
	}
	switch {
	case m["method"] == nil && (m["result"] != nil || m["error"] != nil):
		return &jsonrpc.Response{ID: id}, nil
	case m["id"] != nil && badID(m["id"]) != "":
		return nil, refuse(id, "%s", badID(m["id"]))
	}
	var version, method string
	switch {
	case json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0":
		return nil, refuse(id, `"jsonrpc" must be "2.0"; this message has %s`, has(m, "jsonrpc"))
	case json.Unmarshal(m["method"], &method) != nil:
		return nil, refuse(id, `"method" must be a string; this message has %s`, has(m, "method"))
	}
	return nil, refuse(id, "not a JSON-RPC 2.0 message")
}

// has says what members holds as name, for a message refused.
func has(members map[string]json.RawMessage, name string) string {
	if members[name] != nil {
		return Cut(string(members[name]), 40)
	}
	return fmt.Sprintf("no %q (member names are case-sensitive)", name)
}

func refuse(id jsonrpc.ID, format string, args ...any) *Refusal {
	return &Refusal{ID: id, Err: Errorf(jsonrpc.CodeInvalidRequest, "invalid request: "+format, args...)}
}

// shape returns how deeply data nests arrays and objects, and about how
// many values it holds (one more than its commas and openings), without
// decoding it; it stops counting past maxNesting or maxValues.
func shape(data []byte) (deepest, values int) {
	depth, inString := 0, false
	values = 1
	for i := 0; i < len(data) && deepest <= maxNesting && values <= maxValues; i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++ // the escaped byte is not a quote
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
			values++
		case c == ']' || c == '}':
			depth--
		case c == ',':
			values++
		}
	}
	return deepest, values
}

// leadingID returns the id of a message too deep or too wide to decode,
// if it comes before the message nests past maxNesting or 2·maxValues
// tokens: read a token at a time, as encoding/json's Decoder does, without
// recursion. Most clients write it before params.
func leadingID(data []byte) jsonrpc.ID {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	depth, key := 0, ""
	for range 2 * maxValues {
		tok, err := dec.Token()
		switch {
		case err != nil || depth > maxNesting || depth == 0 && tok != json.Delim('{'):
			return jsonrpc.ID{}
		case tok == json.Delim('{') || tok == json.Delim('['):
			depth++
		case tok == json.Delim('}') || tok == json.Delim(']'):
			depth--
			key = "" // a member's value ended
		case depth == 1 && key == "":
			key, _ = tok.(string)
		case depth == 1 && key == "id":
			id := tok
			if n, ok := tok.(json.Number); ok && badID(json.RawMessage(n)) == "" {
				id, _ = n.Float64()
			}
			if id, err := jsonrpc.MakeID(id); err == nil {
				return id
			}
			return jsonrpc.ID{}
		case depth == 1:
			key = ""
		}
	}
	return jsonrpc.ID{}
}

// kind names the type of the JSON value data holds, from its first byte:
// "an object", "null", "nothing" for white space…
func kind(data []byte) string {
	if data = bytes.TrimLeft(data, " \t\r\n"); len(data) == 0 {
		return "nothing"
	}
	return cmp.Or(kinds[data[0]], "a number")
}

var kinds = map[byte]string{'{': "an object", '[': "an array", '"': "a string", 't': "a boolean", 'f': "a boolean", 'n': "null"}

// Cut returns s cut to n bytes, without a broken character, and "…": a
// reply quotes at most a little of what a client sent.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// Errorf returns a JSON-RPC error with the given code and message.
func Errorf(code int64, format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Encode encodes msg as jsonrpc.EncodeMessage does, but for a result,
// which go-sdk has encoded already, compact, and EncodeMessage would again,
// and an error reply without an id, which JSON-RPC 2.0 (§5) sends with
// "id": null, and EncodeMessage without "id".
func Encode(msg jsonrpc.Message) ([]byte, error) {
	r, ok := msg.(*jsonrpc.Response)
	switch {
	case ok && r.Error == nil && r.Result != nil:
		id, err := json.Marshal(r.ID.Raw())
		return append(append(append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"result":`...), r.Result...), '}'), err
	case ok && !r.ID.IsValid():
		return json.Marshal(struct {
			JSONRPC string `json:"jsonrpc"`
			ID      any    `json:"id"`
			Error   error  `json:"error"`
		}{"2.0", nil, r.Error})
	}
	return jsonrpc.EncodeMessage(msg)
}

// plain reads a request as most are written, with "jsonrpc": "2.0", a
// method and a string id without escapes, and an integer id, or returns nil
// for the others, which DecodeMessage reads. go-sdk reads each message with a
// decoder of its own, and a buffer of 32 KiB.
func plain(data []byte) *jsonrpc.Request {
	var w struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	rest, err := segjson.Parse(data, &w, segjson.DontMatchCaseInsensitiveStructFields|segjson.ZeroCopy)
	if err != nil || len(bytes.TrimLeft(rest, " \t\r\n")) > 0 || string(w.JSONRPC) != `"2.0"` || !unescaped(w.Method) ||
		w.ID != nil && (badID(w.ID) != "" || w.ID[0] == '"' && !unescaped(w.ID)) {
		return nil
	}
	var id any
	if n, err := strconv.ParseInt(string(w.ID), 10, 64); err == nil {
		id = float64(n)
	} else if w.ID != nil {
		id = string(w.ID[1 : len(w.ID)-1])
	}
	req := &jsonrpc.Request{Method: string(w.Method[1 : len(w.Method)-1]), Params: bytes.Clone(w.Params)}
	req.ID, _ = jsonrpc.MakeID(id)
	return req
}

// unescaped reports whether raw is a string of UTF-8 with no escapes.
func unescaped(raw json.RawMessage) bool {
	return len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw[1:len(raw)-1], '\\') < 0 && utf8.Valid(raw)
}
