package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// slowService is a service that sends the first part of its answer, then
// waits until the request is cut (it tells cut) or the test ends.
func slowService(t *testing.T, cut chan<- struct{}) *httptest.Server {
	done := make(chan struct{})
	service := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "the first part, ")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(cut)
		case <-done:
		}
	}))
	t.Cleanup(func() { close(done); service.Close() })
	t.Setenv("MY_SERVER_API_URL", service.URL)
	t.Setenv("MY_SERVER_API_KEY", "test-key")
	return service
}

// connect joins a client, with opts, and a server with lookup in memory.
func connect(ctx context.Context, t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "0.1.0"}, nil)
	mcp.AddTool(server, lookupTool, lookup)
	clientTransport, serverTransport := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverTransport, nil); err != nil {
		t.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0.1.0"}, opts).Connect(ctx, clientTransport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := session.Close(); err != nil {
			t.Error(err)
		}
	})
	return session
}

// TestLookupCancel calls lookup with a progress token, as VS Code does on
// every call, receives its progress, then cancels the call as a host does:
// the request to the service is cut.
func TestLookupCancel(t *testing.T) {
	ctx, stop := context.WithTimeout(t.Context(), 10*time.Second) // fail, never hang
	defer stop()
	cut := make(chan struct{})
	slowService(t, cut)
	progress := make(chan *mcp.ProgressNotificationParams, 10)
	session := connect(ctx, t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params
		},
	})

	call, cancel := context.WithCancel(ctx)
	returned := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"query": "slow"}}
		params.SetProgressToken("call-1")
		_, err := session.CallTool(call, params)
		returned <- err
	}()
	select {
	case p := <-progress:
		if p.ProgressToken != "call-1" || p.Progress <= 0 {
			t.Errorf("progress = %+v, want token call-1 and the bytes read so far", p)
		}
	case <-ctx.Done():
		t.Fatal("lookup sent no progress")
	}
	cancel() // go-sdk's client sends notifications/cancelled
	select {
	case err := <-returned:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("CallTool after cancel: %v, want context.Canceled", err)
		}
	case <-ctx.Done():
		t.Fatal("CallTool did not return after its context was cancelled")
	}
	select {
	case <-cut:
	case <-ctx.Done():
		t.Fatal("the cancellation did not reach the request to the service")
	}
}

// TestLookupDeadline: a service that never finishes answering meets
// lookup's own deadline, and the model reads a tool error that says so.
func TestLookupDeadline(t *testing.T) {
	ctx, stop := context.WithTimeout(t.Context(), 10*time.Second)
	defer stop()
	defer func(d time.Duration) { lookupTimeout = d }(lookupTimeout)
	lookupTimeout = 100 * time.Millisecond
	slowService(t, make(chan struct{}))
	res, err := connect(ctx, t, nil).CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"query": "slow"}})
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := res.Content[0].(*mcp.TextContent); !res.IsError || text == nil || !strings.Contains(text.Text, "did not answer within 100ms") {
		t.Errorf("lookup past its deadline = %+v, want a tool error naming the deadline", res.Content[0])
	}
}
