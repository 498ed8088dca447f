package protocol

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"unicode"
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

// Decode reads the message in data, a stdio line or an HTTP body, in one
// pass of a decoder that copies nothing, as go-sdk's own decoder does not:
// it allocates 64 KiB a message, and a flood of notifications is read
// some thirty times slower. It refuses what go-sdk's decoder lets through:
// a message nested more than 64 levels or of more than 10,000 values, text
// after it, a name twice in one object (shapeOf says why), and ids MCP does
// not allow, which go-sdk reads as others (null as none, 6.5 as 6, "\ud800"
// as "\ufffd").
//
// It returns a *jsonrpc.Request or *jsonrpc.Response, or a *Refusal: -32700
// for data that is not JSON, -32600 for JSON that is not a JSON-RPC 2.0
// request. A response, even a malformed one, is a *jsonrpc.Response, which
// the server never answers: two peers must not answer each other for ever.
func Decode(data []byte) (jsonrpc.Message, error) {
	shape := shapeOf(data)
	switch {
	case shape.depth > maxNesting:
		return nil, refuse(idOf(members(data)["id"]), "the message nests arrays and objects more than %d levels deep; MCP messages need a few", maxNesting)
	case shape.values > maxValues:
		return nil, refuse(idOf(members(data)["id"]), "the message holds more than %d JSON values; MCP messages need a few hundred", maxValues)
	}
	var m struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	rest, err := segjson.Parse(data, &m, segjson.DontMatchCaseInsensitiveStructFields|segjson.ZeroCopy)
	version, isString := text(m.JSONRPC)
	method, isMethod := text(m.Method)
	if err != nil || len(bytes.TrimLeft(rest, " \t\r\n")) > 0 || kind(data) != "an object" || !isString || version != "2.0" ||
		!isMethod || m.ID != nil && !idOf(m.ID).IsValid() {
		return diagnose(data)
	}
	id := idOf(m.ID)
	if r := shape.repeated; r != nil {
		if r.depth == 1 && string(r.name) == "id" {
			id = jsonrpc.ID{} // neither of two ids is the one to answer under
		}
		return nil, refuse(id, "the name %q appears twice in one object, at byte %d; decoders read such a message differently "+
			"(one keeps the first, another the last): send each name once", Cut(string(r.name), MaxQuote), r.at)
	}
	// data may be a buffer read into again
	return &jsonrpc.Request{ID: id, Method: method, Params: bytes.Clone(m.Params)}, nil
}

// text returns the string a JSON value holds, and whether it holds one
// (null does not, though encoding/json reads it into a string as "").
func text(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), true // as most are written: no escapes to undo
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// badID says what is wrong with an id as sent, or returns "" for a string
// of valid Unicode or an integer that go-sdk reads exactly, into a float64.
// A string that is not valid Unicode is read as another, with U+FFFD in
// place of what is wrong: the reply would carry an id its client never sent.
func badID(raw json.RawMessage) string {
	switch n, err := strconv.ParseInt(string(raw), 10, 64); {
	case raw[0] == '"' && !utf8.Valid(raw):
		return fmt.Sprintf(`"id" must be valid Unicode, not %s: it holds bytes that are not UTF-8, shown here as U+FFFD`,
			Cut(strings.ToValidUTF8(string(raw), "\ufffd"), MaxQuote))
	case raw[0] == '"' && loneSurrogate(raw):
		return fmt.Sprintf(`"id" must be valid Unicode, not %s: \ud800 to \udfff escape halves of a surrogate pair, `+
			`and each half must have its other`, Cut(string(raw), MaxQuote))
	case raw[0] == '"', err == nil && -1<<53 < n && n < 1<<53:
		return ""
	case string(raw) == "null":
		return `"id" must be a string or an integer, not null; leave it out to send a notification`
	}
	return fmt.Sprintf(`"id" must be a string or an integer within ±2^53, not %s`, Cut(string(raw), MaxQuote))
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
	id := idOf(m["id"])
	switch {
	case m["method"] == nil && (m["result"] != nil || m["error"] != nil):
		return &jsonrpc.Response{ID: id}, nil
	case m["id"] != nil && badID(m["id"]) != "":
		return nil, refuse(id, "%s", badID(m["id"]))
	}
	version, _ := text(m["jsonrpc"])
	switch _, isMethod := text(m["method"]); {
	case version != "2.0":
		return nil, refuse(id, `"jsonrpc" must be "2.0"; this message has %s`, has(m, "jsonrpc"))
	case !isMethod:
		return nil, refuse(id, `"method" must be a string; this message has %s`, has(m, "method"))
	}
	return nil, refuse(id, "not a JSON-RPC 2.0 message")
}

