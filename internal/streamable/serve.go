package streamable

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"mcp-hello-tools/internal/protocol"
)

// serve has go-sdk's handler serve r, under sdkID if a session's call,
// and reports whether it answered in go-sdk's place: an error of go-sdk's,
// rewritten as JSON-RPC; a reply to a request cancelled, dropped; or none,
// which go-sdk gives a request whose session ends while it is served.
func (h *Handler) serve(handler http.Handler, w http.ResponseWriter, r *http.Request, id, sdkID jsonrpc.ID) (answered bool) {
	held := &heldError{ResponseWriter: w, id: id, sdkID: sdkID}
	if key := (call{r.Header.Get("Mcp-Session-Id"), id}); sdkID.IsValid() {
		if !h.calls.add(key, held) { // as on stdio, under null: its own id would be read as the reply to the request in flight
			writeError(w, http.StatusOK, jsonrpc.ID{}, protocol.InUse(id))
			return true
		}
		defer h.calls.done(key, held)
	}
	handler.ServeHTTP(held, r)
	if held.wrote {
		return false
	}
	var reply struct{ Error *jsonrpc.Error } // "error", as encoding/json matches names
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
			"ones, at most %d, or the server stopped); send initialize without Mcp-Session-Id to start anew", SessionTimeout, h.sessions.max)
	case held.status >= 500:
		e.Code = jsonrpc.CodeInternalError
	}
	writeError(w, held.status, id, e)
	return true
}

// A heldError holds back an error go-sdk writes, in plain text or JSON, for
// serve, and drops the reply to a request cancelled, unless it is going out.
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
