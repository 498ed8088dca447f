package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/internal/protocol"
	"mcp-hello-tools/internal/streamable"
)

const (
	maxConnections = 256             // open at once, so file descriptors last (streamable.Conns)
	shutdownGrace  = 5 * time.Second // how long shutdown waits for requests in flight
	answerGrace    = time.Second     // then how long for those still in flight to be answered as the server stopping
)

// errNotLoopback is returned, wrapped, for an -http address not on loopback.
var errNotLoopback = errors.New("not a loopback address")

// serveHTTP serves server over Streamable HTTP until ctx is cancelled: a
// client POSTs each JSON-RPC message to http://addr/mcp and reads the reply.
// Port 0 picks a free port, and the "serving" log line gives the URL.
func serveHTTP(ctx context.Context, addr string, server *mcp.Server, logger *slog.Logger) error {
	ln, err := listenLoopback(addr)
	if err != nil {
		return err
	}
	logger.Info("serving", "server", name, "version", version, "transport", "streamable-http",
		"url", "http://"+ln.Addr().String()+streamable.Path)
	return serveListener(ctx, ln, server, logger)
}

// listenLoopback listens on addr if its host is loopback: the server has no
// authentication, so elsewhere any program that reaches the port could call tools.
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
	if err == nil && !streamable.IsLoopback(ln.Addr().String()) { // what "localhost" resolved to
		_ = ln.Close()
		return nil, fmt.Errorf("-http %q: listening on %s: %w", addr, ln.Addr(), errNotLoopback)
	}
	return ln, err
}

// serveListener serves server at /mcp on ln until ctx is cancelled, then
// lets requests in flight finish for up to shutdownGrace.
func serveListener(ctx context.Context, ln net.Listener, server *mcp.Server, logger *slog.Logger) error {
	handler := streamable.NewHandler(server, protocol.Served(capabilities), logger)
	// Requests outlive ctx, so that those in flight finish; they end once
	// shutdown stops waiting for them. Event streams end with shutdown
	// (handler.Shutdown), lest it wait for them.
	requests, endRequests := context.WithCancel(context.Background())
	defer endRequests()
	srv := &http.Server{
		Handler:     handler,
		BaseContext: func(net.Listener) context.Context { return requests },
		// The handler bounds each body and reply, and lifts the bounds for
		// event streams; ReadTimeout bounds what net/http reads without it
		// (a body after its own 417). An idle connection closes after
		// IdleTimeout (each answer's Keep-Alive header tells clients a
		// second less), a busy one after streamable.MaxConnectionAge.
		ReadHeaderTimeout:            streamable.BodyTimeout,
		ReadTimeout:                  2 * streamable.BodyTimeout, // the headers, then the body
		IdleTimeout:                  streamable.BodyTimeout,
		ConnContext:                  streamable.ConnContext,
		DisableGeneralOptionsHandler: true, // else net/http answers OPTIONS * itself, in plain text
		MaxHeaderBytes:               64 << 10,
		ErrorLog:                     slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(handler.Shutdown)
	conns := streamable.LimitConns(ln, maxConnections)
	srv.ConnState = conns.ConnState
	served := make(chan error, 1)
	go func() { served <- srv.Serve(conns) }()
	select {
	case err := <-served:
		return err // Serve failed before anyone asked it to stop
	case <-ctx.Done():
	}
	logger.Info("stopping: letting requests in flight finish", "within", shutdownGrace)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		// Each request still in flight is answered as the server stopping,
		// and its connection closed.
		logger.Warn("shutdown: ending requests still in flight", "after", shutdownGrace, "error", err)
		endRequests()
		answered, cancel := context.WithTimeout(context.Background(), answerGrace)
		defer cancel()
		if errors.Is(srv.Shutdown(answered), context.DeadlineExceeded) {
			logger.Warn("shutdown: closing connections still active", "after", shutdownGrace+answerGrace)
		}
		return srv.Close()
	}
	return nil
}
