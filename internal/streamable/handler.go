// Package streamable serves an MCP server over Streamable HTTP through
// go-sdk's mcp.StreamableHTTPHandler, and adds what go-sdk v1.8.0 lacks;
// each part can go once go-sdk has it:
//
//   - Both eras on one endpoint (the specification's "Compatibility
//     Matrix"): go-sdk serves 2026-07-28 only when stateless, and
//     initialize sessions only when stateful.
//   - JSON-RPC errors only, for every path: go-sdk answers a malformed
//     body, an unknown method or session and more in text/plain (HTTP error
//     bodies are unsettled, modelcontextprotocol#1398), and a second
//     initialize with code 0 (go-sdk#976).
//   - Cross-origin GETs refused: http.CrossOriginProtection lets GET
//     through, and here a GET opens a session's event stream.
//   - Bounds on the bodies in flight, the time a request's body may take,
//     the sessions and what each keeps, and (Listener) the connections.
package streamable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/semaphore"

	"mcp-hello-tools/internal/protocol"
)

// Path is where the MCP endpoint is served; other paths are 404.
const Path = "/mcp"

// The limits of the handler.
const (
	MaxBodySize     = 8 << 20          // bytes in a request body, as in a stdio line
	MaxInFlightSize = 16 << 20         // bytes in the bodies of the POSTs being served
	minPOSTWeight   = 256 << 10        // the least a POST counts for: at most 64 at once
	BodyTimeout     = 5 * time.Second  // a request's wait for room and for its body
	WriteTimeout    = 30 * time.Second // a POST's call and reply, once its body is in
	MaxSessions     = 64               // sessions of the initialize handshake
	SessionTimeout  = 30 * time.Minute // ends a session idle this long
	// MemoryLimit is the process's soft memory limit while it serves,
	// unless GOMEMLIMIT sets another: go-sdk copies a request some ten
	// times over, and past the limit the garbage collector works harder
	// rather than the process growing.
	MemoryLimit = 128 << 20
)

// A Handler is the http.Handler of an MCP endpoint.
type Handler struct {
	methods        protocol.Methods
	log            *slog.Logger
	server         *mcp.Server
	legacy, modern *mcp.StreamableHTTPHandler
	inFlight       *semaphore.Weighted
	bodyTimeout    time.Duration // BodyTimeout, WriteTimeout and MaxSessions; lowered in tests
	writeTimeout   time.Duration
	maxSessions    int

	mu       sync.Mutex
	sessions map[string]time.Time // legacy session ids, and when each was last used
}

// NewHandler returns the handler that serves server's methods at Path.
func NewHandler(server *mcp.Server, methods protocol.Methods, logger *slog.Logger) *Handler {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
	getServer := func(*http.Request) *mcp.Server { return server }
	return &Handler{
		methods: methods,
		log:     logger,
		server:  server,
		legacy: mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{JSONResponse: true, Logger: logger,
			MaxRequestBodyBytes: MaxBodySize, SessionTimeout: SessionTimeout}),
		modern: mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{JSONResponse: true, Logger: logger,
			MaxRequestBodyBytes: MaxBodySize, Stateless: true}),
		inFlight:     semaphore.NewWeighted(MaxInFlightSize),
		bodyTimeout:  BodyTimeout,
		writeTimeout: WriteTimeout,
		maxSessions:  MaxSessions,
		sessions:     map[string]time.Time{},
	}
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A body that never comes must not hold the connection: net/http reads
	// what a handler leaves of it, and would wait for ever.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.bodyTimeout)) // not every ResponseWriter has deadlines
	r.Host = strings.ToLower(r.Host)                      // go-sdk's Host check knows "localhost" only
	if err := h.checkSite(r); err != nil {
		writeError(w, http.StatusForbidden, jsonrpc.ID{}, err)
		return
	}
	switch {
	case r.URL.Path != Path:
		writeError(w, http.StatusNotFound, jsonrpc.ID{}, protocol.Errorf(jsonrpc.CodeInvalidRequest,
			"invalid request: no MCP endpoint at %.60q: this server serves MCP at %s", r.URL.Path, Path))
	case r.Method == http.MethodPost:
		h.post(w, r)
	case r.ContentLength != 0:
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, protocol.Errorf(jsonrpc.CodeInvalidRequest,
			"invalid request: a %s to %s has no body", r.Method, Path))
	default:
		// GET opens a legacy session's event stream, DELETE ends one; modern clients get 405.
		_ = rc.SetReadDeadline(time.Time{})
		handler := h.legacy
		if r.Header.Get("MCP-Protocol-Version") >= protocol.ModernVersion {
			handler = h.modern
		}
		if refused := h.serve(handler, w, r, jsonrpc.ID{}); r.Method == http.MethodDelete && !refused {
			h.mu.Lock()
			delete(h.sessions, r.Header.Get("Mcp-Session-Id"))
			h.mu.Unlock()
		}
	}
}