// has says what members holds as name, for a message refused.
func has(members map[string]json.RawMessage, name string) string {
	if members[name] != nil {
		return Cut(string(members[name]), MaxQuote)
	}
	return fmt.Sprintf("no %q (member names are case-sensitive)", name)
}

func refuse(id jsonrpc.ID, format string, args ...any) *Refusal {
	return &Refusal{ID: id, Err: Errorf(jsonrpc.CodeInvalidRequest, "invalid request: "+format, args...)}
}

// idOf returns the id in raw, a message's "id" member as sent, or the zero
// ID if there is none that MCP allows (badID). Decode and its refusals
// take raw from a member named "id" exactly: JSON-RPC member names are
// case-sensitive, and "ID" is another member, which the struct decoding of
// encoding/json would take for "id".
func idOf(raw json.RawMessage) jsonrpc.ID {
	var id any
	if raw == nil || badID(raw) != "" || json.Unmarshal(raw, &id) != nil {
		return jsonrpc.ID{}
	}
	made, _ := jsonrpc.MakeID(id) // a string, or an integer held exactly in a float64
	return made
}

// CancelledID returns the id of the request a notifications/cancelled
// names: the member of its params named "requestId" exactly, if it is an id
// Decode takes; else the zero ID, which names no request. (encoding/json,
// decoding into a struct, takes "RequestId" for it too, and jsonrpc.MakeID
// makes 7 of 7.5: either would cancel a request the client did not name.)
func CancelledID(params json.RawMessage) jsonrpc.ID {
	return idOf(members(params)["requestId"])
}

// members returns the members of the object in data by name, or nil if
// data is not one: encoding/json reads a message refused before it is
// decoded, with no more than a scan of the rest, up to 10,000 levels deep
// (segjson, which Decode reads with, would recurse as deep as data goes).
func members(data []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

// loneSurrogate reports whether the JSON string raw, as sent, escapes half
// of a UTF-16 surrogate pair without the other (\ud800 alone, or
// \udc00 before \ud800), which encoding/json reads as U+FFFD.
func loneSurrogate(raw []byte) bool {
	pending := false // a high half was read: the next escape must be a low one
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			if pending {
				return true
			}
			continue
		}
		i++
		var r uint64 = 'x' // an escape other than \u
		if i+5 <= len(raw) && raw[i] == 'u' {
			r, _ = strconv.ParseUint(string(raw[i+1:i+5]), 16, 16)
			i += 4
		}
		high, low := 0xd800 <= r && r < 0xdc00, 0xdc00 <= r && r < 0xe000
		if pending != low {
			return true
		}
		pending = high
	}
	return pending
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

// MaxQuote is the most of what a client sent, in bytes, that a message
// quotes back (a method, an id, a header, an argument), and the longest
// error message taken from go-sdk or a handler, which may quote what a
// client sent whole: a client may send megabytes of any of them.
const MaxQuote = 200

// Inert returns s cut to MaxQuote bytes, with each character a terminal
// would act on rather than show written as Go quotes it: C0, DEL and C1
// controls (ESC and U+009B start terminal commands) as \x1b and \u009b,
// formatting characters such as the bidirectional override U+202E as
// \u202e, and the line and paragraph separators. A message of go-sdk's may
// quote a client's header whole; a log or a terminal shows it as text.
func Inert(s string) string {
	var b strings.Builder
	for _, r := range Cut(s, MaxQuote) {
		if unicode.IsGraphic(r) {
			b.WriteRune(r)
		} else {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		}
	}
	return Cut(b.String(), MaxQuote)
}

// Cut returns s cut to n bytes, without a broken character, and "…": a
// reply quotes at most a little of what a client sent.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// CutLogValue cuts each string a log line carries to MaxQuote bytes, as
// Cut does, but a panic's "stack": as a slog.HandlerOptions.ReplaceAttr, it
// makes a log line quote at most a little of what a client sent.
func CutLogValue(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindString && a.Key != "stack" {
		a.Value = slog.StringValue(Cut(a.Value.String(), MaxQuote))
	}
	return a
}

// Errorf returns a JSON-RPC error with the given code and message.
func Errorf(code int64, format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Encode encodes msg as jsonrpc.EncodeMessage does, but for an error reply
// without an id, which JSON-RPC 2.0 (§5) sends with "id": null, and
// EncodeMessage without "id".
func Encode(msg jsonrpc.Message) ([]byte, error) {
	if r, ok := msg.(*jsonrpc.Response); ok && !r.ID.IsValid() {
		return json.Marshal(struct {
			JSONRPC string `json:"jsonrpc"`
			ID      any    `json:"id"`
			Error   error  `json:"error"`
		}{"2.0", nil, r.Error})
	}
	return jsonrpc.EncodeMessage(msg)
}
