package streamable

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/internal/protocol"
)

const (
	initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

// startServer serves a server with the tools echo and sleep through a Handler with
// opts, and returns its URL.
func startServer(t *testing.T, opts Options) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Message string `json:"message"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Milliseconds int `json:"milliseconds"`
	}) (*mcp.CallToolResult, any, error) {
		time.Sleep(time.Duration(in.Milliseconds) * time.Millisecond)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "awake"}}}, nil, nil
	})
	opts.Methods = protocol.Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})
	srv := httptest.NewServer(NewHandler(s, opts))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A response is what the handler answered.
type response struct {
	status  int
	header  http.Header
	body    string
	message struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
}

// do sends a request with the headers of a Streamable HTTP client, plus
// header (pairs of name and value; "Content-Type" replaces the default).
func do(t *testing.T, method, url, body string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	r := response{status: resp.StatusCode, header: resp.Header, body: string(data)}
	if len(data) > 0 {
		require.NoError(t, json.Unmarshal(data, &r.message), "%s %s: the body is not JSON: %s", method, url, data)
		require.Equal(t, "application/json", resp.Header.Get("Content-Type"), "%s %s: %s", method, url, data)
	}
	if r.message.Error != nil {
		assert.True(t, protocol.IsSpecCode(r.message.Error.Code), "%s %s: a code no specification assigns: %s", method, url, data)
	}
	return r
}

// session starts a legacy session and returns its id.
func session(t *testing.T, url string) string {
	t.Helper()
	r := do(t, http.MethodPost, url, initialize)
	require.Equal(t, http.StatusOK, r.status, "initialize: %s", r.body)
	id := r.header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id, "initialize returned no Mcp-Session-Id")
	return id
}

// TestBothEras: one endpoint serves a legacy session and modern requests.
func TestBothEras(t *testing.T) {
	url := startServer(t, Options{})
	sid := session(t, url)
	r := do(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"legacy"}}}`,
		"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25")
	assert.Equal(t, http.StatusOK, r.status)
	assert.Contains(t, string(r.message.Result), "legacy", r.body)

	r = do(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"modern"},`+modernMeta+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo")
	assert.Equal(t, http.StatusOK, r.status, r.body)
	assert.Contains(t, string(r.message.Result), `"resultType":"complete"`, r.body)
	assert.Empty(t, r.header.Get("Mcp-Session-Id"), "a modern request gets no session")

	r = do(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{`+modernMeta+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover")
	assert.Equal(t, http.StatusOK, r.status, r.body)
	assert.Contains(t, string(r.message.Result), `"supportedVersions":["2026-07-28"`, r.body)
}

