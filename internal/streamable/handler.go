// Package streamable serves an MCP server over Streamable HTTP through
// go-sdk's mcp.StreamableHTTPHandler, and adds what go-sdk v1.8.0 lacks;
// each part can go once go-sdk has it:
//
//   - Both eras on one endpoint (the specification's "Compatibility
//     Matrix"): go-sdk serves 2026-07-28 only when stateless, and
//     initialize sessions only when stateful.
//   - JSON-RPC errors only: go-sdk answers a malformed body, an unknown
//     method or session and more in text/plain, some with code 0
//     (go-sdk#976; HTTP error bodies are unsettled, modelcontextprotocol#1398).
//   - Cross-origin GETs refused: http.CrossOriginProtection lets GET
//     through, and here a GET opens a session's event stream.
//   - Bounds on the bodies in flight, the time a body takes to arrive, and
//     the number of sessions.
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

// Options configure a Handler. A zero field takes the default given.
type Options struct {
	Methods protocol.Methods // the methods the server answers (see protocol.Served)
	Logger  *slog.Logger

	MaxInFlightSize int64         // bytes in the bodies of the POSTs being served: 16 MiB
	BodyTimeout     time.Duration // a POST's wait for room and its body's arrival: 5 s
	MaxSessions     int           // sessions of the initialize handshake: 64
	WriteTimeout    time.Duration // a POST's call and reply, once its body is in: 30 s
}

const (
	maxBodySize    = 8 << 20          // bytes in a request body, as in a stdio line
	minPOSTWeight  = 256 << 10        // the least a POST counts for: at most 64 at once
	sessionTimeout = 30 * time.Minute // ends a session idle this long
)

// A Handler is the http.Handler of an MCP endpoint.
type Handler struct {
	opts           Options
	server         *mcp.Server
	legacy, modern *mcp.StreamableHTTPHandler
	inFlight       *semaphore.Weighted

	mu       sync.Mutex
	sessions map[string]time.Time // legacy session ids, and when each was last used
}

// NewHandler returns the handler that serves server.
func NewHandler(server *mcp.Server, opts Options) *Handler {
	opts.MaxInFlightSize = cmp.Or(opts.MaxInFlightSize, 16<<20)
	opts.BodyTimeout = cmp.Or(opts.BodyTimeout, 5*time.Second)
	opts.MaxSessions = cmp.Or(opts.MaxSessions, 64)
	opts.WriteTimeout = cmp.Or(opts.WriteTimeout, 30*time.Second)
	opts.Logger = cmp.Or(opts.Logger, slog.New(slog.DiscardHandler))
	getServer := func(*http.Request) *mcp.Server { return server }
	return &Handler{
		opts:   opts,
		server: server,
		legacy: mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{JSONResponse: true, Logger: opts.Logger,
			MaxRequestBodyBytes: maxBodySize, SessionTimeout: sessionTimeout}),
		modern: mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{JSONResponse: true, Logger: opts.Logger,
			MaxRequestBodyBytes: maxBodySize, Stateless: true}),
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
		// GET opens a legacy session's event stream, DELETE ends one; modern clients get 405.
		era := h.legacy
		if r.Header.Get("MCP-Protocol-Version") >= protocol.ModernVersion {
			era = h.modern
		}
		if refused := h.serve(era, w, r, nil); r.Method == http.MethodDelete && !refused {
			h.mu.Lock()
			delete(h.sessions, r.Header.Get("Mcp-Session-Id"))
			h.mu.Unlock()
		}
		return
	}
	// A POST waits for room for its Content-Length (maxBodySize if unknown).
	// The wait and the body share one deadline: the body may never come.
	deadline := time.Now().Add(h.opts.BodyTimeout)
	_ = http.NewResponseController(w).SetReadDeadline(deadline) // not every ResponseWriter has deadlines
	weight := min(max(r.ContentLength, minPOSTWeight), maxBodySize)
	if r.ContentLength < 0 {
		weight = maxBodySize
	}
	ctx, cancel := context.WithDeadline(r.Context(), deadline)
	defer cancel()
	if err := h.inFlight.Acquire(ctx, weight); err != nil {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusServiceUnavailable, nil, protocol.Errorf(jsonrpc.CodeInternalError,
			"server busy: %d bytes of requests are being served; retry", h.opts.MaxInFlightSize))
		return
	}
	defer h.inFlight.Release(weight)
	h.post(w, r)
}