// checkSite refuses what a web page could send through the user's browser
// (MCP, Streamable HTTP, "Security Warning"): an Origin or Sec-Fetch-Site
// of another site, and, on another path than Path, a foreign Host on a
// loopback connection (DNS rebinding). On Path, go-sdk checks the Host.
func (h *Handler) checkSite(r *http.Request) error {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if r.URL.Path != Path && ok && IsLoopback(local.String()) && !IsLoopback(r.Host) {
		return protocol.Errorf(jsonrpc.CodeInvalidRequest, "forbidden: Host %.60q is not a loopback name (a DNS rebinding attack?); use 127.0.0.1, [::1] or localhost", r.Host)
	}
	post := *r // CrossOriginProtection exempts GET, which here opens an event stream
	post.Method = http.MethodPost
	if err := http.NewCrossOriginProtection().Check(&post); err != nil {
		return protocol.Errorf(jsonrpc.CodeInvalidRequest, "forbidden: a request from a web page of another site (Origin %.60q); this local server answers MCP clients only", r.Header.Get("Origin"))
	}
	return nil
}

// IsLoopback reports whether host, or host:port, is localhost or a
// loopback IP, as go-sdk's Host check has it.
func IsLoopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	ip, err := netip.ParseAddr(host)
	return strings.EqualFold(host, "localhost") || err == nil && ip.IsLoopback()
}

// post serves one POSTed message in its era. It waits for room for the
// body's Content-Length (MaxBodySize if unknown) within the body's
// deadline, as the body may never come.
func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > MaxBodySize {
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, tooLarge)
		return
	}
	weight := min(max(r.ContentLength, minPOSTWeight), MaxBodySize)
	if r.ContentLength < 0 {
		weight = MaxBodySize
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.bodyTimeout)
	defer cancel()
	if err := h.inFlight.Acquire(ctx, weight); err != nil {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, protocol.Errorf(jsonrpc.CodeInternalError,
			"server busy: %d bytes of requests are being served; retry", MaxInFlightSize))
		return
	}
	defer h.inFlight.Release(weight)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodySize))
	if err != nil {
		status, e := http.StatusBadRequest, protocol.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: reading the body: %v", err)
		var maxBytes *http.MaxBytesError
		switch {
		case errors.As(err, &maxBytes):
			status, e = http.StatusRequestEntityTooLarge, tooLarge
		case errors.Is(err, os.ErrDeadlineExceeded):
			status, e = http.StatusRequestTimeout, protocol.Errorf(jsonrpc.CodeInvalidRequest,
				"invalid request: the body did not arrive within %v", h.bodyTimeout)
		}
		w.Header().Set("Connection", "close")
		writeError(w, status, jsonrpc.ID{}, e)
		return
	}
	// Else net/http's background read would hit the deadline in a long call,
	// and cancel it. A reply not read within WriteTimeout ends its
	// connection, and frees its room in the in-flight bound.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Now().Add(h.writeTimeout))
	h.dispatch(w, r, body)
}

var tooLarge = protocol.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: message too large: a request body may hold at most %d bytes", MaxBodySize)