// TestErrorsAreJSONRPC: every refusal is a JSON-RPC error response with the
// request's id when it has one, under the status the transport specifies,
// where go-sdk's handler would answer in plain text.
func TestErrorsAreJSONRPC(t *testing.T) {
	url := startServer(t, Options{})
	sid := session(t, url)
	tests := []struct {
		name, method, body string
		header             []string
		status             int
		code               int64
		id, msg            string
	}{
		{"not JSON", "POST", `garbage`, nil, 400, -32700, "null", "parse error"},
		{"a batch", "POST", `[` + initialize + `]`, nil, 400, -32600, "null", "batches are not supported"},
		{"no session", "POST", `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, nil, 400, -32600, "5", "no Mcp-Session-Id header"},
		{"unknown session", "POST", `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`, []string{"Mcp-Session-Id", "nope"},
			404, -32600, "6", "the session has ended"},
		{"unknown method, legacy", "POST", `{"jsonrpc":"2.0","id":7,"method":"resources/list"}`, []string{"Mcp-Session-Id", sid},
			200, -32601, "7", "does not advertise the resources capability"},
		{"bad params, legacy", "POST", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":5}}`, []string{"Mcp-Session-Id", sid},
			200, -32602, "8", `"name" must be a string`},
		{"wrong Content-Type", "POST", initialize, []string{"Content-Type", "text/plain"}, 415, -32600, "1", "Content-Type must be 'application/json'"},
		{"GET without a session", "GET", ``, []string{"Accept", "text/event-stream"}, 400, -32600, "null", "Mcp-Session-Id"},
		{"unknown method, modern", "POST", `{"jsonrpc":"2.0","id":9,"method":"unknown/method","params":{` + modernMeta + `}}`,
			[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "unknown/method"}, 404, -32601, "9", "method not found"},
		{"removed method, modern", "POST", `{"jsonrpc":"2.0","id":10,"method":"ping","params":{` + modernMeta + `}}`,
			[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "ping"}, 404, -32601, "10", "not part of MCP 2026-07-28"},
		{"unsupported version", "POST", `{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			[]string{"MCP-Protocol-Version", "v999.0.0", "Mcp-Method", "server/discover"}, 400, -32022, "11", "unsupported protocol version"},
		{"header mismatch", "POST", `{"jsonrpc":"2.0","id":12,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0"}}}`,
			[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover"}, 400, -32020, "12", "header mismatch"},
		{"no _meta, modern", "POST", `{"jsonrpc":"2.0","id":13,"method":"server/discover","params":{}}`,
			[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover"}, 400, -32602, "13", "must carry the protocol version"},
		{"foreign Host", "POST", initialize, []string{"Host", "evil.example"}, 403, -32600, "null", "DNS rebinding"},
		{"foreign Origin", "POST", initialize, []string{"Origin", "http://evil.example"}, 403, -32600, "null", "another site"},
		{"foreign Origin on GET", "GET", ``, []string{"Origin", "http://evil.example", "Accept", "text/event-stream", "Mcp-Session-Id", sid},
			403, -32600, "null", "another site"},
		{"nested too deep", "POST", `{"jsonrpc":"2.0","id":14,"method":"tools/list","params":` + strings.Repeat("[", 2_000_000) + `}`,
			[]string{"Mcp-Session-Id", sid}, 400, -32600, "14", "more than 64 levels deep"},
		{"too large", "POST", initialize + strings.Repeat(" ", 8<<20), nil, 413, -32600, "null", "message too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := tt.header
			var host string
			for i := 0; i+1 < len(header); i += 2 {
				if header[i] == "Host" {
					host = header[i+1]
				}
			}
			r := doWithHost(t, tt.method, url, tt.body, host, header...)
			assert.Equal(t, tt.status, r.status, "%s: %s", tt.name, r.body)
			require.NotNil(t, r.message.Error, "%s: want a JSON-RPC error, got %s", tt.name, r.body)
			assert.Equal(t, tt.code, r.message.Error.Code, "%s: %s", tt.name, r.body)
			assert.JSONEq(t, tt.id, string(r.message.ID), "%s: %s", tt.name, r.body)
			assert.Contains(t, r.message.Error.Message, tt.msg, "%s", tt.name)
		})
	}
}

// doWithHost is do, with the Host header set to host if it is not "".
func doWithHost(t *testing.T, method, url, body, host string, header ...string) response {
	t.Helper()
	if host == "" {
		return do(t, method, url, body, header...)
	}
	// The Host header is not a header to net/http: dial the server, and ask for host.
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, strings.TrimPrefix(url, "http://"))
	}}
	defer tr.CloseIdleConnections()
	old := http.DefaultClient.Transport
	http.DefaultClient.Transport = tr
	defer func() { http.DefaultClient.Transport = old }()
	return do(t, method, "http://"+host, body, header...)
}

// TestNotifications: a notification is accepted with 202, served or not.
func TestNotifications(t *testing.T) {
	url := startServer(t, Options{})
	sid := session(t, url)
	for _, note := range []string{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","method":"no/such/notification"}`} {
		r := do(t, http.MethodPost, url, note, "Mcp-Session-Id", sid)
		assert.Equal(t, http.StatusAccepted, r.status, "%s: %s", note, r.body)
	}
}

// TestDeleteSession: a session the client deletes is gone.
func TestDeleteSession(t *testing.T) {
	url := startServer(t, Options{})
	sid := session(t, url)
	r := do(t, http.MethodDelete, url, ``, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusNoContent, r.status, r.body)
	r = do(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusNotFound, r.status, r.body)
}

// TestMaxSessions: past MaxSessions, a new session ends the one idle the
// longest.
func TestMaxSessions(t *testing.T) {
	url := startServer(t, Options{MaxSessions: 2})
	first, second := session(t, url), session(t, url)
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	assert.Equal(t, http.StatusOK, do(t, http.MethodPost, url, list, "Mcp-Session-Id", first).status, "first is used last")
	session(t, url) // a third
	assert.Equal(t, http.StatusNotFound, do(t, http.MethodPost, url, list, "Mcp-Session-Id", second).status,
		"the session idle the longest has ended")
	assert.Equal(t, http.StatusOK, do(t, http.MethodPost, url, list, "Mcp-Session-Id", first).status)
}

// TestSlowBody: a body that takes longer than BodyTimeout to arrive is
// answered with 408, and its connection freed.
func TestSlowBody(t *testing.T) {
	url := startServer(t, Options{BodyTimeout: 200 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	_, err = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	reply, err := io.ReadAll(conn)
	require.NoError(t, err, "the server did not close the connection")
	assert.Contains(t, string(reply), "HTTP/1.1 408")
	assert.Contains(t, string(reply), "the body did not arrive within 200ms")
}

// TestInFlightBound: POSTs beyond MaxInFlightSize wait for room, and get
// 503 if none is made within BodyTimeout.
func TestInFlightBound(t *testing.T) {
	// Each POST counts for at least minPOSTWeight: one at a time.
	url := startServer(t, Options{MaxInFlightSize: minPOSTWeight, BodyTimeout: 300 * time.Millisecond})
	sid := session(t, url)
	var wg sync.WaitGroup
	wg.Go(func() {
		r := do(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"milliseconds":1000}}}`,
			"Mcp-Session-Id", sid)
		assert.Equal(t, http.StatusOK, r.status, r.body)
	})
	time.Sleep(100 * time.Millisecond)
	r := do(t, http.MethodPost, url, initialize)
	assert.Equal(t, http.StatusServiceUnavailable, r.status, r.body)
	assert.Equal(t, "1", r.header.Get("Retry-After"))
	wg.Wait()
	assert.Equal(t, http.StatusOK, do(t, http.MethodPost, url, initialize).status, "room is made once the first is answered")
}

// TestRefusedDeleteStillCounts: a DELETE the SDK refuses (here, sent as a
// 2026-07-28 request, which has no sessions) leaves the session alive, and
// counted against MaxSessions.
func TestRefusedDeleteStillCounts(t *testing.T) {
	url := startServer(t, Options{MaxSessions: 2})
	first, second := session(t, url), session(t, url)
	r := do(t, http.MethodDelete, url, ``, "Mcp-Session-Id", first, "MCP-Protocol-Version", "2026-07-28")
	assert.NotEqual(t, http.StatusNoContent, r.status, r.body)
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	assert.Equal(t, http.StatusOK, do(t, http.MethodPost, url, list, "Mcp-Session-Id", second).status)
	session(t, url) // a third ends the first, idle the longest
	assert.Equal(t, http.StatusNotFound, do(t, http.MethodPost, url, list, "Mcp-Session-Id", first).status,
		"a session the client failed to delete is still counted")
}

// TestUnreadReply: a reply its client does not read ends its connection
// after WriteTimeout, and its room in MaxInFlightSize is freed.
func TestUnreadReply(t *testing.T) {
	// Room for the call, and not for another POST beside it.
	url := startServer(t, Options{MaxInFlightSize: 2<<20 + 128<<10, WriteTimeout: 300 * time.Millisecond, BodyTimeout: 15 * time.Second})
	sid := session(t, url)
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` +
		strings.Repeat("<", 2<<20) + `"}}}` // a reply of 12 MB (\u003c), more than sockets hold
	_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s", sid, len(call), call)
	require.NoError(t, err) // and never read the reply
	time.Sleep(200 * time.Millisecond)
	r := do(t, http.MethodPost, url, initialize) // waits for room, at most BodyTimeout
	assert.Equal(t, http.StatusOK, r.status, "the unread reply held the room: %s", r.body)
}
