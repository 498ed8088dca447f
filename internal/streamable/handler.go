// Package streamable serves an MCP server over Streamable HTTP through
// go-sdk's mcp.StreamableHTTPHandler, and adds what go-sdk v1.8.0 lacks;
// each part can go once go-sdk has it:
//
//   - Both eras on one endpoint (the specification's "Compatibility
//     Matrix"): go-sdk serves 2026-07-28 only when stateless, and
//     initialize sessions only when stateful.
//   - JSON-RPC errors only, on every path, quoting a little of the
//     request: go-sdk answers a malformed body, an unknown session and more
//     in text/plain (HTTP error bodies are unsettled,
//     modelcontextprotocol#1398), a second initialize with code 0
//     (go-sdk#976), a bad params with its decoder's words, and a header
//     that differs from the body quoting both whole.
//   - Cross-origin GETs refused: http.CrossOriginProtection lets GET
//     through, and here a GET opens a session's event stream.
//   - No reply to a request its client cancelled (MCP's "Cancellation"),
//     which go-sdk answers with code 0 if it had not started yet, and its
//     POST a JSON-RPC error of the specification.
//   - Bounds on the bytes of bodies, counted as they arrive, so that
//     bodies declared large and sent slowly do not keep small ones waiting;
//     on the time a body may take; on the sessions and what each keeps of
//     initialize; on the connections (Conns), so that those held without
//     a request do not keep a new one waiting.
package streamable

import (
	"bytes"
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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/semaphore"

	"mcp-hello-tools/internal/protocol"
)

// The endpoint, and its limits; exported for http.go, and for the test of
// docs/limits.md.
const (
	Path            = "/mcp"           // other paths are 404
	MaxBodySize     = 8 << 20          // bytes in a body, as in a stdio line
	SmallBodySize   = 16 << 10         // bytes of each body that need no room in MaxInFlightSize
	MaxInFlightSize = 16 << 20         // bytes of the bodies being read or served, past each one's SmallBodySize
	BodyTimeout     = 5 * time.Second  // each: for a request's headers, its body, its reply; an idle connection
	MaxSessions     = 64               // legacy sessions; a new one past that ends the one idle the longest
	MaxDrain        = 2 * MaxBodySize  // bytes of a refused body read and dropped, so that its client reads the refusal
	SessionTimeout  = 30 * time.Minute // ends a session idle this long
	// A connection that has waited this long for a request's headers may be
	// closed to make room for a new one (Conns).
	ConnGrace = 250 * time.Millisecond
	// A connection older closes after its next reply, so that one waiting
	// to be accepted has its turn, however busy clients keep theirs.
	MaxConnectionAge = 10 * time.Second
	// Answers tell clients, in a Keep-Alive header, to close a connection
	// idle this long, a second before the server does (BodyTimeout): a
	// request sent as the server closes its connection is reset.
	idleHint = BodyTimeout - time.Second
)

// ConnContext is an http.Server's ConnContext: it notes when a connection
// was accepted, for MaxConnectionAge, and which it is, for Conns.
func ConnContext(ctx context.Context, nc net.Conn) context.Context {
	if c, ok := nc.(*conn); ok {
		ctx = context.WithValue(ctx, connKey{}, c)
	}
	return context.WithValue(ctx, acceptedKey{}, time.Now())
}

type acceptedKey struct{}

// A Handler is the http.Handler of an MCP server.
type Handler struct {
	methods                   protocol.Methods
	log                       *slog.Logger
	server                    *mcp.Server
	legacy, modern            http.Handler
	inFlight                  *semaphore.Weighted
	waiting                   atomic.Bool   // a body waits for room in inFlight
	bodyTimeout, replyTimeout time.Duration // BodyTimeout, both; lowered in tests
	maxAge                    time.Duration // MaxConnectionAge
	maxSessions               int

	mu       sync.Mutex
	sessions map[string]time.Time // legacy session ids, and when each was last used
	calls    map[call]*heldError  // the legacy requests being served, for their cancellation
}

// A call is a legacy request: its session, and its id.
type call struct {
	session string
	id      jsonrpc.ID
}

