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
//     POST a JSON-RPC error of the specification; its id free at once,
//     which go-sdk keeps until its handler returns: go-sdk knows a 2025
//     session's requests by ids of the handler's own (newID).
//   - Bounds on the bytes of bodies, counted as they arrive, so that
//     bodies declared large and sent slowly do not keep small ones waiting;
//     on the time a body may take; on the sessions and what each keeps of
//     initialize; on the connections (Conns), so that those held without
//     a request do not keep a new one waiting.
//
// Two files: handler.go is what MCP needs, in the order a request lives:
// ServeHTTP, which has bound (bounds.go) apply every bound and protection
// first, once, and read a POST's body within its room; route; post, which
// has the message admitted (protocol.Methods.Admit) and picks its era; and
// serve, which has go-sdk's handler serve it, and whose writers hold back
// go-sdk's errors and give a reply its time to go out. bounds.go, which a
// reader may skip, holds the endpoint's limits, the connections (Conns),
// bound and the body's read.
package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
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
	stopping                  context.Context // done once the server shuts down (Shutdown)
	stop                      context.CancelFunc

	mu       sync.Mutex
	sessions map[string]time.Time // legacy session ids, and when each was last used
	calls    map[call]*heldError  // the legacy requests being served, for their cancellation
	lastID   atomic.Int64         // the last id go-sdk was handed for a legacy request (newID)
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
	stopping, stop := context.WithCancel(context.Background())
	return &Handler{methods: methods, log: logger, server: server, legacy: mcp.NewStreamableHTTPHandler(getServer, opts(false)),
		modern: mcp.NewStreamableHTTPHandler(getServer, opts(true)), inFlight: semaphore.NewWeighted(MaxInFlightSize),
		bodyTimeout: BodyTimeout, replyTimeout: BodyTimeout, maxAge: MaxConnectionAge, maxSessions: MaxSessions, sessions: map[string]time.Time{},
		calls: map[call]*heldError{}, stopping: stopping, stop: stop}
}

// Shutdown is for http.Server.RegisterOnShutdown: it ends the sessions'
// event streams, which never end by themselves, so that the server's
// Shutdown waits only for the requests in flight; those let finish. One
// still in flight when its context ends (the server gave up waiting) is
// answered 503, as the server stopping, not as a session that has ended.
func (h *Handler) Shutdown() { h.stop() }

// ServeHTTP implements http.Handler: once bound (bounds.go) has let a
// request through, and read a POST's body, route answers it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reply := &replyDeadline{ResponseWriter: w, timeout: h.replyTimeout}
	defer reply.start() // for a reply net/http writes once the handler returns
	body, room, ok := h.bound(reply, r)
	defer h.inFlight.Release(room)
	if ok {
		h.route(reply, r, body)
	}
}

// route answers a request that ServeHTTP let through, and has a POST to
// Path served; body is that POST's, read already.
func (h *Handler) route(w http.ResponseWriter, r *http.Request, body []byte) {
	switch {
	case r.URL.Path != Path:
		writeError(w, http.StatusNotFound, jsonrpc.ID{}, invalid("no MCP endpoint at %q: this server serves MCP at %s",
			protocol.Cut(r.URL.Path, protocol.MaxQuote), Path))
	case r.Method == http.MethodPost:
		h.post(w, r, body)
	case r.Method != http.MethodGet && r.Method != http.MethodDelete:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeError(w, http.StatusMethodNotAllowed, jsonrpc.ID{}, invalid("%q is not a method of %s: use POST, GET or DELETE, in capitals",
			protocol.Cut(r.Method, protocol.MaxQuote), Path))
	case r.ContentLength != 0:
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, invalid("a %s to %s has no body", r.Method, Path))
	default: // GET opens a legacy session's event stream, DELETE ends one
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{}) // an event stream lasts as long as its session, or the server
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(h.stopping, cancel)()
		r = r.WithContext(ctx)
		handler := h.legacy
		if r.Header.Get("MCP-Protocol-Version") >= protocol.ModernVersion {
			handler = h.modern // 405
		}
		if !h.serve(handler, w, r, jsonrpc.ID{}, jsonrpc.ID{}) && r.Method == http.MethodDelete {
			h.mu.Lock()
			delete(h.sessions, r.Header.Get("Mcp-Session-Id"))
			h.mu.Unlock()
		}
	}
}

