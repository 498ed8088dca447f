package streamable

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/semaphore"

	"mcp-hello-tools/internal/protocol"
)

// The tests here order events by what the server does, never by time: each
// wait ends at once when the server is right; failAfter is for failures.

const (
	initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	failAfter  = 10 * time.Second
)

// A testServer is a Handler serving a server with the tools echo; hold,
// which says it started on held, and answers when unhold is closed; and
// wait, which says it started on held, and fails once cancelled.
type testServer struct {
	*Handler
	url    string // of Path
	host   string // host:port
	server *mcp.Server
	held   chan struct{}
	unhold chan struct{}
	notes  chan string // the notifications go-sdk receives, in order
	// endRequests ends the requests' base context, as http.go's shutdown
	// does once it stops waiting for them.
	endRequests context.CancelFunc
}

func start(t *testing.T, configure func(*Handler)) *testServer {
	t.Helper()
	s := &testServer{held: make(chan struct{}, 100), unhold: make(chan struct{}), notes: make(chan string, 100)}
	s.server = mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	type args struct {
		Message string `json:"message"`
		Pad     string `json:"pad,omitempty"` // a body's size
	}
	mcp.AddTool(s.server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
	})
	mcp.AddTool(s.server, &mcp.Tool{Name: "hold"}, func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		s.held <- struct{}{}
		if in.Message == "big" { // a reply of 3 MB (\u003c), more than sockets of smallBuffers hold
			in.Message = strings.Repeat("<", 1<<19)
		} else {
			<-s.unhold
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
	})
	s.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if strings.HasPrefix(method, "notifications/") {
				s.notes <- method
			}
			return next(ctx, method, req)
		}
	})
	s.server.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.held <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err() // as go-sdk answers a request cancelled before it starts: code 0
	})
	s.Handler = NewHandler(s.server, protocol.Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}), slog.New(slog.DiscardHandler))
	if configure != nil {
		configure(s.Handler)
	}
	srv := httptest.NewUnstartedServer(s.Handler)
	srv.Config.ConnContext = ConnContext // as http.go has it
	base, endRequests := context.WithCancel(context.Background())
	srv.Config.BaseContext = func(net.Listener) context.Context { return base }
	s.endRequests = endRequests
	srv.Start()
	t.Cleanup(func() {
		select {
		case <-s.unhold:
		default:
			close(s.unhold)
		}
		srv.Close()
		endRequests()
	})
	s.host = strings.TrimPrefix(srv.URL, "http://")
	s.url = srv.URL + Path
	return s
}

// A response is what the handler answered.
type response struct {
	status  int
	header  http.Header
	body    string
	id      json.RawMessage
	result  json.RawMessage
	code    int64
	message string
}

// client is the tests' HTTP client: an answer that never ends, such as an
// event stream opened where a refusal was due, fails its test.
var client = &http.Client{Timeout: 2 * failAfter}

// hold posts call, a call of the tool "wait", in session sid, and returns
// once it has started, with the channel its response will come on.
func (s *testServer) hold(t *testing.T, sid, call string) <-chan response {
	t.Helper()
	done := make(chan response, 1)
	go func() { done <- do(t, http.MethodPost, s.url, call, "Mcp-Session-Id", sid) }()
	receive(t, s.held, "the call's start")
	return done
}

// receive returns what ch sends, or fails t if nothing comes within
// failAfter.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(failAfter):
		t.Fatalf("%s: nothing came within %v", what, failAfter)
	}
	var zero T
	return zero
}

// do sends a request with the headers of a Streamable HTTP client, plus
// header (pairs of name and value; "Host" sets the request's host).
func do(t *testing.T, method, url, body string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "%s %s: the body", method, url)
	r := response{status: resp.StatusCode, header: resp.Header, body: string(data)}
	if len(data) > 0 {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *jsonrpc.Error  `json:"error"`
		}
		require.NoError(t, json.Unmarshal(data, &m), "%s %s: the body is not JSON: %s", method, url, data)
		require.Equal(t, "application/json", resp.Header.Get("Content-Type"), "%s %s: %s", method, url, data)
		r.id, r.result = m.ID, m.Result
		if m.Error != nil {
			r.code, r.message = m.Error.Code, m.Error.Message
		}
	}
	return r
}

// session starts a legacy session and returns its id.
func (s *testServer) session(t *testing.T) string {
	t.Helper()
	r := do(t, http.MethodPost, s.url, initialize)
	require.Equal(t, http.StatusOK, r.status, "initialize: %s", r.body)
	id := r.header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id, "initialize returned no Mcp-Session-Id")
	return id
}

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

