package protocol

import (
	"bytes"
	"encoding/json"
	"strings"

	segjson "github.com/segmentio/encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The way in: Admit reads a message (decode, with json.go's scan of its
// tokens) and admits it: its method, its params and a 2025 session's
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

// decode reads the message in data, a stdio line or an HTTP body, in one
// pass of jsontext's decoder (json.go), which copies nothing, as go-sdk's
// own decoder does not: it allocates 64 KiB a message, and a flood of
// notifications is read some thirty times slower. It refuses what go-sdk's
// decoder lets through: a message nested more than 64 levels or of more
// than 10,000 values, text after it, a name twice in one object (scan says
// why), and ids MCP does not allow, which go-sdk reads as others (null as
// none, 6.5 as 6, "\ud800" as "\ufffd").
//
// It returns a *jsonrpc.Request or *jsonrpc.Response, or a *Refusal: -32700
// for data that is not JSON, -32600 for JSON that is not a JSON-RPC 2.0
// request. A response, even a malformed one, is a *jsonrpc.Response, which
// the server never answers: two peers must not answer each other for ever.
func decode(data []byte) (jsonrpc.Message, error) {
	s := scanOf(data)
	switch {
	case s.deep:
		return nil, refuse(idOf(members(data)["id"]), "the message nests arrays and objects more than %d levels deep; MCP messages need a few", maxNesting)
	case s.many:
		return nil, refuse(idOf(members(data)["id"]), "the message holds more than %d JSON values; MCP messages need a few hundred", maxValues)
	}
	version, isString := text(s.jsonrpc)
	method, isMethod := text(s.method)
	if s.broken || kind(data) != "an object" || !isString || version != "2.0" || !isMethod || s.id != nil && !idOf(s.id).IsValid() {
		return diagnose(data)
	}
	id := idOf(s.id)
	if r := s.repeated; r != nil {
		if r.JSONPointer == "/id" {
			id = jsonrpc.ID{} // neither of two ids is the one to answer under
		}
		return nil, refuse(id, "the name %q appears twice in one object, at byte %d; decoders read such a message differently "+
			"(one keeps the first, another the last): send each name once", Cut(r.JSONPointer.LastToken(), MaxQuote), r.ByteOffset)
	}
	// data may be a buffer read into again
	return &jsonrpc.Request{ID: id, Method: method, Params: bytes.Clone(s.params)}, nil
}