// NewHandler returns the handler that serves server's methods at Path.
func NewHandler(server *mcp.Server, methods protocol.Methods, logger *slog.Logger) *Handler {
	getServer := func(*http.Request) *mcp.Server { return server }
	opts := func(stateless bool) *mcp.StreamableHTTPOptions {
		return &mcp.StreamableHTTPOptions{JSONResponse: true, Logger: logger, MaxRequestBodyBytes: MaxBodySize,
			SessionTimeout: SessionTimeout, Stateless: stateless}
	}
	return &Handler{methods: methods, log: logger, server: server, legacy: mcp.NewStreamableHTTPHandler(getServer, opts(false)),
		modern: mcp.NewStreamableHTTPHandler(getServer, opts(true)), inFlight: semaphore.NewWeighted(MaxInFlightSize),
		bodyTimeout: BodyTimeout, replyTimeout: BodyTimeout, maxAge: MaxConnectionAge, maxSessions: MaxSessions, sessions: map[string]time.Time{},
		calls: map[call]*heldError{}}
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	serving(r)
	// A body that never comes must not hold the connection: net/http reads
	// what a handler leaves of it, and would wait for ever. Nor may a reply
	// its client does not read.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.bodyTimeout)) // not every ResponseWriter has deadlines
	reply := &replyDeadline{ResponseWriter: w, timeout: h.replyTimeout}
	if r.ContentLength != 0 { // until it is read, net/http may wait for the body before it sends the reply
		reply.timeout += h.bodyTimeout
	}
	defer reply.start() // for a reply net/http writes once the handler returns
	w = reply
	if accepted, ok := r.Context().Value(acceptedKey{}).(time.Time); ok && time.Since(accepted) >= h.maxAge {
		w.Header().Set("Connection", "close")
	} else {
		w.Header().Set("Keep-Alive", "timeout="+strconv.Itoa(int(idleHint/time.Second)))
	}
	r.Host = strings.ToLower(r.Host) // go-sdk's Host check knows "localhost" only
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	post := *r // CrossOriginProtection exempts GET, which here opens an event stream
	post.Method = http.MethodPost
	switch {
	case http.NewCrossOriginProtection().Check(&post) != nil:
		writeError(w, http.StatusForbidden, jsonrpc.ID{}, invalid("forbidden: a request from a web page of another site (Origin %q); "+
			"this local server answers MCP clients only", protocol.Cut(r.Header.Get("Origin"), protocol.MaxQuote)))
	case local != nil && IsLoopback(local.String()) && !IsLoopback(r.Host): // DNS rebinding: go-sdk checks /mcp only, not every request
		writeError(w, http.StatusForbidden, jsonrpc.ID{}, invalid("forbidden: Host %q is not a loopback name (a DNS rebinding attack?); "+
			"use 127.0.0.1, [::1] or localhost", protocol.Cut(r.Host, protocol.MaxQuote)))
	case r.URL.Path == Path && r.Method == http.MethodPost:
		h.post(reply, r)
	case r.URL.Path == Path && r.Method != http.MethodGet && r.Method != http.MethodDelete:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeError(w, http.StatusMethodNotAllowed, jsonrpc.ID{}, invalid("%q is not a method of %s: use POST, GET or DELETE, in capitals",
			protocol.Cut(r.Method, protocol.MaxQuote), Path))
	case r.URL.Path == Path && r.ContentLength != 0:
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, invalid("a %s to %s has no body", r.Method, Path))
	case r.URL.Path == Path: // GET opens a legacy session's event stream, DELETE ends one
		_ = rc.SetReadDeadline(time.Time{})
		handler := h.legacy
		if r.Header.Get("MCP-Protocol-Version") >= protocol.ModernVersion {
			handler = h.modern // 405
		}
		if !h.serve(handler, w, r, jsonrpc.ID{}) && r.Method == http.MethodDelete {
			h.mu.Lock()
			delete(h.sessions, r.Header.Get("Mcp-Session-Id"))
			h.mu.Unlock()
		}
	default:
		writeError(w, http.StatusNotFound, jsonrpc.ID{}, invalid("no MCP endpoint at %q: this server serves MCP at %s",
			protocol.Cut(r.URL.Path, protocol.MaxQuote), Path))
	}
}

// IsLoopback reports whether host, or host:port, is localhost or a
// loopback IP, as go-sdk's Host check has it.
func IsLoopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return strings.EqualFold(host, "localhost") || err == nil && ip.IsLoopback()
}