// TestStoppingRequests: once the server stops (Shutdown), a request still
// in flight when its base context ends, the wait for it over, is answered
// 503 as the server stopping: not 404, as a session that has ended, which
// tells a client to start anew. (A 2026-07-28 request is answered by the
// same case, go-sdk having written nothing, once go-sdk has waited for its
// handler to return: no signal tells the test that go-sdk has seen the
// context end before the handler returns, so it is left out.)
func TestStoppingRequests(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	done := s.hold(t, s.session(t), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"message":"m"}}}`)
	s.Shutdown()
	s.endRequests()
	r := receive(t, done, "the answer")
	assert.Equal(t, http.StatusServiceUnavailable, r.status, r.body)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), r.code, r.body)
	assert.Contains(t, r.message, "server stopping")
	assert.JSONEq(t, "2", string(r.id), r.body)
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

// TestLoopbackHosts: go-sdk's Host check, fed the host in lower case,
// takes every loopback name.
func TestLoopbackHosts(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	_, port, err := net.SplitHostPort(s.host)
	require.NoError(t, err)
	for _, host := range []string{"127.0.0.1", "localhost", "LOCALHOST", "LocalHost", "[::1]"} {
		r := do(t, http.MethodPost, s.url, initialize, "Host", host+":"+port)
		assert.Equal(t, http.StatusOK, r.status, "Host %s: %s", host, r.body)
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

// TestDeleteSession: a session the client deletes is gone, and counts no
// more against MaxSessions: the next session ends none.
func TestDeleteSession(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) { h.sessions.max = 2 })
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	kept, deleted := s.session(t), s.session(t)
	assert.Equal(t, http.StatusNoContent, do(t, http.MethodDelete, s.url, ``, "Mcp-Session-Id", deleted).status)
	assert.Equal(t, http.StatusNotFound, do(t, http.MethodPost, s.url, list, "Mcp-Session-Id", deleted).status)
	s.session(t) // two, with kept: none to end
	r := do(t, http.MethodPost, s.url, list, "Mcp-Session-Id", kept)
	assert.Equal(t, http.StatusOK, r.status, "a session ended for one deleted: %s", r.body)
}

// TestCancelledRequest: a request its client cancels gets no reply of
// go-sdk's (MCP: "Cancellation"), but its POST a JSON-RPC error with a code
// of the specification, whatever go-sdk answers. go-sdk answers one
// cancelled before it starts with code 0, outside any middleware; the tool
// wait fails the same way, once it has started, so no race is needed.
func TestCancelledRequest(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	for _, id := range []string{`"w"`, `7`} {
		done := make(chan response, 1)
		go func() {
			done <- do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"wait","arguments":{}}}`,
				"Mcp-Session-Id", sid)
		}()
		select {
		case <-s.held:
		case <-time.After(failAfter):
			t.Fatal("the call did not start")
		}
		r := do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`}}`, "Mcp-Session-Id", sid)
		assert.Equal(t, http.StatusAccepted, r.status, r.body)
		r = receive(t, done, "the cancelled call's answer")
		assert.Equal(t, http.StatusOK, r.status, "id %s: %s", id, r.body)
		assert.Equal(t, int64(jsonrpc.CodeInternalError), r.code, "id %s: %s", id, r.body)
		assert.Contains(t, r.message, "request cancelled", "id %s", id)
		assert.JSONEq(t, id, string(r.id), r.body)
	}
}

// TestIDInUse: a request that reuses the id of one in flight in its
// session is refused, as on stdio, and the cancellation of that id cancels
// the first: go-sdk, which looks a cancellation up by id, would otherwise
// cancel one request while this handler dropped the other's reply, and
// answer code 0.
func TestIDInUse(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`
	done := s.hold(t, sid, call)
	r := do(t, http.MethodPost, s.url, call, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), r.code, r.body)
	assert.Contains(t, r.message, "id 7 is in use by a request in flight")
	assert.JSONEq(t, "null", string(r.id), "under its own id, the refusal would be read as the first call's reply: %s", r.body)
	r = do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusAccepted, r.status, r.body)
	select {
	case r = <-done:
	case <-time.After(failAfter):
		t.Fatal("the first call was not cancelled")
	}
	assert.Equal(t, int64(jsonrpc.CodeInternalError), r.code, r.body)
	assert.Contains(t, r.message, "request cancelled")
}

// TestCancelledIDFree: a request its client cancels frees its id at once,
// as on stdio, though go-sdk still serves it: a request that reuses the id
// is served, under that id, and the first's POST is answered as cancelled.
func TestCancelledIDFree(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	first := s.hold(t, sid, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold","arguments":{"message":"first"}}}`)
	r := do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusAccepted, r.status, r.body)
	r = do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"message":"second"}}}`,
		"Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusOK, r.status, r.body)
	assert.JSONEq(t, "5", string(r.id), r.body)
	assert.Contains(t, string(r.result), "second", "the reuse of a cancelled request's id: %s", r.body)
	close(s.unhold)
	r = receive(t, first, "the cancelled call's answer")
	assert.JSONEq(t, "5", string(r.id), r.body)
	assert.Contains(t, r.message, "request cancelled", r.body)
}

// TestUnderID: a reply go-sdk wrote under its id goes back under the
// client's, whatever order its members come in; one under another id is
// left as it is.
func TestUnderID(t *testing.T) {
	from, _ := jsonrpc.MakeID(float64(7))
	to, _ := jsonrpc.MakeID("c")
	for reply, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"result":{"x":1}}`:  `{"jsonrpc":"2.0","id":"c","result":{"x":1}}`,
		`{"result":{"x":1},"id":7,"jsonrpc":"2.0"}`:  `{"jsonrpc":"2.0","id":"c","result":{"x":1}}`,
		`{"jsonrpc":"2.0","id":70,"result":{"x":1}}`: `{"jsonrpc":"2.0","id":70,"result":{"x":1}}`,
		`not JSON`: `not JSON`,
	} {
		got := string(underID([]byte(reply), from, to))
		if want == "not JSON" {
			assert.Equal(t, want, got)
			continue
		}
		assert.JSONEq(t, want, got, "underID(%s)", reply)
	}
}

