// Package streamable serves an MCP server over the Streamable HTTP
// transport with go-sdk's own mcp.StreamableHTTPHandler, and keeps the
// promises that handler alone does not keep in go-sdk v1.8.0. Each
// shortfall, and what this package does instead:
//
//   - One era per handler: go-sdk serves 2026-07-28 requests only from a
//     stateless handler, and the sessions of the initialize handshake only
//     from a stateful one. Here the server has one of each, and each
//     request goes to the handler of its era (protocol.Methods.Check), as
//     the specification's "Compatibility Matrix" describes a dual-era
//     server.
//   - Errors in plain text: go-sdk answers a body that is not JSON-RPC, an
//     unknown method, a missing or unknown session, a wrong Content-Type
//     and more with a text/plain reason, and some errors with code 0
//     (go-sdk#976; the transport's error bodies are unsettled in the
//     specification, modelcontextprotocol#1398). Here each message is
//     checked with package protocol before go-sdk sees it, and a
//     plain-text error go-sdk still writes is rewritten as a JSON-RPC
//     error response with the request's id.
//   - Cross-origin GETs: http.CrossOriginProtection exempts GET, so a web
//     page could open a session's event stream through the user's
//     browser. Here the Origin check applies to every method.
//   - No bounds: on the request bodies in flight, on the time a body may
//     take to arrive, or on the number of sessions. Here there are (see
//     Options); once those are met, go-sdk's own handler could serve alone.
package streamable

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/semaphore"

	"mcp-hello-tools/internal/protocol"
)

// Options configure a Handler. Zero values mean the defaults given.
type Options struct {
	// Methods are the methods the server answers (see protocol.Served).
	Methods protocol.Methods
	Logger  *slog.Logger

	// MaxBodySize bounds a request body, in bytes: 8 MiB, as a stdio line.
	MaxBodySize int64
	// MaxInFlightSize bounds the bodies of the POSTs being served, in
	// bytes: 16 MiB. Each POST counts for its Content-Length, or
	// MaxBodySize when it has none, and at least 256 KiB: so at most 64
	// POSTs are served at once. The next waits for room.
	MaxInFlightSize int64
	// BodyTimeout bounds the time a body takes to arrive, and a POST's wait
	// for room: 5 s. Past it the answer is 408 or 503.
	BodyTimeout time.Duration
	// MaxSessions bounds the sessions of the initialize handshake: 64. A new
	// session beyond it ends the one idle the longest, whose client gets
	// 404 and may start a new one, as the transport specifies.
	MaxSessions int
	// SessionTimeout ends a session idle this long: 30 minutes.
	SessionTimeout time.Duration
}

// minPOSTWeight is the least a POST counts for against MaxInFlightSize.
const minPOSTWeight = 256 << 10

// A Handler is the http.Handler of an MCP endpoint.
type Handler struct {
	opts           Options
	server         *mcp.Server
	legacy, modern *mcp.StreamableHTTPHandler
	origins        *http.CrossOriginProtection
	inFlight       *semaphore.Weighted

	mu       sync.Mutex
	sessions map[string]time.Time // legacy session ids, and when each was last used
}