// dispatch checks the message in body and has the handler of its era
// serve it.
func (h *Handler) dispatch(w http.ResponseWriter, r *http.Request, body []byte) {
	msg, err := protocol.Decode(body)
	var refusal *protocol.Refusal
	if errors.As(err, &refusal) {
		writeError(w, http.StatusBadRequest, refusal.ID, refusal.Err)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	req, ok := msg.(*jsonrpc.Request)
	if !ok { // a client's response: go-sdk takes it, and says 202
		h.serve(h.legacy, w, r, jsonrpc.ID{})
		return
	}
	session := r.Header.Get("Mcp-Session-Id")
	modern, err := h.methods.Check(req, r.Header.Get("MCP-Protocol-Version"))
	var e *jsonrpc.Error
	switch {
	case err != nil && !req.IsCall():
		w.WriteHeader(http.StatusAccepted) // a notification is never answered; one not served is dropped
	case err != nil && !modern:
		writeError(w, http.StatusOK, req.ID, err) // as any other response, which legacy clients read
	case errors.As(err, &e) && e.Code == jsonrpc.CodeMethodNotFound:
		writeError(w, http.StatusNotFound, req.ID, err) // MCP 2026-07-28, Streamable HTTP
	case err != nil:
		writeError(w, http.StatusBadRequest, req.ID, err)
	case modern:
		h.serve(h.modern, w, r, req.ID)
	case session != "" && req.Method == "initialize": // go-sdk: code 0 (go-sdk#976)
		writeError(w, http.StatusBadRequest, req.ID, protocol.Errorf(jsonrpc.CodeInvalidRequest,
			"invalid request: this session is initialized already; to start another, send initialize without Mcp-Session-Id"))
	case session != "":
		h.track(session, false)
		h.serve(h.legacy, w, r, req.ID)
	case req.Method != "initialize":
		writeError(w, http.StatusBadRequest, req.ID, protocol.Errorf(jsonrpc.CodeInvalidRequest,
			"invalid request: no Mcp-Session-Id header: send initialize first, then the Mcp-Session-Id header of its response with every request of the session"))
	default:
		req.Params = protocol.KeptOfInitialize(req.Params)
		if kept, err := jsonrpc.EncodeMessage(req); err == nil {
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(kept)), int64(len(kept))
		}
		h.serve(h.legacy, w, r, req.ID)
		h.track(w.Header().Get("Mcp-Session-Id"), true) // "" if initialize failed
	}
}

// serve has handler serve r, rewrites a plain-text error as JSON-RPC, and
// reports whether there was one.
func (h *Handler) serve(handler http.Handler, w http.ResponseWriter, r *http.Request, id jsonrpc.ID) (refused bool) {
	pw := &plainErrors{ResponseWriter: w}
	handler.ServeHTTP(pw, r)
	if pw.status == 0 {
		return false
	}
	msg := strings.TrimSpace(string(pw.text))
	if pw.status == http.StatusNotFound {
		msg = fmt.Sprintf("session not found: it has ended (idle for %v, deleted by its client, ended to make room "+
			"for newer ones, at most %d, or the server restarted); send initialize without Mcp-Session-Id to start anew",
			SessionTimeout, h.maxSessions)
	}
	code := int64(jsonrpc.CodeInvalidRequest)
	if pw.status >= 500 {
		code = jsonrpc.CodeInternalError
	}
	writeError(w, pw.status, id, protocol.Errorf(code, "invalid request: %s", msg))
	return true
}

// A plainErrors holds back an error go-sdk writes as text/plain, for serve.
type plainErrors struct {
	http.ResponseWriter
	status int    // the status of the error held back, or 0
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

// Unwrap lets go-sdk's http.ResponseController flush event streams.
func (p *plainErrors) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// writeError writes a JSON-RPC error response with the given status.
func writeError(w http.ResponseWriter, status int, id jsonrpc.ID, err error) {
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		e = protocol.Errorf(jsonrpc.CodeInternalError, "%s", err)
	}
	data, _ := protocol.Encode(&jsonrpc.Response{ID: id, Error: e}) // an error always encodes
	w.Header().Del("X-Content-Type-Options")                        // left by the http.Error this replaces
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data) // the client may have gone
}

// track records that a known or new legacy session was used now. A new one past
// maxSessions ends the one idle the longest, whose client gets 404 and starts anew.
func (h *Handler) track(id string, isNew bool) {
	h.mu.Lock()
	if _, known := h.sessions[id]; known || isNew && id != "" {
		h.sessions[id] = time.Now()
	}
	oldest := ""
	if len(h.sessions) > h.maxSessions {
		for s, used := range h.sessions {
			if oldest == "" || used.Before(h.sessions[oldest]) {
				oldest = s
			}
		}
		delete(h.sessions, oldest)
	}
	h.mu.Unlock()
	if oldest == "" {
		return
	}
	h.log.Info("ending the session idle the longest: too many sessions", "max", h.maxSessions)
	for s := range h.server.Sessions() {
		if s.ID() == oldest {
			if err := s.Close(); err != nil { // as its client's DELETE would
				h.log.Warn("ending a session", "error", err)
			}
		}
	}
}