// TestHeldErrorDropsCancelled: once its request is cancelled, nothing
// go-sdk writes for it goes out, a status (200, or 202) nor a body, that
// serve may answer the POST as cancelled.
func TestHeldErrorDropsCancelled(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusAccepted} {
		rec := httptest.NewRecorder()
		held := &heldError{ResponseWriter: rec}
		held.cancelled.Store(true)
		held.WriteHeader(status)
		_, err := held.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		require.NoError(t, err)
		assert.False(t, held.wrote, "WriteHeader(%d) of a request cancelled went out", status)
		assert.False(t, rec.Flushed || rec.Body.Len() > 0, "WriteHeader(%d): a reply to a request cancelled went out", status)
	}
}

// TestCancelOfNoRequest: a notifications/cancelled that names no request
// being served is accepted, and not passed on. go-sdk cancels later, on a
// goroutine of its own, and might cancel a request that came after it: one
// the client sent first, and whose cancellation overtook it.
func TestCancelOfNoRequest(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	for _, note := range []string{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`} {
		r := do(t, http.MethodPost, s.url, note, "Mcp-Session-Id", sid)
		assert.Equal(t, http.StatusAccepted, r.status, "%s: %s", note, r.body)
	}
	select {
	case note := <-s.notes: // go-sdk handles notifications in order
		assert.Equal(t, "notifications/initialized", note, "the first notification go-sdk received")
	case <-time.After(failAfter):
		t.Fatal("go-sdk received no notification")
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

// TestCancelNamesExactly: a cancellation names a request by the member
// "requestId", spelled so, holding the id as sent: "RequestId", or 7.5
// for 7, names none, and is not passed on to go-sdk, which would read each
// as 7.
func TestCancelNamesExactly(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	done := s.hold(t, sid, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	for _, params := range []string{`{"RequestId":7}`, `{"requestid":7}`, `{"requestId":7.5}`, `{"requestId":"7"}`} {
		r := do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":`+params+`}`, "Mcp-Session-Id", sid)
		assert.Equal(t, http.StatusAccepted, r.status, "%s: %s", params, r.body)
	}
	r := do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusAccepted, r.status, r.body)
	select {
	case note := <-s.notes: // go-sdk handles notifications in order
		assert.Equal(t, "notifications/initialized", note, "the first notification go-sdk received")
	case <-time.After(failAfter):
		t.Fatal("go-sdk received no notification")
	}
	r = do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusAccepted, r.status, r.body)
	select {
	case <-done: // cancelled now, by its id
	case <-time.After(failAfter):
		t.Fatal("the call was not cancelled by its id")
	}
}

// TestRequestRacingDelete: a request whose session is deleted while go-sdk
// serves it is answered as any request of a session that has ended, not
// with the empty 200 go-sdk leaves. Here go-sdk finds the session, then
// waits to read the body until the DELETE is done.
func TestRequestRacingDelete(t *testing.T) {
	t.Parallel()
	reading, resume := make(chan struct{}), make(chan struct{})
	pause := sync.OnceFunc(func() { close(reading); <-resume })
	s := start(t, func(h *Handler) {
		legacy := h.legacy
		h.legacy = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Pause") != "" {
				r.Body = pausedBody{ReadCloser: r.Body, pause: pause}
			}
			legacy.ServeHTTP(w, r)
		})
	})
	sid := s.session(t)
	done := make(chan response, 1)
	go func() {
		done <- do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Session-Id", sid, "Pause", "yes")
	}()
	select {
	case <-reading:
	case <-time.After(failAfter):
		t.Fatal("go-sdk did not read the body")
	}
	assert.Equal(t, http.StatusNoContent, do(t, http.MethodDelete, s.url, ``, "Mcp-Session-Id", sid).status)
	close(resume)
	r := receive(t, done, "the answer to the request that raced the DELETE")
	assert.Equal(t, http.StatusNotFound, r.status, "the answer: %q", r.body)
	assert.JSONEq(t, "2", string(r.id), r.body)
	assert.Contains(t, r.message, "session not found: it has ended", r.body)
}

