package protocol

import (
	"cmp"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// ModernVersion is the first MCP revision without an initialize handshake,
// where each request carries its protocol version in _meta (SEP-2575).
const ModernVersion = "2026-07-28"

// methods are what a client may send a server (MCP 2026-07-28 and
// 2025-11-25, "Schema"): the capability the server advertises to serve
// each, as named in ServerCapabilities, and a value of its params' type,
// whether they must be there.
var methods = map[string]struct {
	capability string
	params     func() any
	required   bool
}{
	"initialize":                {"", func() any { return new(mcp.InitializeParams) }, true},
	"ping":                      {"", func() any { return new(mcp.PingParams) }, false},
	"server/discover":           {"", func() any { return new(mcp.DiscoverParams) }, false},
	"notifications/initialized": {"", func() any { return new(mcp.InitializedParams) }, false},
	"notifications/cancelled":   {"", func() any { return new(mcp.CancelledParams) }, true},
	"tools/list":                {"tools", func() any { return new(mcp.ListToolsParams) }, false},
	"tools/call":                {"tools", func() any { return new(mcp.CallToolParamsRaw) }, true},
	"resources/list":            {"resources", func() any { return new(mcp.ListResourcesParams) }, false},
	"resources/templates/list":  {"resources", func() any { return new(mcp.ListResourceTemplatesParams) }, false},
	"resources/read":            {"resources", func() any { return new(mcp.ReadResourceParams) }, true},
	"resources/subscribe":       {"resources", func() any { return new(mcp.SubscribeParams) }, true},
	"resources/unsubscribe":     {"resources", func() any { return new(mcp.UnsubscribeParams) }, true},
	"prompts/list":              {"prompts", func() any { return new(mcp.ListPromptsParams) }, false},
	"prompts/get":               {"prompts", func() any { return new(mcp.GetPromptParams) }, true},
	"logging/setLevel":          {"logging", func() any { return new(mcp.SetLoggingLevelParams) }, true}, //nolint:staticcheck // deprecated in 2026-07-28 (SEP-2577), not gone
	"completion/complete":       {"completions", func() any { return new(mcp.CompleteParams) }, true},
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

// Check reports whether req is of MCP 2026-07-28 (its protocol version in
// _meta, an MCP-Protocol-Version header of that revision or later, "" on
// stdio, or server/discover), and refuses what go-sdk would refuse in its
// decoder's words, quoting the params whole, or as another revision: a
// modern request without a version (-32602) or at one not served
// (-32022), a method not served (-32601), params not of the method's
// shape (-32602).
func (ms Methods) Check(req *jsonrpc.Request, header string) (modern bool, err error) {
	version, hasVersion := metaVersion(req)
	modern = hasVersion || header >= ModernVersion || req.Method == "server/discover"
	m, known := methods[req.Method]
	var p any
	if known {
		p = m.params()
	}
	notification := strings.HasPrefix(req.Method, "notifications/")
	switch kind := kind(req.Params); {
	case req.IsCall() && notification: // go-sdk would act on it, and answer another request (code 0)
		return modern, Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %q is a notification: send it without an id", Cut(req.Method, MaxQuote))
	case !req.IsCall() && known && !notification:
		return modern, Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %q is a request: give it an id", req.Method)
	case modern && version == "":
		return modern, Errorf(jsonrpc.CodeInvalidParams, `invalid params: %s params must carry the protocol version in "_meta": `+
			`{%q: %q}, with the client's capabilities in %q`, Cut(req.Method, MaxQuote), mcp.MetaKeyProtocolVersion, ModernVersion, mcp.MetaKeyClientCapabilities)
	case hasVersion && header != "" && header != version: // MCP 2026-07-28, Streamable HTTP
		return modern, Errorf(mcp.CodeHeaderMismatch, "header mismatch: the MCP-Protocol-Version header %q differs from %q in _meta",
			Cut(header, MaxQuote), Cut(version, MaxQuote))
	case modern && version != ModernVersion:
		return modern, unsupported(version)
	case !known:
		return modern, Errorf(jsonrpc.CodeMethodNotFound, "method not found: %q", Cut(req.Method, MaxQuote))
	case !ms[req.Method]:
		return modern, Errorf(jsonrpc.CodeMethodNotFound, "method not found: %q (this server does not advertise the %s capability)",
			req.Method, m.capability)
	case (kind == "nothing" || kind == "null") && m.required:
		return modern, Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s needs params, a JSON object", req.Method)
	case kind != "an object" && kind != "nothing" && kind != "null":
		return modern, Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s params must be a JSON object, not %s", req.Method, kind)
	}
	if _, err := segjson.Parse(req.Params, p, segjson.DontMatchCaseInsensitiveStructFields|segjson.ZeroCopy); err != nil && len(req.Params) > 0 {
		var typeErr *segjson.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			t := typeErr.Type
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			found, _ := strconv.Unquote(typeErr.Value) // the start of the value, quoted
			if (t.Kind() == reflect.Float64 || t.Kind() == reflect.Interface) && kind([]byte(found)) == "a number" {
				// A number, where one may be, that a float64 does not hold.
				return modern, Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s params: %q is %s, out of range: "+
					"a number here must be within ±%.1e", req.Method, typeErr.Field, Cut(found, MaxQuote), math.MaxFloat64)
			}
			return modern, Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s params: %q must be %s, not %s",
				req.Method, typeErr.Field, cmp.Or(goKinds[t.Kind()], "a number"), kind([]byte(found)))
		}
		return modern, Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s params do not have the shape the MCP schema gives them", req.Method)
	}
	return modern, nil
}

