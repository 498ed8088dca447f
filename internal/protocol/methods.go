package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// ModernVersion is the first MCP revision without an initialize handshake,
// where each request carries its protocol version in _meta (SEP-2575).
const ModernVersion = "2026-07-28"

// Versions are the MCP revisions served, newest first: go-sdk v1.8.0's.
var Versions = mcp.SupportedProtocolVersions()

// An Era is the protocol a request is served under.
type Era uint8

// The eras: Legacy requests follow an initialize handshake (2024-11-05 to
// 2025-11-25); Modern ones each carry their version in _meta.
const (
	Legacy Era = 1 << iota
	Modern
)

// methods are what a client may send (MCP 2026-07-28 and 2025-11-25,
// "Schema"): the eras of each, the capability the server must advertise to
// serve it, and its params.
var methods = map[string]struct {
	eras       Era
	capability string
	params     func() any // a new value of the params' type; nil: no params to check
	required   bool       // whether params must be present
}{
	"initialize":                {Legacy, "", func() any { return new(mcp.InitializeParams) }, true},
	"ping":                      {Legacy, "", func() any { return new(mcp.PingParams) }, false},
	"server/discover":           {Modern, "", func() any { return new(mcp.DiscoverParams) }, false},
	"notifications/initialized": {Legacy, "", nil, false},
	"notifications/cancelled":   {Legacy | Modern, "", func() any { return new(mcp.CancelledParams) }, true},
	"notifications/progress":    {Legacy | Modern, "", nil, false},
	"tools/list":                {Legacy | Modern, "tools", func() any { return new(mcp.ListToolsParams) }, false},
	"tools/call":                {Legacy | Modern, "tools", func() any { return new(mcp.CallToolParamsRaw) }, true},
	"resources/list":            {Legacy | Modern, "resources", func() any { return new(mcp.ListResourcesParams) }, false},
	"resources/templates/list":  {Legacy | Modern, "resources", func() any { return new(mcp.ListResourceTemplatesParams) }, false},
	"resources/read":            {Legacy | Modern, "resources", func() any { return new(mcp.ReadResourceParams) }, true},
	"resources/subscribe":       {Legacy, "resources.subscribe", func() any { return new(mcp.SubscribeParams) }, true},
	"resources/unsubscribe":     {Legacy, "resources.subscribe", func() any { return new(mcp.UnsubscribeParams) }, true},
	"subscriptions/listen":      {Modern, "listChanged", func() any { return new(mcp.SubscriptionsListenParams) }, true},
	"prompts/list":              {Legacy | Modern, "prompts", func() any { return new(mcp.ListPromptsParams) }, false},
	"prompts/get":               {Legacy | Modern, "prompts", func() any { return new(mcp.GetPromptParams) }, true},
	"logging/setLevel":          {Legacy, "logging", func() any { return new(mcp.SetLoggingLevelParams) }, true}, //nolint:staticcheck // deprecated in 2026-07-28 (SEP-2577), not gone
	"completion/complete":       {Legacy | Modern, "completions", func() any { return new(mcp.CompleteParams) }, true},
}

// advertises reports whether caps advertise the named capability.
func advertises(caps *mcp.ServerCapabilities, capability string) bool {
	switch capability {
	case "":
		return true
	case "tools":
		return caps.Tools != nil
	case "resources":
		return caps.Resources != nil
	case "resources.subscribe":
		return caps.Resources != nil && caps.Resources.Subscribe
	case "prompts":
		return caps.Prompts != nil
	case "logging":
		return caps.Logging != nil //nolint:staticcheck // deprecated in 2026-07-28 (SEP-2577), not gone
	case "completions":
		return caps.Completions != nil
	case "listChanged":
		return caps.Tools != nil && caps.Tools.ListChanged || caps.Prompts != nil && caps.Prompts.ListChanged ||
			caps.Resources != nil && (caps.Resources.ListChanged || caps.Resources.Subscribe)
	}
	return false
}

// Methods are the methods a server answers, with the eras of each.
type Methods map[string]Era

// Served returns the methods a server advertising caps answers: those of
// the lifecycle and of each capability. Others do not exist (-32601; MCP
// 2025-11-25, "Capability negotiation"), whatever go-sdk would answer.
func Served(caps *mcp.ServerCapabilities) Methods {
	ms := Methods{}
	for name, m := range methods {
		if advertises(caps, m.capability) {
			ms[name] = m.eras
		}
	}
	return ms
}