// A pausedBody calls pause before it is read.
type pausedBody struct {
	io.ReadCloser
	pause func()
}

func (b pausedBody) Read(p []byte) (int, error) {
	b.pause()
	return b.ReadCloser.Read(p)
}

// TestMaxSessions: past the limit, a new session ends the one idle the
// longest; one the client failed to delete is still counted.
func TestMaxSessions(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) { h.sessions.max = 2 })
	first, second := s.session(t), s.session(t)
	r := do(t, http.MethodDelete, s.url, ``, "Mcp-Session-Id", first, "MCP-Protocol-Version", "2026-07-28") // refused: no sessions in 2026-07-28
	assert.NotEqual(t, http.StatusNoContent, r.status, r.body)
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	assert.Equal(t, http.StatusOK, do(t, http.MethodPost, s.url, list, "Mcp-Session-Id", second).status, "second is used last")
	s.session(t) // a third
	r = do(t, http.MethodPost, s.url, list, "Mcp-Session-Id", first)
	assert.Equal(t, http.StatusNotFound, r.status, "the session idle the longest has ended")
	assert.Contains(t, r.message, "to make room for newer ones, at most 2")
	assert.Equal(t, http.StatusOK, do(t, http.MethodPost, s.url, list, "Mcp-Session-Id", second).status)
}

// rawRequest sends text on a connection of its own, and returns what the
// server wrote until it closed the connection.
func rawRequest(t *testing.T, host, text string) string {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	_, err = io.WriteString(conn, text)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(failAfter)))
	reply, err := io.ReadAll(conn)
	require.NoError(t, err, "the server did not close the connection")
	return string(reply)
}

// TestBodyNeverComes: a request whose declared body never comes holds its
// connection no longer than the body's deadline, whether the handler reads
// the body (a POST: 408) or not (net/http reads what is left).
func TestBodyNeverComes(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) { h.bodyTimeout = 100 * time.Millisecond })
	post := rawRequest(t, s.host, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":")
	assert.Contains(t, post, "HTTP/1.1 408")
	assert.Contains(t, post, "the body did not arrive within 100ms")
	for _, head := range []string{"GET /mcp", "DELETE /mcp", "GET /other", "POST /"} {
		reply := rawRequest(t, s.host, head+" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\n\r\n")
		assert.Regexp(t, `^HTTP/1.1 [45]\d\d`, reply, head)
	}
	evil := rawRequest(t, s.host, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\nContent-Length: 1\r\n\r\n")
	assert.Contains(t, evil, "HTTP/1.1 403", "a refusal before the body")
}

// TestReplyWaitsForBody: a reply to a request whose body the handler does
// not read has the body's time as well as its own, since net/http reads
// the body before it sends the reply. Its own time here is a nanosecond:
// without the body's, it would never go out.
func TestReplyWaitsForBody(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) { h.replyTimeout = time.Nanosecond })
	for _, head := range []string{"POST /elsewhere", "POST /mcp"} {
		extra := ""
		if head == "POST /mcp" {
			extra = "Origin: http://evil.example\r\n" // refused before its body is read
		}
		reply := rawRequest(t, s.host, head+" HTTP/1.1\r\nHost: 127.0.0.1\r\n"+extra+"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
		assert.Regexp(t, `^HTTP/1.1 40[34]`, reply, head)
	}
}

// TestDeclaredTooLarge: a Content-Length past the limit is refused at
// once, without waiting for the body.
func TestDeclaredTooLarge(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) { h.bodyTimeout = failAfter * 2 })
	conn, err := net.Dial("tcp", s.host)
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n{", MaxBodySize+1)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(failAfter)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "no answer before the body")
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
}

// tooLargeBody is a body past MaxBodySize by more than sockets hold, and
// within what a refusal drains.
const tooLargeBody = MaxDrain