// checkSite refuses what a web page could send through the user's browser
// (MCP, Streamable HTTP, "Security Warning"): a foreign Host on a loopback
// connection (DNS rebinding), or an Origin or Sec-Fetch-Site of another site.
func (h *Handler) checkSite(r *http.Request) error {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if ok && IsLoopback(local.String()) && !IsLoopback(r.Host) {
		return protocol.Errorf(jsonrpc.CodeInvalidRequest, "forbidden: Host %.60q is not a loopback name (a DNS rebinding attack?); use 127.0.0.1, [::1] or localhost", r.Host)
	}
	post := *r // CrossOriginProtection exempts GET, which here opens an event stream
	post.Method = http.MethodPost
	if err := http.NewCrossOriginProtection().Check(&post); err != nil {
		return protocol.Errorf(jsonrpc.CodeInvalidRequest, "forbidden: a request from a web page of another site (Origin %.60q); this local server answers MCP clients only", r.Header.Get("Origin"))
	}
	return nil
}

// IsLoopback reports whether host (or host:port) is localhost or a loopback IP.
func IsLoopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	ip, err := netip.ParseAddr(host)
	return host == "localhost" || err == nil && ip.IsLoopback()
}

// post reads one POSTed message, checks it, and serves it in its era.
func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodySize))
	if err != nil {
		status, why := http.StatusBadRequest, "reading the body: "+err.Error()
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			status, why = http.StatusRequestEntityTooLarge, fmt.Sprintf("message too large: a request body may hold at most %d bytes", maxBodySize)
		case errors.Is(err, os.ErrDeadlineExceeded):
			status, why = http.StatusRequestTimeout, fmt.Sprintf("the body did not arrive within %v", h.opts.BodyTimeout)
			w.Header().Set("Connection", "close")
		}
		writeError(w, status, nil, protocol.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %s", why))
		return
	}
	// Else net/http's background read would hit the deadline in a long call,
	// and cancel it. A reply not read within WriteTimeout ends its
	// connection, and frees its room in the in-flight bound.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Now().Add(h.opts.WriteTimeout))
	msg, err := protocol.Decode(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, msg.ID, err)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	session := r.Header.Get("Mcp-Session-Id")
	era, err := h.opts.Methods.Check(msg, r.Header.Get("MCP-Protocol-Version"))
	var e *jsonrpc.Error
	switch {
	case msg.Response:
		h.serve(h.legacy, w, r, nil)
	case err != nil && msg.ID == nil:
		w.WriteHeader(http.StatusAccepted) // a notification is never answered; one not served is dropped
	case err != nil && era == protocol.Legacy:
		writeError(w, http.StatusOK, msg.ID, err) // as any other response, which legacy clients read
	case errors.As(err, &e) && e.Code == jsonrpc.CodeMethodNotFound:
		writeError(w, http.StatusNotFound, msg.ID, err) // MCP 2026-07-28, Streamable HTTP
	case err != nil:
		writeError(w, http.StatusBadRequest, msg.ID, err)
	case era == protocol.Modern:
		h.serve(h.modern, w, r, msg.ID)
	case session != "":
		h.track(session, false)
		h.serve(h.legacy, w, r, msg.ID)
	case msg.Method != "initialize":
		writeError(w, http.StatusBadRequest, msg.ID, protocol.Errorf(jsonrpc.CodeInvalidRequest,
			"invalid request: no Mcp-Session-Id header: send initialize first, then the Mcp-Session-Id header of its response with every request of the session"))
	default:
		h.serve(h.legacy, w, r, msg.ID)
		h.track(w.Header().Get("Mcp-Session-Id"), true) // "" if initialize failed
	}
}

// serve has handler serve r, rewrites a plain-text error as JSON-RPC, and
// reports whether there was one.
func (h *Handler) serve(handler http.Handler, w http.ResponseWriter, r *http.Request, id json.RawMessage) (refused bool) {
	pw := &plainErrors{ResponseWriter: w}
	handler.ServeHTTP(pw, r)
	if pw.status == 0 {
		return false
	}
	msg := strings.TrimSpace(string(pw.text))
	if pw.status == http.StatusNotFound {
		msg += fmt.Sprintf(": the session has ended (it was idle for %v, was deleted, or the server restarted); "+
			"send initialize without Mcp-Session-Id to start a new one", sessionTimeout)
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
func writeError(w http.ResponseWriter, status int, id json.RawMessage, err error) {
	w.Header().Del("X-Content-Type-Options") // left by the http.Error this replaces
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(protocol.ErrorResponse(id, err)) // the client may have gone
}

// track records that a known or new legacy session was used now. A new one past
// MaxSessions ends the one idle the longest, whose client gets 404 and starts anew.
func (h *Handler) track(id string, isNew bool) {
	h.mu.Lock()
	if _, known := h.sessions[id]; known || isNew && id != "" {
		h.sessions[id] = time.Now()
	}
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
	if oldest == "" {
		return
	}
	h.opts.Logger.Info("ending the session idle the longest: too many sessions", "max", h.opts.MaxSessions)
	for s := range h.server.Sessions() {
		if s.ID() == oldest {
			if err := s.Close(); err != nil { // as its client's DELETE would
				h.opts.Logger.Warn("ending a session", "error", err)
			}
		}
	}
}
