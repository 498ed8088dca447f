package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/stdio"
	"mcp-hello-tools/tools"
)

// This file serves the tools over the Streamable HTTP transport of the MCP
// specification (2025-11-25, basic/transports): the client POSTs each
// JSON-RPC message to one endpoint, /mcp, and reads the reply as JSON or as
// a stream of server-sent events. The SDK's StreamableHTTPHandler does the
// protocol; this file adds what a local server without authentication needs
// around it.

// mcpPath is the URL path of the MCP endpoint.
const mcpPath = "/mcp"

// sessionTimeout is how long a Streamable HTTP session may stay idle before
// the server forgets it; a client that comes back later gets 404 Not Found
// and starts a new session, as the transport specifies.
const sessionTimeout = 30 * time.Minute

// maxRequestBodyBytes caps the size of one HTTP request body at the stdio
// transport's limit for one message, so that both transports accept the same
// tools/call: an echo of a million characters, even all escaped. A larger
// body is answered with 413 Request Entity Too Large as it is read, without
// being held in memory whole.
const maxRequestBodyBytes = stdio.DefaultMaxMessageSize

// shutdownGrace is how long a graceful shutdown waits for requests in flight
// before closing their connections.
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
	return serveListener(ctx, ln, server, logger)
}

// listenLoopback listens on addr after checking that its host is a loopback
// address. The server has no authentication: on any other interface, every
// program that can reach the port could call its tools.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("-http %q: %w; want host:port, such as 127.0.0.1:8080", addr, err)
	}
	if !isLoopbackHost(host) {
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

// isLoopbackHost reports whether host, the host part of a host:port address,
// is "localhost" or a loopback IP address. An empty host means every
// interface, so it is not.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// newHTTPHandler returns the HTTP handler of the server: the SDK's Streamable
// HTTP handler at /mcp, behind two checks against web pages that try to
// reach a local server through the user's browser.
//
//   - DNS rebinding: a page on evil.example whose name is made to resolve to
//     127.0.0.1 sends requests with "Host: evil.example". The SDK's handler
//     answers 403 Forbidden to a request that arrives on a loopback address
//     with a Host other than localhost or a loopback IP (on by default;
//     StreamableHTTPOptions.DisableLocalhostProtection turns it off).
//   - Cross-origin requests: a page on another origin POSTs to
//     http://127.0.0.1:PORT/mcp directly. http.CrossOriginProtection answers
//     403 when the browser's Sec-Fetch-Site or Origin header says the request
//     comes from another origin. Clients that are not browsers send neither
//     header and pass.
//
// Both follow the specification's security warning for Streamable HTTP
// (2025-11-25, basic/transports#security-warning).
func newHTTPHandler(server *mcp.Server, logger *slog.Logger) http.Handler {
	mcpHandler := mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{
			Logger:              logger,
			MaxRequestBodyBytes: maxRequestBodyBytes,
			// Without a timeout a session lives until its client deletes it,
			// and clients that just go away would add up.
			SessionTimeout: sessionTimeout,
		})
	mux := http.NewServeMux()
	mux.Handle(mcpPath, http.NewCrossOriginProtection().Handler(mcpHandler))
	return mux
}

// serveListener serves server on ln until ctx is cancelled, then shuts down:
// it stops accepting connections, lets requests in flight finish for up to
// shutdownGrace, and returns nil.
func serveListener(ctx context.Context, ln net.Listener, server *mcp.Server, logger *slog.Logger) error {
	// Shutdown waits for every request to finish, but a GET to /mcp is the
	// client's standing stream for server-initiated messages and finishes only
	// when the client leaves. Shutdown cancels those streams as it starts.
	streams, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	srv := &http.Server{
		Handler: endOnShutdown(streams, newHTTPHandler(server, logger)),
		// No ReadTimeout or WriteTimeout: they would cut the event streams
		// short. The body is small and capped instead.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(endStreams)

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

// endOnShutdown returns a handler that serves GET requests with a context
// that is also cancelled when done is, so that the SDK's handler ends their
// event streams.
func endOnShutdown(done context.Context, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			stop := context.AfterFunc(done, cancel)
			defer stop()
			r = r.WithContext(ctx)
		}
		next.ServeHTTP(w, r)
	})
}