// TestTooLargeReadFirst: a client that sends a body past MaxBodySize whole
// before it reads, declared or chunked, reads the 413 every time, not a
// reset: the server reads what is left of the body before it closes.
func TestTooLargeReadFirst(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	body := strings.Repeat(" ", tooLargeBody)
	for _, framing := range []string{fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body),
		fmt.Sprintf("Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)} {
		for i := range 20 {
			conn, err := net.Dial("tcp", s.host)
			require.NoError(t, err)
			require.NoError(t, conn.SetDeadline(time.Now().Add(failAfter)))
			_, err = io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\n"+framing)
			require.NoError(t, err, "run %d, %.17s: sending the body", i, framing)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			require.NoError(t, err, "run %d, %.17s: the 413 was lost", i, framing)
			assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "run %d, %.17s", i, framing)
			_ = conn.Close()
		}
	}
}

// TestTooLargeNodeFetch: Node's fetch, which sends a body whole before it
// reads the answer, reads the 413 to a body past MaxBodySize every time,
// declared or streamed.
func TestTooLargeNodeFetch(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH")
	}
	s := start(t, nil)
	script := filepath.Join(t.TempDir(), "fetch.mjs")
	require.NoError(t, os.WriteFile(script, []byte(`
const [url, runs, size] = process.argv.slice(2);
const headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"};
const statuses = [];
for (let i = 0; i < Number(runs); i++) {
  const whole = " ".repeat(Number(size));
  const streamed = new ReadableStream({start(c) { c.enqueue(new TextEncoder().encode(whole)); c.close(); }});
  for (const body of [whole, streamed]) {
    try {
      const r = await fetch(url, {method: "POST", headers, body, duplex: "half"});
      await r.text();
      statuses.push(String(r.status));
    } catch (e) {
      statuses.push(String(e.cause?.code ?? e));
    }
  }
}
console.log(statuses.join(" "));
`), 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 6*failAfter)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, script, s.url, "20", strconv.Itoa(tooLargeBody)).Output()
	require.NoError(t, err, "node: %s", out)
	statuses := strings.Fields(string(out))
	assert.Len(t, statuses, 40, "%s", out)
	for i, status := range statuses {
		assert.Equal(t, "413", status, "run %d, body %s", i/2, []string{"declared", "streamed"}[i%2])
	}
}

// TestInFlightBound: a body takes room past its first SmallBodySize as it
// is read; one that finds none gets 503 at once, even while still sending
// its body, and its connection ends. A small body needs no room, and room
// is made as calls are answered.
func TestInFlightBound(t *testing.T) {
	t.Parallel()
	// The half-sent body is refused once its time is up, and its connection
	// closed once as long again: failAfter/8 each (not 0.2 s), so that a
	// busy machine sends the other bodies well within theirs.
	s := start(t, func(h *Handler) {
		h.inFlight, h.bodyTimeout = semaphore.NewWeighted(readChunk), failAfter/8
	})
	sid := s.session(t)
	// Past SmallBodySize: its next chunk takes all the room.
	large := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"message":"` + strings.Repeat("x", SmallBodySize) + `"}}}`
	done := make(chan response, 1)
	go func() { done <- do(t, http.MethodPost, s.url, large, "Mcp-Session-Id", sid) }()
	select {
	case <-s.held:
	case <-time.After(failAfter):
		t.Fatal("the call did not start")
	}
	assert.Equal(t, http.StatusOK, do(t, http.MethodPost, s.url, initialize).status, "a small body while the room is taken")
	busyWhileSending(t, s.host)
	halfSentRefused(t, s.host)
	close(s.unhold)
	assert.Equal(t, http.StatusOK, receive(t, done, "the large call's answer").status)
	assert.Equal(t, http.StatusOK, do(t, http.MethodPost, s.url, large, "Mcp-Session-Id", sid).status, "room is made once the first is answered")
}

// TestOneWaitsForRoom: of the bodies that find no room, one waits for it,
// and is served once room is made; the others are refused at once, rather
// than wait holding room that the first needs.
func TestOneWaitsForRoom(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) {
		h.inFlight, h.bodyTimeout = semaphore.NewWeighted(readChunk), 2*failAfter
	})
	sid := s.session(t)
	large := func(id int, tool string) string { // past SmallBodySize: all the room
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"message":"%s"}}}`,
			id, tool, strings.Repeat("x", SmallBodySize))
	}
	go do(t, http.MethodPost, s.url, large(2, "hold"), "Mcp-Session-Id", sid)
	select {
	case <-s.held:
	case <-time.After(failAfter):
		t.Fatal("the call did not start")
	}
	answers := make(chan response, 2)
	for id := range 2 {
		go func() { answers <- do(t, http.MethodPost, s.url, large(3+id, "echo"), "Mcp-Session-Id", sid) }()
	}
	r := receive(t, answers, "the refusal") // before its deadline: the other waits
	assert.Equal(t, http.StatusServiceUnavailable, r.status, "the body that came second: %s", r.body)
	close(s.unhold)
	r = receive(t, answers, "the answer to the body that waited")
	assert.Equal(t, http.StatusOK, r.status, "the body that waited: %s", r.body)
}

