package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	segjson "github.com/segmentio/encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The way in: Admit reads a message (decode, after shapeOf's look at its
// shape) and admits it: its method, its params and a 2025 session's
// handshake. rules.go holds what a client may send and how a message
// refused is told so, words.go the words of refusals.

// A Message is a message read and admitted: what a transport hands to
// go-sdk, or acts on itself.
type Message struct {
	Request  *jsonrpc.Request  // a request or a notification, its params (of initialize, only what a session keeps); or nil
	Response *jsonrpc.Response // or a response, which the server, sending no requests, never answers
	Modern   bool              // of MCP 2026-07-28: its version in _meta or the header, or server/discover
	Cancels  jsonrpc.ID        // of notifications/cancelled: the request it names, exactly as sent, or the zero ID
	Reason   string            // of notifications/cancelled: why, for the log: its text, or its JSON
}

// A Refusal is the error reply to a message refused before go-sdk sees it.
type Refusal struct {
	ID        jsonrpc.ID // zero, sent as null, if no id could be read
	Err       *jsonrpc.Error
	Handshake bool // refused by a 2025 session's handshake: before initialize, or initialize again
}

func (r *Refusal) Error() string { return r.Err.Message }

// Admit reads data, one message (decode), and admits it, once for either
// transport. header is the MCP-Protocol-Version header ("" on stdio), and
// initialized whether the 2025 session of the message has admitted
// initialize. Its params are decoded once, into their method's type, which
// gives the version in _meta too (once more, _meta alone, for params
// refused: segjson stops at the first value of a wrong type).
//
// It refuses, with a *Refusal under the message's id, what go-sdk would
// refuse in its decoder's words, quoting the params whole, or as another
// revision, or with code 0: a modern request without a version (-32602) or
// at one not served (-32022), a method not served (-32601), params not of
// the method's shape (-32602), and in a 2025 session a request before
// initialize or initialize again (-32600, Handshake set). A message
// refused comes back as far as it was read (its Request, Modern), for the
// transport to choose how to answer.
func (ms Methods) Admit(data []byte, header string, initialized bool) (Message, error) {
	decoded, err := decode(data)
	if err != nil {
		return Message{}, err
	}
	req, ok := decoded.(*jsonrpc.Request)
	if !ok {
		return Message{Response: decoded.(*jsonrpc.Response)}, nil
	}
	m, known := methods[req.Method]
	var p withMeta // the params in their method's type, if it is known
	var typeErr error
	kind := kind(req.Params)
	isObject := kind == "an object"
	if known && isObject {
		p = m.params()
		_, typeErr = segjson.Parse(req.Params, p, segjson.DontMatchCaseInsensitiveStructFields|segjson.ZeroCopy)
	}
	version, hasVersion := "", false // only a request carries its version (MCP 2026-07-28)
	if req.IsCall() && p != nil && typeErr == nil {
		var v any
		v, hasVersion = p.GetMeta()[mcp.MetaKeyProtocolVersion]
		version, _ = v.(string) // "" if not a string
	} else if req.IsCall() && isObject {
		// An unknown method's params, or params refused: segjson stops at
		// the first value of a wrong type, so _meta's version is read alone.
		var vo versionOnly
		_, _ = segjson.Parse(req.Params, &vo, segjson.DontMatchCaseInsensitiveStructFields|segjson.ZeroCopy)
		hasVersion = vo.Meta.Version != nil
		_ = json.Unmarshal(vo.Meta.Version, &version) // "" if not a string
	}
	msg := Message{Request: req, Modern: hasVersion || header >= ModernVersion || req.Method == "server/discover"}
	refuse := func(e *jsonrpc.Error) (Message, error) { return msg, &Refusal{ID: req.ID, Err: e} }
	notification := strings.HasPrefix(req.Method, "notifications/")
	switch {
	case req.IsCall() && notification: // go-sdk would act on it, and answer another request (code 0)
		return refuse(Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %q is a notification: send it without an id", Cut(req.Method, MaxQuote)))
	case !req.IsCall() && known && !notification:
		return refuse(Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %q is a request: give it an id", req.Method))
	case msg.Modern && version == "":
		return refuse(Errorf(jsonrpc.CodeInvalidParams, `invalid params: %s params must carry the protocol version in "_meta": `+
			`{%q: %q}, with the client's capabilities in %q`, Inert(req.Method), mcp.MetaKeyProtocolVersion, ModernVersion, mcp.MetaKeyClientCapabilities))
	case hasVersion && header != "" && header != version: // MCP 2026-07-28, Streamable HTTP
		return refuse(Errorf(mcp.CodeHeaderMismatch, "header mismatch: the MCP-Protocol-Version header %q differs from %q in _meta",
			Cut(header, MaxQuote), Cut(version, MaxQuote)))
	case msg.Modern && version != ModernVersion:
		return refuse(unsupported(version))
	case !known:
		return refuse(Errorf(jsonrpc.CodeMethodNotFound, "method not found: %q", Cut(req.Method, MaxQuote)))
	case !ms[req.Method]:
		return refuse(Errorf(jsonrpc.CodeMethodNotFound, "method not found: %q (this server does not advertise the %s capability)",
			req.Method, m.capability))
	case (kind == "nothing" || kind == "null") && m.required:
		return refuse(Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s needs params, a JSON object", req.Method))
	case kind != "an object" && kind != "nothing" && kind != "null":
		return refuse(Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s params must be a JSON object, not %s", req.Method, kind))
	case typeErr != nil:
		return refuse(wrongParams(req.Method, typeErr))
	}
	switch p := p.(type) {
	case *cancelledParams:
		msg.Cancels, msg.Reason = idOf(p.RequestID), string(p.Reason)
		if text, ok := text(p.Reason); ok {
			msg.Reason = text
		}
	case *mcp.InitializeParams:
		if !msg.Modern {
			req.Params = kept(p)
		}
	}
	// A cancellation may name a 2026-07-28 request, which no handshake
	// precedes: on stdio, a notification carries no version.
	if !msg.Modern && req.Method != "notifications/cancelled" {
		if err := handshake(req.Method, initialized); err != nil {
			return msg, &Refusal{ID: req.ID, Err: err, Handshake: true}
		}
	}
	return msg, nil
}

// withMeta are params as Admit decodes them: each of go-sdk's types of
// params, and cancelledParams, has its _meta.
type withMeta interface{ GetMeta() map[string]any }

// versionOnly are params as far as the protocol version in their _meta.
type versionOnly struct {
	Meta struct {
		Version json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"` // mcp.MetaKeyProtocolVersion
	} `json:"_meta"`
}

// cancelledParams are notifications/cancelled params as Admit reads them:
// the id as sent, for idOf, since mcp.CancelledParams reads 7.5 as a
// float64, which jsonrpc.MakeID makes 7 (that would cancel a request the
// client did not name), and a reason as sent, for the log, whatever it
// holds (1e400, which no float64 holds, too).
type cancelledParams struct {
	Meta      mcp.Meta        `json:"_meta,omitempty"`
	RequestID json.RawMessage `json:"requestId"`
	Reason    json.RawMessage `json:"reason,omitempty"`
}

func (p *cancelledParams) GetMeta() map[string]any { return p.Meta }

// handshake refuses a request of a 2025 session that misuses initialize:
// a second initialize, or a request before the first but ping. go-sdk
// v1.8.0 answers both with code 0 (go-sdk#976). Once fixed: delete it.
func handshake(method string, initialized bool) *jsonrpc.Error {
	switch {
	case method == "initialize" && initialized:
		return Errorf(jsonrpc.CodeInvalidRequest, "invalid request: this session is initialized already; "+
			"send initialize once, at the start of a session")
	case method != "initialize" && method != "ping" && !initialized:
		return Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %q before initialize: send initialize first "+
			"(over HTTP, then the Mcp-Session-Id header of its response with every request), "+
			`or, in MCP %s, give each request its protocol version in "_meta"`, Cut(method, MaxQuote), ModernVersion)
	}
	return nil
}

// maxNesting is how deeply a message may nest arrays and objects, and
// maxValues how many values it may hold: MCP needs a few levels and a few
// hundred values, and the decoders' stacks grow with depth, their time and
// memory with values (8 MiB of {} is 2.8 million maps).
const (
	maxNesting = 64
	maxValues  = 10_000
)

// decode reads the message in data, a stdio line or an HTTP body, in one
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
func decode(data []byte) (jsonrpc.Message, error) {
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

// idOf returns the id in raw, a message's "id" member as sent, or the zero
// ID if there is none that MCP allows (badID). decode and its refusals
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

// badID says what is wrong with an id as sent, or returns "" for a string
// of valid Unicode or an integer that go-sdk reads exactly, into a float64.
// A string that is not valid Unicode is read as another, with U+FFFD in
// place of what is wrong: the reply would carry an id its client never sent.
func badID(raw json.RawMessage) string {
	switch n, err := strconv.ParseInt(string(raw), 10, 64); {
	case raw[0] == '"' && !utf8.Valid(raw):
		return fmt.Sprintf(`"id" must be valid Unicode, not %s: it holds bytes that are not UTF-8, shown here as U+FFFD`,
			Inert(strings.ToValidUTF8(string(raw), "\ufffd")))
	case raw[0] == '"' && loneSurrogate(raw):
		return fmt.Sprintf(`"id" must be valid Unicode, not %s: \ud800 to \udfff escape halves of a surrogate pair, `+
			`and each half must have its other`, Inert(string(raw)))
	case raw[0] == '"', err == nil && -1<<53 < n && n < 1<<53:
		return ""
	case string(raw) == "null":
		return `"id" must be a string or an integer, not null; leave it out to send a notification`
	}
	return fmt.Sprintf(`"id" must be a string or an integer within ±2^53, not %s`, Inert(string(raw)))
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

// A shape is what a look at a message tells of it before it is decoded.
type shape struct {
	depth    int     // how deeply it nests arrays and objects
	values   int     // about how many values it holds: one more than its commas and openings
	repeated *member // a name that one of its objects holds twice, or nil
}

// A member is a name in an object, as decoders read it: escapes undone,
// and each byte that is not UTF-8 read as U+FFFD.
type member struct {
	name  []byte
	at    int // the byte offset of its opening quote, 0-based
	depth int // of the object that holds it: 1 for the message itself
}

// shapeOf looks at data without decoding it, and stops counting past
// maxNesting or maxValues. Its names are of use once data is known to be
// JSON: for data that is not, they may be anything.
//
// A name twice in one object is refused anywhere in a message (RFC 8259,
// §4, lets each decoder read it as it will; RFC 7493, I-JSON, forbids it),
// since the decoders a request passes through read it differently:
// decoding into a struct keeps the first of "_meta":{…},"_meta":null (null
// leaves a struct as it was), into a map the last. Admit saw a request of
// 2026-07-28, go-sdk one of no revision, and answered it with code 0; and
// go-sdk validates a tool's arguments as a map, while the tool reads them
// into a struct. One rule for every object is simpler than a list of the
// objects where decoders disagree.
func shapeOf(data []byte) shape {
	// objects[d] holds the names of the value open at depth d, if it is
	// an object; its names are kept for the next at that depth.
	var objects [maxNesting + 2]struct {
		isObject bool
		names    []member
	}
	s := shape{values: 1}
	depth := 0
	for i := 0; i < len(data) && s.depth <= maxNesting && s.values <= maxValues; i++ {
		switch c := data[i]; c {
		case '"':
			end := stringEnd(data, i)
			if depth > 0 && objects[depth].isObject && nextByte(data, end+1) == ':' {
				objects[depth].names = append(objects[depth].names, member{name: nameOf(data[i : end+1]), at: i, depth: depth})
			}
			i = end
		case '[', '{':
			depth++
			s.depth = max(s.depth, depth)
			s.values++
			if 0 < depth && depth < len(objects) { // data that is not JSON may close more than it opens
				objects[depth].isObject, objects[depth].names = c == '{', objects[depth].names[:0]
			}
		case ']', '}':
			if s.repeated == nil && depth > 0 && depth < len(objects) && objects[depth].isObject {
				s.repeated = twice(objects[depth].names)
			}
			depth--
		case ',':
			s.values++
		}
	}
	return s
}

// stringEnd returns the offset of the quote that ends the string whose
// opening quote is data[start], or len(data) if none does.
func stringEnd(data []byte, start int) int {
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++ // the escaped byte is not a quote
		case '"':
			return i
		}
	}
	return len(data)
}

// nextByte returns the first byte of data from offset i that is not white
// space, or 0 if there is none.
func nextByte(data []byte, i int) byte {
	if i < len(data) {
		if rest := bytes.TrimLeft(data[i:], " \t\r\n"); len(rest) > 0 {
			return rest[0]
		}
	}
	return 0
}

// nameOf returns the name that quoted, a JSON string, holds, as
// encoding/json reads it.
func nameOf(quoted []byte) []byte {
	if len(quoted) >= 2 && bytes.IndexByte(quoted, '\\') < 0 && utf8.Valid(quoted) {
		return quoted[1 : len(quoted)-1] // as most are written: nothing to undo
	}
	var name string
	if json.Unmarshal(quoted, &name) != nil {
		return quoted // not JSON, which decode refuses for that
	}
	return []byte(name)
}

// twice returns the second of a name that names holds twice, or nil. It
// sorts names.
func twice(names []member) *member {
	slices.SortStableFunc(names, func(a, b member) int { return bytes.Compare(a.name, b.name) })
	for i := 1; i < len(names); i++ {
		if bytes.Equal(names[i].name, names[i-1].name) {
			second := names[i] // names is kept for the next object
			return &second
		}
	}
	return nil
}

// kinds are JSON's kinds of value as refusals name them, each with the
// bytes a value of it starts with, its type in a JSON Schema, and the
// kinds of Go value that one decodes into.
var kinds = []struct {
	name, first, schemaType string
	goKinds                 []reflect.Kind
}{
	{"an object", "{", "object", []reflect.Kind{reflect.Map, reflect.Struct}},
	{"an array", "[", "array", []reflect.Kind{reflect.Slice, reflect.Array}},
	{"a string", `"`, "string", []reflect.Kind{reflect.String}},
	{"a boolean", "tf", "boolean", []reflect.Kind{reflect.Bool}},
	{"null", "n", "null", nil},
	{"a JSON value", "", "", []reflect.Kind{reflect.Interface}}, // any of them
	{"a number", "-0123456789", "number", []reflect.Kind{reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64}},
}

// kind names the kind of the JSON value data holds, from its first byte:
// "an object", "null", "nothing" for white space…
func kind(data []byte) string {
	if data = bytes.TrimLeft(data, " \t\r\n"); len(data) == 0 {
		return "nothing"
	}
	for _, k := range kinds {
		if strings.IndexByte(k.first, data[0]) >= 0 {
			return k.name
		}
	}
	return "a number" // or what is not JSON, which decode refuses
}
