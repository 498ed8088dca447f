package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/netutil"

	"mcp-hello-tools/internal/protocol"
	"mcp-hello-tools/internal/streamable"
	"mcp-hello-tools/tools"
)

// This file serves the tools over the Streamable HTTP transport of the MCP
// specification: the client POSTs each JSON-RPC message to one endpoint,
// /mcp, and reads the reply. go-sdk's StreamableHTTPHandler does the
// protocol; internal/streamable wraps it with what a local server without
// authentication needs, and what go-sdk v1.8.0 leaves out.

// mcpPath is the URL path of the MCP endpoint.
const mcpPath = "/mcp"

// maxConnections bounds the HTTP connections open at once: more wait,
// unaccepted, until one closes, so that no number of clients can use up
// the process's file descriptors.
const maxConnections = 256

// shutdownGrace is how long a shutdown waits for requests in flight before
// closing their connections.
const shutdownGrace = 5 * time.Second

// errNotLoopback is returned, wrapped, for an -http address that is not a
// loopback address.
var errNotLoopback = errors.New("not a loopback address")

// serveHTTP serves server over Streamable HTTP at http://addr/mcp until ctx
// is cancelled, then shuts down gracefully. addr is host:port with a
// loopback host (127.0.0.1, [::1] or localhost); port 0 picks a free port,
// and the "serving" log line gives the URL.
func serveHTTP(ctx context.Context, addr string, server *mcp.Server, logger *slog.Logger) error {
	ln, err := listenLoopback(addr)
	if err != nil {
		return err
	}
	logger.Info("serving", "server", name, "version", version, "transport", "streamable-http",
		"url", "http://"+ln.Addr().String()+mcpPath, "tools", strings.Join(tools.Names(), ", "))
	return serveListener(ctx, netutil.LimitListener(ln, maxConnections), server, logger)
}

// listenLoopback listens on addr after checking that its host is a loopback
// address. The server has no authentication: on any other interface, every
// program that can reach the port could call its tools.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("-http %q: %w; want host:port, such as 127.0.0.1:8080", addr, err)
	}
	if !streamable.IsLoopback(host) {
		return nil, fmt.Errorf("-http %q: %w: the server has no authentication, so it listens only "+
			"on 127.0.0.1, [::1] or localhost, such as 127.0.0.1:8080", addr, errNotLoopback)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	// "localhost" is a name: check what it resolved to.
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		_ = ln.Close()
		return nil, fmt.Errorf("-http %q: listening on %s: %w", addr, ln.Addr(), errNotLoopback)
	}
	return ln, nil
}

// newHTTPHandler returns the HTTP handler of the server: the MCP endpoint at
// /mcp, and 404 elsewhere.
func newHTTPHandler(server *mcp.Server, logger *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(mcpPath, streamable.NewHandler(server, streamable.Options{
		Methods: protocol.Served(capabilities), Logger: logger}))
	return mux
}

// serveListener serves server on ln until ctx is cancelled, then shuts down:
// it stops accepting connections, lets requests in flight finish for up to
// shutdownGrace, and returns nil.
func serveListener(ctx context.Context, ln net.Listener, server *mcp.Server, logger *slog.Logger) error {
	// Shutdown waits for every request to finish, but a GET to /mcp is a
	// session's standing stream for server-initiated messages, which
	// finishes only when the client leaves: base contexts end with ctx.
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	srv := &http.Server{
		Handler:     newHTTPHandler(server, logger),
		BaseContext: func(net.Listener) context.Context { return base },
		// No ReadTimeout or WriteTimeout: they would cut event streams
		// short. The handler bounds the time a body takes instead.
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(cancelBase)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err // Serve failed before anyone asked it to stop
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		logger.Warn("shutdown: closing connections still active", "after", shutdownGrace, "error", err)
		if err := srv.Close(); err != nil {
			return err
		}
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