// post serves a POSTed message.
func (h *Handler) post(w *replyDeadline, r *http.Request) {
	if r.ContentLength > MaxBodySize {
		h.refuse(w, r, http.StatusRequestEntityTooLarge, tooLarge)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.bodyTimeout) // as the body's read deadline
	defer cancel()
	body, room, err := h.read(ctx, http.MaxBytesReader(w, r.Body, MaxBodySize))
	defer h.inFlight.Release(room)
	var maxBytes *http.MaxBytesError
	switch {
	case errors.Is(err, errBusy):
		w.Header().Set("Retry-After", "1")
		h.refuse(w, r, http.StatusServiceUnavailable, protocol.Errorf(jsonrpc.CodeInternalError,
			"server busy: %d bytes of requests are being read or served; retry", MaxInFlightSize))
		return
	case errors.As(err, &maxBytes):
		h.refuse(w, r, http.StatusRequestEntityTooLarge, tooLarge)
		return
	case errors.Is(err, os.ErrDeadlineExceeded):
		writeError(w, http.StatusRequestTimeout, jsonrpc.ID{}, invalid("the body did not arrive within %v", h.bodyTimeout))
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, invalid("reading the body: %v", err))
		return
	}
	// Else net/http's background read would hit the deadline in a long call,
	// and cancel it.
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	w.timeout = h.replyTimeout
	r.Body = io.NopCloser(bytes.NewReader(body))
	msg, err := protocol.Decode(body)
	var refusal *protocol.Refusal
	if errors.As(err, &refusal) {
		writeError(w, http.StatusBadRequest, refusal.ID, refusal.Err)
		return
	} else if req, ok := msg.(*jsonrpc.Request); ok {
		h.request(w, r, req)
	} else {
		h.serve(h.legacy, w, r, jsonrpc.ID{}) // a client's response: go-sdk says 202
	}
}

// read reads a body in chunks. The first, of SmallBodySize bytes, is the
// body's own: a connection reads one body at a time, so these are bounded
// by the connections. Room for each next chunk, of readChunk bytes, is
// taken from inFlight as the one before fills, so that a body holds room
// for the bytes it has sent, and at most readChunk more (a buffer that
// doubled held 8 MiB for a body of 4 MiB and a byte); the room is kept
// until the body is answered. A body that finds none waits for it until
// ctx is done, if no other body waits; else it gets errBusy at once, its
// room given back. Bodies that waited together would each hold room that
// the others need to finish; one alone is given room as others are
// refused (inFlight serves its waiter first).
func (h *Handler) read(ctx context.Context, body io.Reader) (data []byte, room int64, err error) {
	var full [][]byte
	size := 0
	chunk := make([]byte, 0, SmallBodySize)
	for {
		if len(chunk) == cap(chunk) {
			full = append(full, chunk)
			more := int64(min(readChunk, MaxBodySize+1-size)) // one byte past the limit, for MaxBytesReader to say so
			if !h.inFlight.TryAcquire(more) && !h.wait(ctx, more) {
				h.inFlight.Release(room)
				return nil, 0, errBusy
			}
			room += more
			chunk = make([]byte, 0, more)
		}
		n, err := body.Read(chunk[len(chunk):cap(chunk)])
		chunk, size = chunk[:len(chunk)+n], size+n
		if err == io.EOF {
			if full == nil {
				return chunk, room, nil
			}
			// Whole, the body is held twice for as long as the copy takes.
			data = make([]byte, 0, size)
			for _, c := range append(full, chunk) {
				data = append(data, c...)
			}
			return data, room, nil
		} else if err != nil {
			return nil, room, err
		}
	}
}

// readChunk is the room, in bytes, that a body takes at a time past its
// first SmallBodySize.
const readChunk = 64 << 10

var errBusy = errors.New("no room for the body")

// wait waits for room until ctx is done, if no other body waits, and
// reports whether it has it.
func (h *Handler) wait(ctx context.Context, room int64) bool {
	if !h.waiting.CompareAndSwap(false, true) {
		return false
	}
	defer h.waiting.Store(false)
	return h.inFlight.Acquire(ctx, room) == nil
}

// refuse answers a POST whose body is still coming, then reads and drops
// what is left of the body, at most MaxDrain bytes for up to bodyTimeout
// more, and closes the connection: a connection closed with bytes unread
// is reset, and the reset can destroy the answer before its client reads
// it (Node's fetch, which sends the whole body before it reads, saw EPIPE
// in place of a 413, one run in three).
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, e *jsonrpc.Error) {
	rc := http.NewResponseController(w)
	// A connection to close is one whose body net/http leaves to the
	// handler, and whose rest is never read as the next request.
	w.Header().Set("Connection", "close")
	writeError(w, status, jsonrpc.ID{}, e)
	_ = rc.Flush()
	_ = rc.SetReadDeadline(time.Now().Add(h.bodyTimeout))
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxDrain))
}