// NewHandler returns the handler that serves server.
func NewHandler(server *mcp.Server, opts Options) *Handler {
	opts.MaxBodySize = cmp.Or(opts.MaxBodySize, 8<<20)
	opts.MaxInFlightSize = cmp.Or(opts.MaxInFlightSize, 16<<20)
	opts.BodyTimeout = cmp.Or(opts.BodyTimeout, 5*time.Second)
	opts.MaxSessions = cmp.Or(opts.MaxSessions, 64)
	opts.SessionTimeout = cmp.Or(opts.SessionTimeout, 30*time.Minute)
	opts.Logger = cmp.Or(opts.Logger, slog.New(slog.DiscardHandler))
	getServer := func(*http.Request) *mcp.Server { return server }
	return &Handler{
		opts:   opts,
		server: server,
		legacy: mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{JSONResponse: true, Logger: opts.Logger,
			MaxRequestBodyBytes: opts.MaxBodySize, SessionTimeout: opts.SessionTimeout}),
		modern: mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{JSONResponse: true, Logger: opts.Logger,
			MaxRequestBodyBytes: opts.MaxBodySize, Stateless: true}),
		origins:  http.NewCrossOriginProtection(),
		inFlight: semaphore.NewWeighted(opts.MaxInFlightSize),
		sessions: map[string]time.Time{},
	}
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h.checkSite(r); err != nil {
		writeError(w, http.StatusForbidden, nil, err)
		return
	}
	if r.Method != http.MethodPost {
		// GET opens a legacy session's event stream and DELETE ends a
		// session; a modern client sends neither, and gets 405.
		era := h.legacy
		if r.Header.Get("MCP-Protocol-Version") >= protocol.ModernVersion {
			era = h.modern
		}
		h.serve(era, w, r, nil)
		if r.Method == http.MethodDelete {
			h.forget(r.Header.Get("Mcp-Session-Id"))
		}
		return
	}
	// The wait for room and the body's arrival share one deadline; past
	// it, the connection closes, as the rest of the body may never come.
	deadline := time.Now().Add(h.opts.BodyTimeout)
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(deadline) // not every ResponseWriter has deadlines
	weight := min(max(r.ContentLength, minPOSTWeight), h.opts.MaxBodySize)
	if r.ContentLength < 0 {
		weight = h.opts.MaxBodySize
	}
	ctx, cancel := context.WithDeadline(r.Context(), deadline)
	err := h.inFlight.Acquire(ctx, weight)
	cancel()
	if err != nil {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusServiceUnavailable, nil, protocol.Errorf(jsonrpc.CodeInternalError,
			"server busy: %d bytes of requests are being served; retry", h.opts.MaxInFlightSize))
		return
	}
	defer h.inFlight.Release(weight)
	h.post(w, r, rc)
}

// checkSite refuses the requests a web page could make through the user's
// browser (MCP, Streamable HTTP, "Security Warning"): one whose Host is
// not a loopback name, although it arrived on a loopback address (DNS
// rebinding: a page on evil.example whose name now resolves to 127.0.0.1),
// or whose Origin or Sec-Fetch-Site header says it comes from another site.
// Clients that are not browsers send neither header.
func (h *Handler) checkSite(r *http.Request) error {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && IsLoopback(local.String()) && !IsLoopback(host) {
		return protocol.Errorf(jsonrpc.CodeInvalidRequest, "forbidden: Host %.60q is not a loopback name (a DNS rebinding attack?); use 127.0.0.1, [::1] or localhost", r.Host)
	}
	// CrossOriginProtection exempts GET and HEAD, which cannot change
	// anything on a web server; here a GET opens an event stream.
	post := *r
	post.Method = http.MethodPost
	if err := h.origins.Check(&post); err != nil {
		return protocol.Errorf(jsonrpc.CodeInvalidRequest, "forbidden: a request from another site (Origin %.60q): %v", r.Header.Get("Origin"), err)
	}
	return nil
}

// IsLoopback reports whether host, a host or host:port, is "localhost" or a
// loopback IP address.
func IsLoopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	ip, err := netip.ParseAddr(host)
	return host == "localhost" || err == nil && ip.IsLoopback()
}

// post reads and checks one POSTed message, and hands it to the handler of
// its era.
func (h *Handler) post(w http.ResponseWriter, r *http.Request, rc *http.ResponseController) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodySize))
	if err == nil {
		_ = rc.SetReadDeadline(time.Time{})
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, nil, protocol.Errorf(jsonrpc.CodeInvalidRequest,
			"invalid request: message too large: a request body may hold at most %d bytes", h.opts.MaxBodySize))
		return
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close") // the rest of the body may never come
		writeError(w, http.StatusRequestTimeout, nil, protocol.Errorf(jsonrpc.CodeInvalidRequest,
			"invalid request: the body did not arrive within %v", h.opts.BodyTimeout))
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, nil, protocol.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: reading the body: %v", err))
		return
	}
	msg, err := protocol.Decode(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, msg.ID, err)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if msg.Response {
		h.serve(h.legacy, w, r, nil)
		return
	}
	era, err := h.opts.Methods.Check(msg, r.Header.Get("MCP-Protocol-Version"))
	switch {
	case err != nil && msg.ID == nil:
		w.WriteHeader(http.StatusAccepted) // a notification is never answered; one the server does not serve is dropped
	case err != nil:
		writeError(w, errorStatus(err, era), msg.ID, err)
	case era == protocol.Modern:
		h.serve(h.modern, w, r, msg.ID)
	case r.Header.Get("Mcp-Session-Id") != "":
		h.touch(r.Header.Get("Mcp-Session-Id"))
		h.serve(h.legacy, w, r, msg.ID)
	case msg.Method != "initialize":
		writeError(w, http.StatusBadRequest, msg.ID, protocol.Errorf(jsonrpc.CodeInvalidRequest,
			"invalid request: no Mcp-Session-Id header: send initialize first, then the Mcp-Session-Id header of its response with every request of the session"))
	default:
		if id := h.serve(h.legacy, w, r, msg.ID); id != "" {
			h.add(id)
		}
	}
}

