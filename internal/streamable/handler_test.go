package streamable

// Tests of the route: both eras on one endpoint, and every refusal a
// JSON-RPC error.

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/internal/protocol"
)

// TestBothEras: one endpoint serves a legacy session and modern requests.
func TestBothEras(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	r := do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"legacy"}}}`,
		"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25")
	assert.Equal(t, http.StatusOK, r.status)
	assert.Contains(t, string(r.result), "legacy", r.body)

	r = do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"modern"},`+modernMeta+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo")
	assert.Equal(t, http.StatusOK, r.status, r.body)
	assert.Contains(t, string(r.result), `"resultType":"complete"`, r.body)
	assert.Empty(t, r.header.Get("Mcp-Session-Id"), "a modern request gets no session")
}

// TestErrorsAreJSONRPC: every refusal is a JSON-RPC error response, with
// the request's id when it has one, under the status the transport
// specifies, where go-sdk and net/http would answer in plain text.
func TestErrorsAreJSONRPC(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	root := strings.TrimSuffix(s.url, Path)
	tests := []struct {
		name, method, url, body string
		header                  []string
		status                  int
		code                    int64
		id, msg                 string
	}{
		{"not JSON", "POST", s.url, `garbage`, nil, 400, -32700, "null", "parse error"},
		{"a batch", "POST", s.url, `[` + initialize + `]`, nil, 400, -32600, "null", "batches are not supported"},
		{"no session", "POST", s.url, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, nil, 400, -32600, "5", "before initialize: send initialize first (over HTTP, then the Mcp-Session-Id header"},
		{"unknown session", "POST", s.url, `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`, []string{"Mcp-Session-Id", "nope"},
			404, -32600, "6", "session not found: it has ended"},
		{"second initialize", "POST", s.url, initialize, []string{"Mcp-Session-Id", sid}, 400, -32600, "1", "initialized already"},
		{"a notification without a session", "POST", s.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, 400, -32600, "null",
			"before initialize: send initialize first"},
		{"unknown method, legacy", "POST", s.url, `{"jsonrpc":"2.0","id":7,"method":"resources/list"}`, []string{"Mcp-Session-Id", sid},
			200, -32601, "7", "does not advertise the resources capability"},
		{"bad params, legacy", "POST", s.url, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":5}}`, []string{"Mcp-Session-Id", sid},
			200, -32602, "8", `"name" must be a string`},
		{"wrong Content-Type", "POST", s.url, initialize, []string{"Content-Type", "text/plain"}, 415, -32600, "1", "Content-Type must be 'application/json'"},
		{"GET without a session", "GET", s.url, ``, []string{"Accept", "text/event-stream"}, 400, -32600, "null", "Mcp-Session-Id"},
		{"GET with a body", "GET", s.url, `{}`, nil, 400, -32600, "null", "a GET to /mcp has no body"},
		{"post in lower case", "post", s.url, initialize, nil, 405, -32600, "null", `"post" is not a method of /mcp: use POST`},
		{"a method of 60,000 bytes", strings.Repeat("M", 60_000), s.url, initialize, nil, 405, -32600, "null", "is not a method of /mcp"},
		{"unknown method, modern", "POST", s.url, `{"jsonrpc":"2.0","id":9,"method":"unknown/method","params":{` + modernMeta + `}}`,
			[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "unknown/method"}, 404, -32601, "9", "method not found"},
		{"ping, modern (removed in 2026-07-28)", "POST", s.url, `{"jsonrpc":"2.0","id":10,"method":"ping","params":{` + modernMeta + `}}`,
			[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "ping"}, 404, -32601, "10", ""},
		{"unsupported version", "POST", s.url, `{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			[]string{"MCP-Protocol-Version", "v999.0.0", "Mcp-Method", "server/discover"}, 400, -32022, "11", "unsupported protocol version"},
		{"header mismatch", "POST", s.url, `{"jsonrpc":"2.0","id":12,"method":"tools/list","params":{` + modernMeta + `}}`,
			[]string{"MCP-Protocol-Version", "2099-01-01", "Mcp-Method", "tools/list"}, 400, -32020, "12", "header mismatch"},
		{"Mcp-Name differs from a long name", "POST", s.url, `{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"` +
			strings.Repeat("n", 1<<20) + `",` + modernMeta + `}}`, []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call",
			"Mcp-Name", "echo"}, 400, -32020, "15", "header mismatch: Mcp-Name header value 'echo'"},
		{"a notification with an id", "POST", s.url, `{"jsonrpc":"2.0","id":16,"method":"notifications/cancelled","params":{"requestId":1}}`,
			[]string{"Mcp-Session-Id", sid}, 200, -32600, "16", "is a notification: send it without an id"},
		{"no _meta, modern", "POST", s.url, `{"jsonrpc":"2.0","id":13,"method":"server/discover","params":{}}`,
			[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover"}, 400, -32602, "13", "must carry the protocol version"},
		{"foreign Host", "POST", s.url, initialize, []string{"Host", "evil.example"}, 403, -32600, "null", "is not a loopback name (a DNS rebinding attack?)"},
		{"foreign Host, other path", "GET", root + "/", ``, []string{"Host", "evil.example"}, 403, -32600, "null", "DNS rebinding"},
		{"foreign Origin", "POST", s.url, initialize, []string{"Origin", "http://evil.example"}, 403, -32600, "null", "another site"},
		{"foreign Origin on GET", "GET", s.url, ``, []string{"Origin", "http://evil.example", "Accept", "text/event-stream", "Mcp-Session-Id", sid},
			403, -32600, "null", "another site"},
		{"nested too deep", "POST", s.url, `{"jsonrpc":"2.0","id":14,"method":"tools/list","params":` + strings.Repeat("[", 9_000) + strings.Repeat("]", 9_000) + `}`,
			[]string{"Mcp-Session-Id", sid}, 400, -32600, "14", "more than 64 levels deep"},
		{"too large", "POST", s.url, initialize + strings.Repeat(" ", MaxBodySize), nil, 413, -32600, "null", "message too large"},
		{"root path", "GET", root + "/", ``, nil, 404, -32600, "null", "this server serves MCP at /mcp"},
		{"path with a slash", "POST", s.url + "/", initialize, nil, 404, -32600, "null", "no MCP endpoint"},
		{"path in capitals", "POST", root + "/MCP", initialize, nil, 404, -32600, "null", "no MCP endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, tt.method, tt.url, tt.body, tt.header...)
			assert.Equal(t, tt.status, r.status, "%s: %s", tt.name, r.body)
			assert.Equal(t, tt.code, r.code, "%s: %s", tt.name, r.body)
			assert.JSONEq(t, tt.id, string(r.id), "%s: %s", tt.name, r.body)
			assert.Contains(t, r.message, tt.msg, "%s", tt.name)
			assert.Less(t, len(r.body), 1000, "%s: the reply quotes too much", tt.name)
		})
	}
}

// TestLimitsPage: docs/limits.md states this package's limits that the
// root package's test does not.
func TestLimitsPage(t *testing.T) {
	page, err := os.ReadFile("../../docs/limits.md")
	require.NoError(t, err)
	for _, want := range []string{
		fmt.Sprintf("quote at most %d bytes of what the client sent", protocol.MaxQuote),
		fmt.Sprintf("past the first %d KiB of each (`SmallBodySize`)", SmallBodySize>>10),
		fmt.Sprintf("`Keep-Alive: timeout=%d`", idleHint/time.Second),
		fmt.Sprintf("once it has waited %v s (`ConnGrace`", ConnGrace.Seconds()),
		fmt.Sprintf("up to %d MiB more of it (`MaxDrain`)", MaxDrain>>20),
	} {
		assert.Contains(t, string(page), want)
	}
}

// TestInitializeKept: a session keeps what it acts on of initialize, not
// its params whole, and the version agreed, not the one asked.
func TestInitializeKept(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":"1"},` +
		`"capabilities":{"roots":{},"experimental":{"x":"` + strings.Repeat("x", 1<<20) + `"}}}}`
	r := do(t, http.MethodPost, s.url, big)
	require.Equal(t, http.StatusOK, r.status, r.body)
	for ss := range s.server.Sessions() {
		p := ss.InitializeParams()
		require.NotNil(t, p)
		assert.Equal(t, "2025-11-25", p.ProtocolVersion)
		assert.Nil(t, p.Capabilities.Experimental, "capabilities.experimental, kept for the session's life")
	}

	// One shape per revision agreed: asked 2099-01-01, agreed at 2025-11-25,
	// a session's results are of 2025-11-25's shape, without resultType.
	r = do(t, http.MethodPost, s.url, strings.Replace(initialize, "2025-11-25", "2099-01-01", 1))
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Contains(t, string(r.result), `"protocolVersion":"2025-11-25"`)
	r = do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"}}}`,
		"Mcp-Session-Id", r.header.Get("Mcp-Session-Id"))
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.NotContains(t, string(r.result), "resultType", "a result of 2026-07-28's shape in a session agreed at 2025-11-25")
}

