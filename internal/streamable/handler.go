package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/semaphore"

	"mcp-hello-tools/internal/protocol"
)

// A Handler is the http.Handler of an MCP server: ServeHTTP has bound let
// a request through, route answer it, and post serve a POST in its era.
type Handler struct {
	methods                   protocol.Methods
	log                       *slog.Logger
	server                    *mcp.Server
	legacy, modern            http.Handler
	inFlight                  *semaphore.Weighted
	waiting                   atomic.Bool     // a body waits for room in inFlight
	bodyTimeout, replyTimeout time.Duration   // BodyTimeout, both; lowered in tests
	maxAge                    time.Duration   // MaxConnectionAge
	stopping                  context.Context // done once the server shuts down (Shutdown)
	stop                      context.CancelFunc
	sessions                  sessions
	calls                     calls
}

// Path is the MCP endpoint; other paths are 404.
const Path = "/mcp"

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
		bodyTimeout: BodyTimeout, replyTimeout: BodyTimeout, maxAge: MaxConnectionAge, stopping: stopping, stop: stop,
		sessions: sessions{used: map[string]time.Time{}, max: MaxSessions}, calls: calls{held: map[call]*heldError{}}}
}

// Shutdown is for http.Server.RegisterOnShutdown: it ends the sessions'
// event streams, which never end by themselves, so that the server's
// Shutdown waits only for the requests in flight.
func (h *Handler) Shutdown() { h.stop() }

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reply := &replyDeadline{ResponseWriter: w, timeout: h.replyTimeout}
	defer reply.start() // for a reply net/http writes once the handler returns
	body, room, ok := h.bound(reply, r)
	defer h.inFlight.Release(room)
	if ok {
		h.route(reply, r, body)
	}
}

// route answers a request that bound let through; body is a POST's.
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
			h.sessions.forget(r.Header.Get("Mcp-Session-Id"))
		}
	}
}

// post has a POSTed message admitted (package protocol), and served in its era.
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
		// MCP 2026-07-28 has servers ignore Mcp-Session-Id: so does go-sdk's
		// stateless handler, and it is served apart from the session's calls.
		h.serve(h.modern, w, r, req.ID, jsonrpc.ID{})
	case req.Method == "initialize": // with what a session keeps of it
		kept, _ := jsonrpc.EncodeMessage(req) // it was decoded
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(kept)), int64(len(kept))
		h.serve(h.legacy, w, r, req.ID, jsonrpc.ID{})
		h.track(w.Header().Get("Mcp-Session-Id"), true) // "" if initialize failed
	default:
		h.track(session, false)
		if req.Method == "notifications/cancelled" {
			sdkID, ok := h.calls.cancel(session, msg.Cancels)
			if !ok {
				// MCP lets it be ignored; go-sdk, which cancels on a goroutine of
				// its own, could cancel a request that reaches it later.
				w.WriteHeader(http.StatusAccepted)
				return
			}
			params, _ := json.Marshal(mcp.CancelledParams{RequestID: sdkID.Raw()}) // the request by go-sdk's id
			req = &jsonrpc.Request{Method: req.Method, Params: params}
			setBody(r, req)
		} else if req.IsCall() && session != "" {
			clientID := req.ID // go-sdk serves it under an id of the handler's own (calls.go)
			req = &jsonrpc.Request{ID: h.calls.newID(), Method: req.Method, Params: req.Params}
			setBody(r, req)
			h.serve(h.legacy, w, r, clientID, req.ID)
			return
		}
		h.serve(h.legacy, w, r, req.ID, jsonrpc.ID{})
	}
}