var tooLarge = invalid("message too large: a request body may hold at most %d bytes", MaxBodySize)

func invalid(format string, args ...any) *jsonrpc.Error {
	return protocol.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: "+format, args...)
}

// request checks a request, and has the handler of its era serve it.
func (h *Handler) request(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) {
	session := r.Header.Get("Mcp-Session-Id")
	modern, err := h.methods.Check(req, r.Header.Get("MCP-Protocol-Version"))
	var e *jsonrpc.Error
	switch {
	case err != nil && !req.IsCall():
		w.WriteHeader(http.StatusAccepted) // a notification is never answered; one not served is dropped
	case errors.As(err, &e) && !modern:
		writeError(w, http.StatusOK, req.ID, e) // as any other response, which legacy clients read
	case errors.As(err, &e) && e.Code == jsonrpc.CodeMethodNotFound:
		writeError(w, http.StatusNotFound, req.ID, e) // MCP 2026-07-28, Streamable HTTP
	case errors.As(err, &e):
		writeError(w, http.StatusBadRequest, req.ID, e)
	case modern:
		// A 2026-07-28 request has no session (MCP 2026-07-28, Streamable
		// HTTP, "Backward Compatibility": ignore Mcp-Session-Id): with it,
		// it would share the ids of the 2025 session it names.
		r.Header.Del("Mcp-Session-Id")
		h.serve(h.modern, w, r, req.ID)
	case errors.As(protocol.Handshake(req.Method, session != ""), &e): // a session is initialized once, first
		writeError(w, http.StatusBadRequest, req.ID, e)
	case session != "":
		h.track(session, false)
		if req.Method == "notifications/cancelled" && !h.cancel(session, req.Params) {
			// It names no request being served, and MCP lets it be ignored.
			// go-sdk cancels on a goroutine of its own, and could cancel a
			// request that reaches it later, answering it with code 0.
			w.WriteHeader(http.StatusAccepted)
			return
		}
		h.serve(h.legacy, w, r, req.ID)
	default:
		req.Params = protocol.KeptOfInitialize(req.Params)
		kept, _ := jsonrpc.EncodeMessage(req) // it was decoded
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(kept)), int64(len(kept))
		h.serve(h.legacy, w, r, req.ID)
		h.track(w.Header().Get("Mcp-Session-Id"), true) // "" if initialize failed
	}
}

// serve has handler serve r, and reports whether it answered in go-sdk's
// place: an error of go-sdk's, rewritten as JSON-RPC, its message cut; a
// reply to a request cancelled, dropped; or nothing at all. go-sdk returns
// without a word from a request whose session ends while it is served
// (deleted, or the server stopping), and net/http would send an empty 200:
// here it is a session that has ended.
func (h *Handler) serve(handler http.Handler, w http.ResponseWriter, r *http.Request, id jsonrpc.ID) (answered bool) {
	held := &heldError{ResponseWriter: w}
	if key := (call{r.Header.Get("Mcp-Session-Id"), id}); key.session != "" && id.IsValid() {
		h.mu.Lock()
		inUse := h.calls[key] != nil
		if !inUse {
			h.calls[key] = held
		}
		h.mu.Unlock()
		if inUse { // as on stdio, under null: its own id would be read as the reply to the request in flight
			writeError(w, http.StatusOK, jsonrpc.ID{}, invalid("id %s is in use by a request in flight", protocol.Cut(fmt.Sprint(id.Raw()), protocol.MaxQuote)))
			return true
		}
		defer func() {
			h.mu.Lock()
			delete(h.calls, key)
			h.mu.Unlock()
		}()
	}
	handler.ServeHTTP(held, r)
	if held.wrote {
		return false
	}
	var reply struct {
		Error *jsonrpc.Error `json:"error"`
	}
	e := invalid("%s", protocol.Inert(strings.TrimSpace(string(held.body))))
	switch {
	case held.status == 0 && held.cancelled.Load():
		held.status = http.StatusOK // as any other response, which legacy clients read
		e = protocol.Errorf(jsonrpc.CodeInternalError, "request cancelled: the client sent notifications/cancelled for it, "+
			"and MCP sends no reply to a cancelled request; this error only ends its POST")
	case json.Unmarshal(held.body, &reply) == nil && reply.Error != nil:
		e = reply.Error // as a header mismatch, which quotes the headers and the tool's name whole
		e.Message = protocol.Inert(e.Message)
	case held.status == http.StatusNotFound || held.status == 0:
		held.status = http.StatusNotFound
		e = invalid("session not found: it has ended (idle for %v, deleted by its client, ended to make room for newer "+
			"ones, at most %d, or the server stopped); send initialize without Mcp-Session-Id to start anew", SessionTimeout, h.maxSessions)
	case held.status >= 500:
		e.Code = jsonrpc.CodeInternalError
	}
	writeError(w, held.status, id, e)
	return true
}