// goKinds name the JSON values that decode into Go values of each kind.
var goKinds = map[reflect.Kind]string{reflect.String: "a string", reflect.Bool: "a boolean", reflect.Slice: "an array",
	reflect.Map: "an object", reflect.Struct: "an object", reflect.Interface: "a JSON value"}

// metaVersion returns the protocol version in a call's _meta ("" if it is
// not a string), and whether there is one, as go-sdk reads it.
func metaVersion(req *jsonrpc.Request) (string, bool) {
	if !req.IsCall() {
		return "", false
	}
	var p struct {
		Meta struct {
			Version json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"` // mcp.MetaKeyProtocolVersion
		} `json:"_meta"`
	}
	if _, err := segjson.Parse(req.Params, &p, segjson.DontMatchCaseInsensitiveStructFields); err != nil || p.Meta.Version == nil {
		return "", false
	}
	var version string
	_ = json.Unmarshal(p.Meta.Version, &version) // "" if not a string
	return version, true
}

// unsupported is the error for a modern request at a version not served,
// listing those served (MCP 2026-07-28, "Versioning").
func unsupported(version string) error {
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

// Handshake refuses a request of a 2025 session that misuses initialize:
// a second initialize, or a request before the first but ping. go-sdk
// v1.8.0 answers both with code 0 (go-sdk#976). Once fixed: delete it.
func Handshake(method string, initialized bool) error {
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

// KeptOfInitialize returns what a session keeps of initialize params: the
// protocol version, the client's capabilities of the specification, and
// its name and version. go-sdk keeps the params whole for the session's
// life: 8 MiB of capabilities.experimental would stay with every session.
func KeptOfInitialize(params json.RawMessage) json.RawMessage {
	var p mcp.InitializeParams
	if json.Unmarshal(params, &p) != nil {
		return params // Check has refused it
	}
	p.Meta = nil
	if p.Capabilities != nil {
		p.Capabilities.Experimental, p.Capabilities.Extensions = nil, nil
	}
	if p.ClientInfo != nil {
		p.ClientInfo = &mcp.Implementation{Name: Cut(p.ClientInfo.Name, maxKept), Version: Cut(p.ClientInfo.Version, maxKept)}
	}
	kept, _ := json.Marshal(&p) // what was decoded encodes
	return kept
}
