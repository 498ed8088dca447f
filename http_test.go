package main

import (
	"mcp-hello-tools/internal/streamable"

	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mcp-hello-tools/internal/stdio"
	"mcp-hello-tools/tools"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startHTTP serves a fresh server over Streamable HTTP on a free loopback
// port and returns its endpoint URL and a function that stops it and
// returns serveListener's result. The test stops the server when it ends,
// if it has not already.
func startHTTP(t *testing.T) (endpoint string, stop func() error) {
	endpoint, stop, _ = startHTTPWithLog(t)
	return endpoint, stop
}

// startHTTPWithLog is startHTTP, and also returns the server's log.
func startHTTPWithLog(t *testing.T) (endpoint string, stop func() error, log *syncBuffer) {
	t.Helper()
	log = new(syncBuffer)
	ln, err := listenLoopback("127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	logger := slog.New(slog.NewTextHandler(log, nil))
	go func() { served <- serveListener(ctx, ln, newServer(fixedNow, logger), logger) }()

	var result error
	stopped := false
	stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			select {
			case result = <-served:
			case <-time.After(shutdownGrace + 5*time.Second):
				result = errors.New("serveListener did not return after its context was cancelled")
			}
		}
		return result
	}
	t.Cleanup(func() { assert.NoError(t, stop(), "serveListener") })
	return "http://" + ln.Addr().String() + streamable.Path, stop, log
}

func TestListenLoopback(t *testing.T) {
	tests := []struct {
		addr    string
		refused bool // errNotLoopback
	}{
		{"127.0.0.1:0", false},
		{"localhost:0", false},
		{":8080", true},
		{"0.0.0.0:8080", true},
		{"[::]:8080", true},
		{"192.168.1.10:8080", true},
		{"example.com:8080", true},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			ln, err := listenLoopback(tt.addr)
			if tt.refused {
				require.ErrorIs(t, err, errNotLoopback, "listenLoopback(%q)", tt.addr)
				assert.Contains(t, err.Error(), "127.0.0.1:8080", "the error shows a valid address")
				return
			}
			require.NoError(t, err, "listenLoopback(%q)", tt.addr)
			require.NoError(t, ln.Close())
		})
	}

	_, err := listenLoopback("127.0.0.1")
	require.Error(t, err, "listenLoopback without a port")
	assert.Contains(t, err.Error(), "host:port")
}

func TestHTTPToolCall(t *testing.T) {
	endpoint, _ := startHTTP(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0.0.1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err, "connecting to %s", endpoint)
	defer func() { assert.NoError(t, session.Close()) }()
	assert.Equal(t, "2025-11-25", session.InitializeResult().ProtocolVersion)

	list, err := session.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	assert.ElementsMatch(t, tools.Names(), names, "tools/list over HTTP")

	long := strings.Repeat("é", 1_000_000) // the stdio transport's promise, kept over HTTP too
	res := callTool(t, session, "echo", map[string]any{"message": long})
	assert.False(t, res.IsError)
	assert.Equal(t, long, res.Content[0].(*mcp.TextContent).Text, "echo of a million characters")

	res = callTool(t, session, "calculate", map[string]any{"expression": "2 * (3 + 4.5) ^ 2"})
	assert.False(t, res.IsError)
	assert.JSONEq(t, `{"result": "112.5", "exact": true, "parsed": "(2 * ((3 + 4.5) ^ 2))"}`, mustJSON(t, res.StructuredContent))

	res = callTool(t, session, "get_timestamp", map[string]any{"format": "unix"})
	assert.False(t, res.IsError)
	assert.JSONEq(t, `{"timestamp": "1796011925", "format": "unix", "timezone": "UTC",
		"utc_offset": "+00:00", "is_dst": false, "unix": 1796011925}`, mustJSON(t, res.StructuredContent))
}

