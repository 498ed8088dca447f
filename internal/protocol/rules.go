package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"

	segjson "github.com/segmentio/encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What MCP allows a client to send, and how a message refused is told so:
// the methods served, and the refusals Admit and decode give.

// ModernVersion is the first MCP revision without an initialize handshake,
// where each request carries its protocol version in _meta (SEP-2575).
const ModernVersion = "2026-07-28"

// methods are what a client may send a server (MCP 2026-07-28 and
// 2025-11-25, "Schema"): the capability the server advertises to serve
// each, as named in ServerCapabilities, and a value of its params' type,
// whether they must be there.
var methods = map[string]struct {
	capability string
	params     func() withMeta
	required   bool
}{
	"initialize":                {"", func() withMeta { return new(mcp.InitializeParams) }, true},
	"ping":                      {"", func() withMeta { return new(mcp.PingParams) }, false},
	"server/discover":           {"", func() withMeta { return new(mcp.DiscoverParams) }, false},
	"notifications/initialized": {"", func() withMeta { return new(mcp.InitializedParams) }, false},
	"notifications/cancelled":   {"", func() withMeta { return new(cancelledParams) }, true},
	"tools/list":                {"tools", func() withMeta { return new(mcp.ListToolsParams) }, false},
	"tools/call":                {"tools", func() withMeta { return new(mcp.CallToolParamsRaw) }, true},
	"resources/list":            {"resources", func() withMeta { return new(mcp.ListResourcesParams) }, false},
	"resources/templates/list":  {"resources", func() withMeta { return new(mcp.ListResourceTemplatesParams) }, false},
	"resources/read":            {"resources", func() withMeta { return new(mcp.ReadResourceParams) }, true},
	"resources/subscribe":       {"resources", func() withMeta { return new(mcp.SubscribeParams) }, true},
	"resources/unsubscribe":     {"resources", func() withMeta { return new(mcp.UnsubscribeParams) }, true},
	"prompts/list":              {"prompts", func() withMeta { return new(mcp.ListPromptsParams) }, false},
	"prompts/get":               {"prompts", func() withMeta { return new(mcp.GetPromptParams) }, true},
	"logging/setLevel":          {"logging", func() withMeta { return new(mcp.SetLoggingLevelParams) }, true}, //nolint:staticcheck // deprecated in 2026-07-28 (SEP-2577), not gone
	"completion/complete":       {"completions", func() withMeta { return new(mcp.CompleteParams) }, true},
}

// Methods are the methods a server answers.
type Methods map[string]bool

// Served returns the methods a server advertising caps answers: those of
// the lifecycle and of each capability. Others do not exist (-32601; MCP
// 2025-11-25, "Capability negotiation"), whatever go-sdk would answer.
func Served(caps *mcp.ServerCapabilities) Methods {
	data, _ := json.Marshal(caps) // a struct of the SDK's always encodes
	var advertised map[string]json.RawMessage
	_ = json.Unmarshal(data, &advertised)
	ms := Methods{}
	for name, m := range methods {
		ms[name] = m.capability == "" || advertised[m.capability] != nil
	}
	return ms
}

// wrongParams says what is wrong with params that decoding into their
// method's type refused with err, in words of the JSON sent.
func wrongParams(method string, err error) *jsonrpc.Error {
	var wrong *segjson.UnmarshalTypeError
	if !errors.As(err, &wrong) || wrong.Field == "" {
		return Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s params do not have the shape the MCP schema gives them", method)
	}
	t := wrong.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	found, _ := strconv.Unquote(wrong.Value) // the start of the value, quoted
	if (t.Kind() == reflect.Float64 || t.Kind() == reflect.Interface) && kind([]byte(found)) == "a number" {
		// A number, where one may be, that a float64 does not hold.
		return Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s params: %q is %s, out of range: "+
			"a number here must be within ±%.1e", method, wrong.Field, Cut(found, MaxQuote), math.MaxFloat64)
	}
	return Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s params: %q must be %s, not %s",
		method, wrong.Field, goKind(t.Kind()), kind([]byte(found)))
}

// unsupported is the error for a modern request at a version not served,
// listing those served (MCP 2026-07-28, "Versioning").
func unsupported(version string) *jsonrpc.Error {
	served := mcp.SupportedProtocolVersions()
	e := Errorf(mcp.CodeUnsupportedProtocolVersion, "unsupported protocol version %q: requests that carry their version "+
		"in _meta are served at %s", Cut(version, MaxQuote), ModernVersion)
	if slices.Contains(served, version) {
		e.Message += "; " + version + " is served after an initialize handshake"
	}
	e.Data, _ = json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: served, Requested: Inert(version)})
	return e
}

// maxKept is the most of the client's name and version, in bytes, that a
// session keeps.
const maxKept = 200

// kept returns what a session keeps of initialize params: the protocol
// version, the client's capabilities of the specification, and its name
// and version. go-sdk keeps the params whole for the session's life: 8 MiB
// of capabilities.experimental would stay with every session.
//
// A version asked at or past ModernVersion is kept as the one go-sdk
// agrees to, the newest before it (initialize belongs to the revisions
// before ModernVersion): go-sdk v1.8.0 gives results the shape of the
// version asked, not of the one agreed (clientSupportsMultiRoundTrip reads
// InitializeParams), so a session agreed at 2025-11-25 got 2026-07-28's
// resultType. Once go-sdk reads the version agreed, delete that line.
func kept(p *mcp.InitializeParams) json.RawMessage {
	p.Meta = nil
	if p.Capabilities != nil {
		p.Capabilities.Experimental, p.Capabilities.Extensions = nil, nil
	}
	p.ProtocolVersion = Cut(p.ProtocolVersion, maxKept) // none is longer: go-sdk answers one it knows
	if p.ProtocolVersion >= ModernVersion {
		p.ProtocolVersion = newestLegacy()
	}
	if p.ClientInfo != nil {
		p.ClientInfo = &mcp.Implementation{Name: Cut(p.ClientInfo.Name, maxKept), Version: Cut(p.ClientInfo.Version, maxKept)}
	}
	kept, _ := json.Marshal(p) // what was decoded encodes
	return kept
}

// newestLegacy returns the newest version go-sdk serves before
// ModernVersion: the one it agrees to in initialize for a version it does
// not serve there.
func newestLegacy() string {
	for _, v := range mcp.SupportedProtocolVersions() { // newest first
		if v < ModernVersion {
			return v
		}
	}
	return ""
}

// InUse is the refusal of a request whose id is that of a request in
// flight. A transport sends it under null: under its own id, the client
// would read it as the reply to the request in flight.
func InUse(id jsonrpc.ID) *jsonrpc.Error {
	return Errorf(jsonrpc.CodeInvalidRequest, "invalid request: id %s is in use by a request in flight", Inert(fmt.Sprint(id.Raw())))
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
		return Inert(string(members[name]))
	}
	return fmt.Sprintf("no %q (member names are case-sensitive)", name)
}

func refuse(id jsonrpc.ID, format string, args ...any) *Refusal {
	return &Refusal{ID: id, Err: Errorf(jsonrpc.CodeInvalidRequest, "invalid request: "+format, args...)}
}

// members returns the members of the object in data by name, or nil if
// data is not one: encoding/json reads a message refused before it is
// decoded, with no more than a scan of the rest, up to 10,000 levels deep
// (segjson, which decode reads with, would recurse as deep as data goes).
func members(data []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
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