// post serves a POSTed message: it has it admitted (package protocol), and
// the handler of its era serve it.
func (h *Handler) post(w http.ResponseWriter, r *http.Request, body []byte) {
	session := r.Header.Get("Mcp-Session-Id")
	msg, err := h.methods.Admit(body, r.Header.Get("MCP-Protocol-Version"), session != "")
	var refusal *protocol.Refusal
	errors.As(err, &refusal)
	switch req := msg.Request; {
	case refusal != nil && req == nil:
		writeError(w, http.StatusBadRequest, refusal.ID, refusal.Err)
	case msg.Response != nil:
		h.serve(h.legacy, w, r, jsonrpc.ID{}, jsonrpc.ID{}) // a client's response: go-sdk says 202
	case refusal != nil && refusal.Handshake: // a session is initialized once, first
		writeError(w, http.StatusBadRequest, req.ID, refusal.Err)
	case refusal != nil && !req.IsCall():
		w.WriteHeader(http.StatusAccepted) // a notification is never answered; one not served is dropped
	case refusal != nil && !msg.Modern:
		writeError(w, http.StatusOK, req.ID, refusal.Err) // as any other response, which legacy clients read
	case refusal != nil && refusal.Err.Code == jsonrpc.CodeMethodNotFound:
		writeError(w, http.StatusNotFound, req.ID, refusal.Err) // MCP 2026-07-28, Streamable HTTP
	case refusal != nil:
		writeError(w, http.StatusBadRequest, req.ID, refusal.Err)
	case msg.Modern:
		// A 2026-07-28 request has no session (MCP 2026-07-28, Streamable
		// HTTP, "Backward Compatibility": ignore Mcp-Session-Id): go-sdk's
		// stateless handler ignores the header, and it is served under its
		// own id (no sdkID), apart from the calls of the session it names.
		h.serve(h.modern, w, r, req.ID, jsonrpc.ID{})
	case req.Method == "initialize": // with what a session keeps of it
		kept, _ := jsonrpc.EncodeMessage(req) // it was decoded
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(kept)), int64(len(kept))
		h.serve(h.legacy, w, r, req.ID, jsonrpc.ID{})
		h.track(w.Header().Get("Mcp-Session-Id"), true) // "" if initialize failed
	default:
		h.track(session, false)
		if req.Method == "notifications/cancelled" {
			sdkID, ok := h.cancel(session, msg.Cancels)
			if !ok {
				// It names no request being served, and MCP lets it be ignored.
				// go-sdk cancels on a goroutine of its own, and could cancel a
				// request that reaches it later, answering it with code 0.
				w.WriteHeader(http.StatusAccepted)
				return
			}
			params, _ := json.Marshal(mcp.CancelledParams{RequestID: sdkID.Raw()}) // the request by go-sdk's id
			req = &jsonrpc.Request{Method: req.Method, Params: params}
			setBody(r, req)
		} else if req.IsCall() && session != "" {
			// go-sdk knows the request by an id of the handler's own, so that
			// a client may reuse its id once it cancels it, while go-sdk
			// still serves the first.
			clientID := req.ID
			req = &jsonrpc.Request{ID: h.newID(), Method: req.Method, Params: req.Params}
			setBody(r, req)
			h.serve(h.legacy, w, r, clientID, req.ID)
			return
		}
		h.serve(h.legacy, w, r, req.ID, jsonrpc.ID{})
	}
}

// newID returns an id go-sdk has never been handed by this handler.
func (h *Handler) newID() jsonrpc.ID {
	id, _ := jsonrpc.MakeID(float64(h.lastID.Add(1)))
	return id
}

// setBody makes req the body of r, without a copy of its params.
func setBody(r *http.Request, req *jsonrpc.Request) {
	head, _ := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: req.ID, Method: req.Method}) // a JSON object, its params left out
	parts := []io.Reader{bytes.NewReader(head)}
	size := int64(len(head))
	if req.Params != nil {
		parts = []io.Reader{bytes.NewReader(head[:len(head)-1]), strings.NewReader(`,"params":`), bytes.NewReader(req.Params), strings.NewReader("}")}
		size += int64(len(`,"params":`) + len(req.Params))
	}
	r.Body, r.ContentLength = io.NopCloser(io.MultiReader(parts...)), size
}

