package streamable

// The tests' shared helpers: a Handler serving a few tools (start), and
// the requests a client sends it. The tests order events by what the
// server does, never by time: each wait ends at once when the server is
// right; failAfter is for failures.

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/internal/protocol"
)

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