// A heldError holds back an error go-sdk writes, in plain text or JSON, for
// serve, and drops the reply to a request its client cancelled, unless it
// is going out already. Its body quotes at most the request's headers and
// body.
type heldError struct {
	http.ResponseWriter
	status    int // the status of the error held back, or 0
	body      []byte
	wrote     bool        // whether go-sdk wrote anything else
	cancelled atomic.Bool // set by another request: the client's notifications/cancelled
}

func (p *heldError) WriteHeader(status int) {
	switch {
	case p.cancelled.Load() && !p.wrote:
	case status >= 400:
		p.status = status
	default:
		p.wrote = true
		p.ResponseWriter.WriteHeader(status)
	}
}

func (p *heldError) Write(b []byte) (int, error) {
	switch {
	case p.status != 0:
		p.body = append(p.body, b...)
	case p.cancelled.Load() && !p.wrote:
	default:
		p.wrote = true
		return p.ResponseWriter.Write(b)
	}
	return len(b), nil
}

// Unwrap lets go-sdk's http.ResponseController flush event streams.
func (p *heldError) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// A replyDeadline gives a reply, once it starts, timeout to go out: one its
// client does not read ends its connection, and frees its room in the bytes
// in flight. An event stream has none: it lasts as long as its session.
// net/http keeps a deadline for the connection's next requests, so every
// reply sets its own.
type replyDeadline struct {
	http.ResponseWriter
	timeout time.Duration
	started bool
}

func (d *replyDeadline) WriteHeader(status int) {
	d.start()
	d.ResponseWriter.WriteHeader(status)
}

func (d *replyDeadline) Write(b []byte) (int, error) {
	d.start()
	return d.ResponseWriter.Write(b)
}

func (d *replyDeadline) start() {
	if d.started {
		return
	}
	d.started = true
	deadline := time.Now().Add(d.timeout)
	if d.Header().Get("Content-Type") == "text/event-stream" {
		deadline = time.Time{}
	}
	_ = http.NewResponseController(d.ResponseWriter).SetWriteDeadline(deadline)
}

// Unwrap lets go-sdk's http.ResponseController flush event streams.
func (d *replyDeadline) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// writeError writes a JSON-RPC error response with the given status.
func writeError(w http.ResponseWriter, status int, id jsonrpc.ID, e *jsonrpc.Error) {
	data, _ := protocol.Encode(&jsonrpc.Response{ID: id, Error: e}) // an error always encodes
	w.Header().Del("X-Content-Type-Options")                        // left by the http.Error this replaces
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data))) // the whole reply, even when flushed early
	w.WriteHeader(status)
	_, _ = w.Write(data) // the client may have gone
}

// cancel marks the request that a notifications/cancelled names, if it is
// being served, so that serve drops its reply, and reports whether it is.
func (h *Handler) cancel(session string, params json.RawMessage) bool {
	id := protocol.CancelledID(params)
	if !id.IsValid() {
		return false // it names no request
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	held := h.calls[call{session, id}]
	if held != nil {
		held.cancelled.Store(true)
	}
	return held != nil
}

// track records that a known or new legacy session was used now. A new one
// past maxSessions ends the one idle the longest, whose client gets 404.
func (h *Handler) track(id string, isNew bool) {
	h.mu.Lock()
	if _, known := h.sessions[id]; known || isNew && id != "" {
		h.sessions[id] = time.Now()
	}
	oldest := ""
	for s, used := range h.sessions {
		if len(h.sessions) > h.maxSessions && (oldest == "" || used.Before(h.sessions[oldest])) {
			oldest = s
		}
	}
	delete(h.sessions, oldest)
	h.mu.Unlock()
	for s := range h.server.Sessions() {
		if oldest != "" && s.ID() == oldest {
			h.log.Info("ending the session idle the longest: too many sessions", "max", h.maxSessions)
			_ = s.Close() // as its client's DELETE would
		}
	}
}