// TestBusyGivesRoomBack: a body refused for room part-way through (503)
// gives back the room it took: none is lost for good.
func TestBusyGivesRoomBack(t *testing.T) {
	h := &Handler{inFlight: semaphore.NewWeighted(2 * readChunk)}
	require.True(t, h.inFlight.TryAcquire(readChunk), "another body's room")
	h.waiting.Store(true) // and another body waits: this one is refused, not let wait
	done, cancel := context.WithCancel(context.Background())
	cancel() // nor, were it let wait, for ever
	_, room, err := h.read(done, strings.NewReader(strings.Repeat(" ", SmallBodySize+2*readChunk)))
	require.ErrorIs(t, err, errBusy)
	assert.Zero(t, room, "room held by a body refused")
	h.inFlight.Release(readChunk)
	assert.True(t, h.inFlight.TryAcquire(2*readChunk), "the room a body refused took part-way is lost")
}

// busyWhileSending: a client still sending its body when it is refused
// reads the 503, not a connection reset.
func busyWhileSending(t *testing.T, host string) {
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	// More than sockets hold: the writes wait for the server to read, and
	// the client reads the answer once it has sent the whole request.
	body := `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"` + strings.Repeat("x", MaxBodySize-100) + `"}}`
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	require.NoError(t, err, "the server stopped reading the body")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "the 503 was lost")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
}

// halfSentRefused: a client that leaves a body half sent, past
// SmallBodySize, reads the 503, then the end of its connection once the
// body's time is up: what it sent later would not be read as another
// request.
func halfSentRefused(t *testing.T, host string) {
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", MaxBodySize, strings.Repeat(" ", SmallBodySize+1))
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(failAfter)))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.True(t, resp.Close, "Connection: close")
	_, err = io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
	_, err = r.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the server ends the connection")
}

// TestSmallBesideHolders: while connections hold bodies declared at
// MaxBodySize (Content-Length or chunked), part sent or none, and all the
// room their parts took, small requests are answered at once, while the
// holders still hold.
func TestSmallBesideHolders(t *testing.T) {
	t.Parallel()
	// Four holders send a part each, and take 4 MiB of room: 4 MiB -
	// SmallBodySize, in chunks of readChunk. Together, all of it.
	const holders, part = 8, 4 << 20
	s := start(t, func(h *Handler) { h.bodyTimeout = 2 * failAfter }) // not an hour: a body that waits for room must end, lest closing the server wait for it
	read := make(chan struct{}, holders)
	watched := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sent, err := strconv.Atoi(r.Header.Get("Sent")); err == nil {
			r.Body = &readSignal{ReadCloser: r.Body, left: sent, read: read}
		}
		s.ServeHTTP(w, r)
	}))
	defer closeWatched(t, watched)
	host := strings.TrimPrefix(watched.URL, "http://")
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for i := range holders {
		conn, err := net.Dial("tcp", host)
		require.NoError(t, err)
		conns = append(conns, conn)
		length, sent, body := fmt.Sprintf("Content-Length: %d", MaxBodySize), 0, ""
		if i%2 == 0 {
			length = "Transfer-Encoding: chunked"
		}
		if i%4 < 2 {
			sent, body = part, strings.Repeat(" ", part)
			if i%2 == 0 {
				body = fmt.Sprintf("%x\r\n%s", part, body)
			}
		}
		require.NoError(t, conn.SetWriteDeadline(time.Now().Add(failAfter))) // a server that stops reading fails the test
		_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\n%s\r\nSent: %d\r\n\r\n%s", length, sent, body)
		require.NoError(t, err)
	}
	for i := range holders {
		select {
		case <-read:
		case <-time.After(failAfter):
			t.Fatalf("%d of %d holders read: the others wait", i, holders)
		}
	}
	require.False(t, s.inFlight.TryAcquire(1), "the holders hold all the room")
	sid := s.session(t)
	slowest := time.Duration(0)
	for i := range 20 {
		start := time.Now()
		r := do(t, http.MethodPost, s.url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`, i+2),
			"Mcp-Session-Id", sid)
		slowest = max(slowest, time.Since(start))
		require.Equal(t, http.StatusOK, r.status, "call %d beside %d holders: %s", i, holders, r.body)
	}
	t.Logf("20 small calls beside %d holders: the slowest answered in %.3f s", holders, slowest.Seconds())
	// A call that waited for room would wait for a holder's body, twice
	// failAfter here, or until its client gave up: 20 calls took 0.01 s at
	// most under -race at load 12, so a bound of failAfter cannot flip, and
	// is short of the wait it rules out.
	assert.Less(t, slowest, failAfter, "a small call waited beside %d holders", holders)
	for i, c := range conns {
		require.NoError(t, c.SetReadDeadline(time.Now()))
		_, err := c.Read(make([]byte, 1))
		assert.ErrorIs(t, err, os.ErrDeadlineExceeded, "holder %d was answered: it holds no longer", i)
	}
}

// TestRoomCountsBytes: a body holds room for the bytes it has sent, not
// for a buffer that doubles: two bodies held at 4 MiB and a byte leave
// room for a call of 100 KB, at once.
func TestRoomCountsBytes(t *testing.T) {
	t.Parallel()
	const holders, part = 2, 4<<20 + 1
	s := start(t, func(h *Handler) { h.bodyTimeout = 2 * failAfter }) // not an hour: a body that waits for room must end, lest closing the server wait for it
	read := make(chan struct{}, holders)
	watched := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sent, err := strconv.Atoi(r.Header.Get("Sent")); err == nil {
			r.Body = &readSignal{ReadCloser: r.Body, left: sent, read: read}
		}
		s.ServeHTTP(w, r)
	}))
	defer closeWatched(t, watched)
	for range holders {
		conn, err := net.Dial("tcp", strings.TrimPrefix(watched.URL, "http://"))
		require.NoError(t, err)
		defer func() { _ = conn.Close() }()
		require.NoError(t, conn.SetWriteDeadline(time.Now().Add(failAfter))) // a server that stops reading fails the test
		_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\nSent: %d\r\n\r\n%s", MaxBodySize, part, strings.Repeat(" ", part))
		require.NoError(t, err)
	}
	for range holders {
		receive(t, read, "a holder's part, read")
	}
	sid := s.session(t)
	r := do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"`+
		strings.Repeat("x", 100_000)+`"}}}`, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusOK, r.status, "a call of 100 KB beside %d bodies held at %d bytes: %.200s", holders, part, r.body)
}