// errorStatus is the HTTP status of a refused request (MCP 2026-07-28,
// Streamable HTTP): 404 for a method a modern request asks for that does
// not exist, 400 for the other errors of the modern era. A legacy request
// is answered as any other, with 200 and the JSON-RPC error, which clients
// of that era read.
func errorStatus(err error, era protocol.Era) int {
	var e *jsonrpc.Error
	switch {
	case era == protocol.Legacy:
		return http.StatusOK
	case errors.As(err, &e) && e.Code == jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	}
	return http.StatusBadRequest
}

// serve has handler serve r, with the plain-text errors it writes rewritten
// as JSON-RPC errors for the request with the given id, and returns the
// Mcp-Session-Id its response carries, if any.
func (h *Handler) serve(handler http.Handler, w http.ResponseWriter, r *http.Request, id json.RawMessage) string {
	pw := &plainErrors{ResponseWriter: w}
	handler.ServeHTTP(pw, r)
	session := w.Header().Get("Mcp-Session-Id")
	if pw.status != 0 {
		msg := strings.TrimSpace(string(pw.text))
		if pw.status == http.StatusNotFound {
			msg += fmt.Sprintf(": the session has ended (it was idle for %v, was deleted, or the server restarted); "+
				"send initialize without Mcp-Session-Id to start a new one", h.opts.SessionTimeout)
		}
		code := int64(jsonrpc.CodeInvalidRequest)
		if pw.status >= 500 {
			code = jsonrpc.CodeInternalError
		}
		writeError(w, pw.status, id, protocol.Errorf(code, "invalid request: %s", msg))
	}
	return session
}

// A plainErrors is the http.ResponseWriter go-sdk's handler writes to: it
// holds back an error the handler writes as text/plain, for serve to say
// again as JSON-RPC.
type plainErrors struct {
	http.ResponseWriter
	status int    // the status of a plain-text error held back, or 0
	text   []byte // its first 512 bytes
}

func (p *plainErrors) WriteHeader(status int) {
	if status >= 400 && strings.HasPrefix(p.Header().Get("Content-Type"), "text/plain") {
		p.status = status
		return
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *plainErrors) Write(b []byte) (int, error) {
	if p.status != 0 {
		p.text = append(p.text, b[:min(len(b), 512-len(p.text))]...)
		return len(b), nil
	}
	return p.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController, which go-sdk flushes event streams
// with, reach the server's own ResponseWriter.
func (p *plainErrors) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// writeError writes a JSON-RPC error response with the given status.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, err error) {
	w.Header().Del("X-Content-Type-Options")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(protocol.ErrorResponse(id, err)) // the client may have gone
}

// add records a new legacy session and, beyond MaxSessions, ends the one
// idle the longest, as its client's DELETE would.
func (h *Handler) add(id string) {
	h.mu.Lock()
	h.sessions[id] = time.Now()
	oldest := ""
	if len(h.sessions) > h.opts.MaxSessions {
		for s, used := range h.sessions {
			if oldest == "" || used.Before(h.sessions[oldest]) {
				oldest = s
			}
		}
		delete(h.sessions, oldest)
	}
	h.mu.Unlock()
	if oldest != "" {
		h.opts.Logger.Info("ended the session idle the longest: too many sessions", "max", h.opts.MaxSessions)
		for s := range h.server.Sessions() {
			if s.ID() == oldest {
				if err := s.Close(); err != nil { // as its client's DELETE would
					h.opts.Logger.Warn("ending a session", "error", err)
				}
			}
		}
	}
}

// touch records that a session has been used now.
func (h *Handler) touch(id string) {
	h.mu.Lock()
	if _, ok := h.sessions[id]; ok {
		h.sessions[id] = time.Now()
	}
	h.mu.Unlock()
}

// forget removes a session its client has ended.
func (h *Handler) forget(id string) {
	h.mu.Lock()
	delete(h.sessions, id)
	h.mu.Unlock()
}