// TestNotifications: a notification is accepted with 202, served or not.
func TestNotifications(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	for _, note := range []string{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","method":"no/such/notification"}`} {
		r := do(t, http.MethodPost, s.url, note, "Mcp-Session-Id", sid)
		assert.Equal(t, http.StatusAccepted, r.status, "%s: %s", note, r.body)
	}
}

// TestNotificationsAccepted: a notification is never answered; one that
// carries a protocol version in _meta, which only a request carries, and a
// cancellation without a session (it may name a request of 2026-07-28,
// which has none) are accepted, and dropped.
func TestNotificationsAccepted(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	for _, tt := range []struct{ body, header string }{
		{`{"jsonrpc":"2.0","method":"notifications/initialized","params":{` + modernMeta + `}}`, "2026-07-28"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized","params":{` + modernMeta + `}}`, "2099-01-01"},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, ""},
	} {
		r := do(t, http.MethodPost, s.url, tt.body, "MCP-Protocol-Version", tt.header)
		assert.Equal(t, http.StatusAccepted, r.status, "%s, header %q: %s", tt.body, tt.header, r.body)
		assert.Empty(t, r.body, "%s, header %q", tt.body, tt.header)
	}
}

// TestModernIgnoresSession: a 2026-07-28 request that carries a 2025
// session's Mcp-Session-Id is served as any other 2026-07-28 request (MCP
// 2026-07-28 has servers ignore the header): it shares neither the
// session's ids in flight nor its cancellations, and gets no session.
func TestModernIgnoresSession(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	legacy := make(chan response, 1)
	go func() {
		legacy <- do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`, "Mcp-Session-Id", sid)
	}()
	receive(t, s.held, "the 2025 call's start")
	modern := func(id int, tool string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"message":"modern"},`+modernMeta+`}}`, id, tool)
	}
	headers := func(tool string) []string {
		return []string{"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool}
	}
	r := do(t, http.MethodPost, s.url, modern(7, "echo"), headers("echo")...)
	assert.Equal(t, http.StatusOK, r.status, r.body)
	assert.Contains(t, string(r.result), "modern", "the id in use by the 2025 call: %s", r.body)
	assert.Empty(t, r.header.Get("Mcp-Session-Id"), "a 2026-07-28 answer names no session")

	held := make(chan response, 1)
	go func() { held <- do(t, http.MethodPost, s.url, modern(8, "hold"), headers("hold")...) }()
	receive(t, s.held, "the 2026-07-28 call's start")
	r = do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}`, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusAccepted, r.status, r.body)
	close(s.unhold)
	r = receive(t, held, "the 2026-07-28 call's answer")
	assert.Contains(t, string(r.result), "modern", "the session's cancellation of id 8: %s", r.body)

	do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, "Mcp-Session-Id", sid)
	assert.Contains(t, receive(t, legacy, "the 2025 call's answer").message, "request cancelled")
}