// A readSignal sends on read once its reader has read left bytes, and asks
// for more.
type readSignal struct {
	io.ReadCloser
	left int
	read chan<- struct{}
}

func (b *readSignal) Read(p []byte) (int, error) {
	if b.left == 0 && b.read != nil {
		b.read <- struct{}{}
		b.read = nil
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= n
	return n, err
}

// TestUnreadReply: a reply its client does not read ends its connection
// after the write deadline, and gives back its body's room.
func TestUnreadReply(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) {
		h.inFlight, h.replyTimeout, h.bodyTimeout = semaphore.NewWeighted(readChunk), 100*time.Millisecond, failAfter
	})
	answered := make(chan struct{}, 10)
	watched := smallBuffers(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeHTTP(w, r)
		answered <- struct{}{}
	}))
	defer closeWatched(t, watched)
	sid := s.session(t)
	conn := dialSmall(t, strings.TrimPrefix(watched.URL, "http://"))
	defer func() { _ = conn.Close() }()
	// A body that takes all the room, and a reply of 3 MB.
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"message":"big","pad":"` +
		strings.Repeat("x", SmallBodySize) + `"}}}`
	_, err := fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s", sid, len(call), call)
	require.NoError(t, err) // and never read the reply
	select {
	case <-answered:
	case <-time.After(failAfter):
		t.Fatal("the unread reply held its connection")
	}
	r := do(t, http.MethodPost, s.url, strings.Replace(call, `"hold"`, `"echo"`, 1), "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusOK, r.status, "the unread reply held the room: %s", r.body)
}

// TestUnreadErrors: answers that come from no MCP handler, here 404s to
// pipelined GETs that their client never reads, end their connection after
// the write deadline too.
func TestUnreadErrors(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) { h.bodyTimeout, h.replyTimeout = 100*time.Millisecond, 100*time.Millisecond })
	watched := smallBuffers(t, s)
	defer closeWatched(t, watched)
	conn := dialSmall(t, strings.TrimPrefix(watched.URL, "http://"))
	defer func() { _ = conn.Close() }()
	require.NoError(t, conn.SetWriteDeadline(time.Now().Add(failAfter)))
	gets := []byte(strings.Repeat("GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 100))
	var err error
	for err == nil {
		_, err = conn.Write(gets)
	}
	assert.NotErrorIs(t, err, os.ErrDeadlineExceeded, "the server stopped reading, and kept the connection")
}

// The tests of replies not read are about the kernel's sockets, whose
// buffers a reply must outgrow: smallBuffers and dialSmall give a server's
// and a client's ends buffers of a few KiB, so that a reply of a few
// hundred KiB outgrows them, where loopback's grow to megabytes; its
// encoding under -race on a busy machine took seconds a megabyte.
const smallBuffer = 4 << 10

// smallBuffers starts a server of handler whose connections send through
// small buffers.
func smallBuffers(t *testing.T, handler http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(handler)
	srv.Listener = smallListener{srv.Listener}
	srv.Start()
	return srv
}

type smallListener struct{ net.Listener }

func (l smallListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(smallBuffer)
	}
	return c, err
}