// Check returns the era of m, and the error refusing it, if any, in this
// order: a modern request without its protocol version (-32602), or whose
// MCP-Protocol-Version header (header; "" on stdio) differs from it
// (-32020), or with a version not served (-32022); a method not served in
// its era (-32601); params not of the method's shape (-32602). A request is
// modern if it has a version in _meta, or a header of ModernVersion or
// later, or a method only modern (server/discover).
func (ms Methods) Check(m *Message, header string) (Era, error) {
	version, hasVersion := metaVersion(m.Params)
	era := Legacy
	if hasVersion || header >= ModernVersion || methods[m.Method].eras == Modern {
		era = Modern
	}
	if era == Modern {
		switch {
		case version == "":
			return era, Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s params must carry the protocol version in "+
				`"_meta": {%q: %q}, with the client's capabilities in %q`,
				m.Method, mcp.MetaKeyProtocolVersion, ModernVersion, mcp.MetaKeyClientCapabilities)
		case header != "" && header != version:
			return era, Errorf(mcp.CodeHeaderMismatch, "header mismatch: the MCP-Protocol-Version header %q differs from %q in _meta",
				cut([]byte(header)), cut([]byte(version)))
		case version < ModernVersion || !slices.Contains(Versions, version):
			return era, unsupported(version)
		}
	}
	if eras, served := ms[m.Method]; !served || eras&era == 0 {
		return era, methodNotFound(m.Method, era)
	}
	return era, checkParams(m)
}

// metaVersion returns the protocol version in params' _meta ("" if not a
// string), and whether there is one.
func metaVersion(params json.RawMessage) (string, bool) {
	// Most requests carry no version: look for its key before decoding,
	// unless an escape (protocolVersio\u006e) could hide it.
	if !bytes.Contains(params, []byte(mcp.MetaKeyProtocolVersion)) && bytes.IndexByte(params, '\\') < 0 {
		return "", false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if _, err := segjson.Parse(params, &p, segjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return "", false
	}
	raw, ok := p.Meta[mcp.MetaKeyProtocolVersion]
	version, _ := stringValue(raw)
	return version, ok
}

// methodNotFound is the error for a method the server does not serve in era.
func methodNotFound(method string, era Era) error {
	m, known := methods[method]
	switch {
	case known && era == Modern && m.eras == Legacy:
		return Errorf(jsonrpc.CodeMethodNotFound, "method not found: %q is not part of MCP %s, "+
			"where each request carries its protocol version in _meta and there is no initialize handshake", method, ModernVersion)
	case known && m.capability != "":
		return Errorf(jsonrpc.CodeMethodNotFound, "method not found: %q (this server does not advertise the %s capability)",
			method, m.capability)
	}
	return Errorf(jsonrpc.CodeMethodNotFound, "method not found: %q", cut([]byte(method)))
}

// unsupported is the error for a modern request at a version not served,
// listing those served (MCP 2026-07-28, "Versioning").
func unsupported(version string) error {
	data, err := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: Versions, Requested: version})
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("unsupported protocol version %q: requests that carry their version in _meta are served at %s",
		cut([]byte(version)), ModernVersion)
	if slices.Contains(Versions, version) {
		msg += "; " + version + " is served after an initialize handshake"
	}
	return &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: msg, Data: data}
}

// checkParams checks that m's params decode as go-sdk will decode them, so
// that it never answers with a decoder's message, or code 0 (go-sdk#976).
func checkParams(m *Message) error {
	method := methods[m.Method]
	switch kind := Kind(m.Params); {
	case kind == "nothing" || kind == "null":
		if method.required {
			return Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s needs params, a JSON object", m.Method)
		}
		return nil
	case kind != "an object":
		return Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s params must be a JSON object, not %s", m.Method, kind)
	case method.params == nil:
		return nil
	}
	// ZeroCopy: the value is only checked, and dropped.
	_, err := segjson.Parse(m.Params, method.params(), segjson.DontMatchCaseInsensitiveStructFields|segjson.ZeroCopy)
	var typeErr *segjson.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		// Value is the start of the JSON text that failed, quoted.
		found, _ := strconv.Unquote(typeErr.Value)
		return Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s params: %q must be %s, not %s",
			m.Method, typeErr.Field, kindOf(typeErr.Type), Kind([]byte(found)))
	case err != nil:
		return Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s params do not have the shape the MCP schema gives them", m.Method)
	}
	return nil
}

// kindOf names the kind of JSON value that decodes into a value of type t.
func kindOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Interface:
		return "a JSON value"
	}
	return "a number"
}