// initializeBody is an initialize request as a client POSTs it.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
	`"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// post sends body to endpoint with the headers a Streamable HTTP client
// sends, plus extra, and returns the response status code.
func post(t *testing.T, endpoint, body string, extra map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range extra {
		if k == "Host" {
			req.Host = v // the Host header is req.Host, not req.Header
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, err = io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return resp.StatusCode
}

// TestHTTPRefused checks the answers to requests a web page could make
// through the user's browser (foreign Host or Origin) and to an oversized
// body, next to the same request from a well-behaved client.
func TestHTTPRefused(t *testing.T) {
	endpoint, _ := startHTTP(t)
	self := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), streamable.Path) // 127.0.0.1:PORT
	oversized := initializeBody + strings.Repeat(" ", stdio.MaxLine)

	tests := []struct {
		name    string
		body    string
		headers map[string]string
		want    int
	}{
		{"plain client", initializeBody, nil, http.StatusOK},
		{"same-origin browser", initializeBody, map[string]string{"Origin": "http://" + self}, http.StatusOK},
		{"localhost Host", initializeBody, map[string]string{"Host": "localhost:8080"}, http.StatusOK},
		{"foreign Host", initializeBody, map[string]string{"Host": "evil.example"}, http.StatusForbidden},
		{"foreign Host and Origin (DNS rebinding)", initializeBody,
			map[string]string{"Host": "evil.example", "Origin": "http://evil.example"}, http.StatusForbidden},
		{"foreign Origin", initializeBody, map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"cross-site fetch", initializeBody, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"oversized body", oversized, nil, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, post(t, endpoint, tt.body, tt.headers), "POST %s with %v", endpoint, tt.headers)
		})
	}
}

// TestHTTPLimitsPage: docs/limits.md states the bound on bodies held at
// once, which streamable's limits and maxConnections make.
func TestHTTPLimitsPage(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("docs", "limits.md"))
	require.NoError(t, err)
	assert.Contains(t, string(page), fmt.Sprintf("at most %d MiB of bodies are held at once: %d connections × %d KiB, and %d MiB",
		(maxConnections*streamable.SmallBodySize+streamable.MaxInFlightSize)>>20, maxConnections, streamable.SmallBodySize>>10,
		streamable.MaxInFlightSize>>20))
}

// TestHTTPKeepAliveHint: every answer tells the client, in Keep-Alive,
// to close an idle connection before the server does (IdleTimeout): a
// request sent as the server closes would be reset (docs/http.md).
func TestHTTPKeepAliveHint(t *testing.T) {
	endpoint, _ := startHTTP(t)
	for _, url := range []string{endpoint, strings.TrimSuffix(endpoint, streamable.Path) + "/elsewhere"} {
		resp, err := http.Post(url, "application/json", strings.NewReader(initializeBody))
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		var seconds int
		_, err = fmt.Sscanf(resp.Header.Get("Keep-Alive"), "timeout=%d", &seconds)
		require.NoError(t, err, "POST %s: Keep-Alive %q", url, resp.Header.Get("Keep-Alive"))
		assert.Less(t, time.Duration(seconds)*time.Second, streamable.BodyTimeout, "POST %s: the hint is below http.go's IdleTimeout", url)
	}
}

// TestHTTPShutdownEndsStreams checks that shutdown does not wait for a
// client's standing event stream (a GET to /mcp), which never ends by itself.
func TestHTTPShutdownEndsStreams(t *testing.T) {
	endpoint, stop, log := startHTTPWithLog(t)

	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(initializeBody))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	sessionID := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sessionID, "Mcp-Session-Id")
	_, err = io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())

	get, err := http.NewRequest(http.MethodGet, endpoint, nil)
	require.NoError(t, err)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", sessionID)
	get.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	stream, err := http.DefaultClient.Do(get)
	require.NoError(t, err)
	defer func() { _ = stream.Body.Close() }()
	require.Equal(t, http.StatusOK, stream.StatusCode, "GET %s", endpoint)

	require.NoError(t, stop(), "serveListener")
	assert.NotContains(t, log.String(), "closing connections still active",
		"shutdown had to force the event stream closed after its grace period")
}

// TestRunHTTPFlag checks the -http flag's refusals, which happen before the
// server listens.
func TestRunHTTPFlag(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-http", "0.0.0.0:8080"}, "not a loopback address"},
		{[]string{"-http", "8080"}, "host:port"},
		{[]string{"-http", "127.0.0.1:0", "-trace"}, "-trace"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.args, nil, &stdout, &stderr)
		require.Error(t, err, "run(%q)", tt.args)
		assert.Contains(t, err.Error(), tt.wantErr, "run(%q)", tt.args)
		assert.Empty(t, stdout.String(), "run(%q) stdout", tt.args)
	}
}

// TestHTTPBodiesWithoutHandler: requests that net/http would answer itself,
// an Expect it does not know (417) and OPTIONS * (the handler's 404 here),
// whose bodies never come, free their connections too.
func TestHTTPBodiesWithoutHandler(t *testing.T) {
	slow(t)
	endpoint, _ := startHTTP(t)
	host := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), streamable.Path)
	var wg sync.WaitGroup
	for head, status := range map[string]int{"POST /mcp HTTP/1.1\r\nExpect: something\r\n": 417, "OPTIONS * HTTP/1.1\r\n": 404} {
		wg.Go(func() {
			conn, err := net.Dial("tcp", host)
			if !assert.NoError(t, err) {
				return
			}
			defer func() { _ = conn.Close() }()
			_, err = io.WriteString(conn, head+"Host: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
			assert.NoError(t, err)
			assert.NoError(t, conn.SetReadDeadline(time.Now().Add(4*streamable.BodyTimeout))) // a bound for a failure only
			r := bufio.NewReader(conn)
			resp, err := http.ReadResponse(r, nil)
			if !assert.NoError(t, err, head) {
				return
			}
			assert.Equal(t, status, resp.StatusCode, head)
			_, _ = io.Copy(io.Discard, resp.Body)
			_, err = r.ReadByte()
			assert.ErrorIs(t, err, io.EOF, "%s: the server ends the connection", head)
		})
	}
	wg.Wait()
}