// dialSmall connects to host with a small buffer to receive.
func dialSmall(t *testing.T, host string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).SetReadBuffer(smallBuffer))
	return conn
}

// TestEventStreamDeadline: a session's event stream has no write deadline,
// though net/http keeps its connection's last: it lasts as long as its
// session.
func TestEventStreamDeadline(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	deadlines := make(chan time.Time, 10)
	watched := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeHTTP(watchDeadlines{ResponseWriter: w, write: deadlines}, r)
	}))
	defer closeWatched(t, watched)
	req, err := http.NewRequest(http.MethodGet, watched.URL+Path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.session(t))
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, time.Time{}, receive(t, deadlines, "the event stream's write deadline"), "the event stream's write deadline")
}

// watchDeadlines passes on the deadlines a handler sets, and sends each
// write deadline on write, each read deadline on read, while it has room:
// a test wants the first of a few.
type watchDeadlines struct {
	http.ResponseWriter
	write, read chan<- time.Time
}

func (w watchDeadlines) SetWriteDeadline(d time.Time) error {
	select {
	case w.write <- d:
	default:
	}
	return http.NewResponseController(w.ResponseWriter).SetWriteDeadline(d)
}

func (w watchDeadlines) SetReadDeadline(d time.Time) error {
	select {
	case w.read <- d:
	default:
	}
	return http.NewResponseController(w.ResponseWriter).SetReadDeadline(d)
}

func (w watchDeadlines) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestReadDeadlineLifted: once a POST's body is read, its read deadline
// is lifted: net/http's background read would hit it in a call longer than
// the body's time, and cancel the call.
func TestReadDeadlineLifted(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	deadlines := make(chan time.Time, 10)
	watched := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeHTTP(watchDeadlines{ResponseWriter: w, read: deadlines}, r)
	}))
	defer closeWatched(t, watched)
	r := do(t, http.MethodPost, watched.URL+Path, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Session-Id", sid)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.NotEqual(t, time.Time{}, receive(t, deadlines, "the body's read deadline"), "the body's read deadline")
	assert.Equal(t, time.Time{}, receive(t, deadlines, "the read deadline, once the body is read"), "the read deadline once the body is read")
}

// TestConnectionAge: a connection past its age closes after its next
// reply, pipelined requests after it unanswered; a younger one serves them.
func TestConnectionAge(t *testing.T) {
	t.Parallel()
	gets := strings.Repeat("GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 2) +
		"GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
	for age, replies := range map[time.Duration]int{0: 1, failAfter: 3} {
		s := start(t, func(h *Handler) { h.maxAge = age })
		assert.Equal(t, replies, strings.Count(rawRequest(t, s.host, gets), "HTTP/1.1 404"), "age %v", age)
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

// TestHeaderQuotedInert: go-sdk's header mismatch quotes the header and
// the body's value; ESC and U+009B in them go back as text (\x1b,
// \u009b), not as the start of a terminal's command.
func TestHeaderQuotedInert(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":` + name + `,"arguments":{},` + modernMeta + `}}`
	}
	tests := []struct{ name, header, want string }{
		{`"\u001b[2Jx"`, "echo", `\x1b[2Jx`}, // net/http refuses ESC in a header
		{`"echo"`, "\u009b31mx", `\u009b31mx`},
		{`"echo"`, "\u202ex", `\u202ex`}, // a bidirectional override, which reverses what follows
	}
	for _, tt := range tests {
		r := do(t, http.MethodPost, s.url, call(tt.name), "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tt.header)
		assert.Equal(t, int64(mcp.CodeHeaderMismatch), r.code, "name %s, Mcp-Name %q: %s", tt.name, tt.header, r.body)
		assert.Contains(t, r.message, tt.want, "name %s, Mcp-Name %q: quoted as text", tt.name, tt.header)
		assert.NotContains(t, r.message, "\x1b", "name %s, Mcp-Name %q: ESC", tt.name, tt.header)
		assert.NotContains(t, r.message, "\u009b", "name %s, Mcp-Name %q: U+009B", tt.name, tt.header)
		assert.NotContains(t, r.message, "\u202e", "name %s, Mcp-Name %q: U+202E", tt.name, tt.header)
	}
}

// closeWatched closes a test's own server; once the test has failed it
// only closes its connections, lest a handler that never returns (a read
// that loops) hang the suite in Close.
func closeWatched(t *testing.T, s *httptest.Server) {
	if t.Failed() {
		s.CloseClientConnections()
		return
	}
	s.Close()
}