// serve has handler serve r, a request with the client's id (or none), and
// reports whether it answered in go-sdk's place: an error of go-sdk's,
// rewritten as JSON-RPC, its message cut; a reply to a request cancelled,
// dropped; or nothing at all. go-sdk returns without a word from a request
// whose session ends while it is served (deleted, or the server stopping),
// and net/http would send an empty 200: here it is a session that has
// ended. A request of a session goes to go-sdk under sdkID, and its reply
// back under id.
func (h *Handler) serve(handler http.Handler, w http.ResponseWriter, r *http.Request, id, sdkID jsonrpc.ID) (answered bool) {
	held := &heldError{ResponseWriter: w, id: id, sdkID: sdkID}
	if key := (call{r.Header.Get("Mcp-Session-Id"), id}); sdkID.IsValid() {
		h.mu.Lock()
		inUse := h.calls[key] != nil
		if !inUse {
			h.calls[key] = held
		}
		h.mu.Unlock()
		if inUse { // as on stdio, under null: its own id would be read as the reply to the request in flight
			writeError(w, http.StatusOK, jsonrpc.ID{}, protocol.InUse(id))
			return true
		}
		defer func() {
			h.mu.Lock()
			if h.calls[key] == held { // else cancelled, its id free already, perhaps in use again
				delete(h.calls, key)
			}
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
	case h.stopping.Err() != nil && r.Context().Err() != nil: // go-sdk says 404, or nothing
		held.status = http.StatusServiceUnavailable
		e = protocol.Errorf(jsonrpc.CodeInternalError, "server stopping: the request was still being served when the server "+
			"stopped waiting for requests in flight; send it again once the server is back")
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
	id, sdkID jsonrpc.ID // the request's, and go-sdk's for it if not the same
	status    int        // the status of the error held back, or 0
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
		if !p.wrote && p.sdkID.IsValid() {
			p.wrote = true
			_, err := p.ResponseWriter.Write(underID(b, p.sdkID, p.id))
			return len(b), err
		}
		p.wrote = true
		return p.ResponseWriter.Write(b)
	}
	return len(b), nil
}

// underID returns reply, a response go-sdk encoded under from, under to.
// go-sdk writes a JSON reply whole, encoded as jsonrpc.EncodeMessage does,
// whose head is then replaced, without a copy of a result of megabytes
// decoded and encoded again; a reply of another shape is.
func underID(reply []byte, from, to jsonrpc.ID) []byte {
	head := func(id jsonrpc.ID) []byte {
		data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id}) // {"jsonrpc":"2.0","id":…}
		return append(data[:len(data)-1], ',')
	}
	if fromHead := head(from); bytes.HasPrefix(reply, fromHead) {
		return append(head(to), reply[len(fromHead):]...)
	}
	msg, err := jsonrpc.DecodeMessage(reply)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || resp.ID != from {
		return reply
	}
	resp.ID = to
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return reply
	}
	return data
}

// Unwrap lets go-sdk's http.ResponseController flush event streams.
func (p *heldError) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// writeError writes a JSON-RPC error response with the given status.
func writeError(w http.ResponseWriter, status int, id jsonrpc.ID, e *jsonrpc.Error) {
	data, _ := protocol.Encode(&jsonrpc.Response{ID: id, Error: e}) // an error always encodes
	w.Header().Del("X-Content-Type-Options")                        // left by the http.Error this replaces
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data))) // the whole reply, even when flushed early
	w.WriteHeader(status)
	_, _ = w.Write(data) // the client may have gone
}

func invalid(format string, args ...any) *jsonrpc.Error {
	return protocol.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: "+format, args...)
}

// cancel marks the request that a notifications/cancelled names, if it is
// being served, so that serve drops its reply, and frees its id at once;
// it returns go-sdk's id for it, and whether it is.
func (h *Handler) cancel(session string, id jsonrpc.ID) (jsonrpc.ID, bool) {
	if !id.IsValid() {
		return jsonrpc.ID{}, false // it names no request
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	key := call{session, id}
	held := h.calls[key]
	if held == nil {
		return jsonrpc.ID{}, false
	}
	held.cancelled.Store(true)
	delete(h.calls, key)
	return held.sdkID, true
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
