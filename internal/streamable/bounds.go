package streamable

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"mcp-hello-tools/internal/protocol"
)

// bound applies the bounds and refusals every request gets before it is
// routed, and reads a POST's body (read). It returns that body, and its
// room in the bytes in flight; or false, if it answered the request.
func (h *Handler) bound(reply *replyDeadline, r *http.Request) (body []byte, room int64, ok bool) {
	serving(r)
	var w http.ResponseWriter = reply
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.bodyTimeout)) // net/http would wait for ever for a body that never comes
	if r.ContentLength != 0 {                             // until it is read, net/http may wait for the body before it sends the reply
		reply.timeout += h.bodyTimeout
	}
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
		return nil, 0, false
	case local != nil && IsLoopback(local.String()) && !IsLoopback(r.Host): // DNS rebinding: go-sdk checks /mcp only, not every request
		writeError(w, http.StatusForbidden, jsonrpc.ID{}, invalid("forbidden: Host %q is not a loopback name (a DNS rebinding attack?); "+
			"use 127.0.0.1, [::1] or localhost", protocol.Cut(r.Host, protocol.MaxQuote)))
		return nil, 0, false
	}
	if r.URL.Path == Path && r.Method == http.MethodPost { // route answers any other request without reading its body
		if r.ContentLength > MaxBodySize {
			h.refuse(w, r, http.StatusRequestEntityTooLarge, tooLarge)
			return nil, 0, false
		}
		ctx, cancel := context.WithTimeout(r.Context(), h.bodyTimeout) // as the body's read deadline
		defer cancel()
		var err error
		body, room, err = h.read(ctx, http.MaxBytesReader(w, r.Body, MaxBodySize))
		var maxBytes *http.MaxBytesError
		switch {
		case errors.Is(err, errBusy):
			w.Header().Set("Retry-After", "1")
			h.refuse(w, r, http.StatusServiceUnavailable, protocol.Errorf(jsonrpc.CodeInternalError,
				"server busy: %d bytes of requests are being read or served; retry", MaxInFlightSize))
			return nil, room, false
		case errors.As(err, &maxBytes):
			h.refuse(w, r, http.StatusRequestEntityTooLarge, tooLarge)
			return nil, room, false
		case errors.Is(err, os.ErrDeadlineExceeded):
			writeError(w, http.StatusRequestTimeout, jsonrpc.ID{}, invalid("the body did not arrive within %v", h.bodyTimeout))
			return nil, room, false
		case err != nil:
			writeError(w, http.StatusBadRequest, jsonrpc.ID{}, invalid("reading the body: %v", err))
			return nil, room, false
		}
		_ = rc.SetReadDeadline(time.Time{}) // else net/http's background read would cancel a long call
		reply.timeout = h.replyTimeout
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	return body, room, true
}

// The limits on a request, for http.go and docs/limits.md.
const (
	MaxBodySize      = 8 << 20                   // bytes in a body, as in a stdio line
	BodyTimeout      = 5 * time.Second           // each: for a request's headers, its body, its reply; an idle connection
	MaxDrain         = 2 * MaxBodySize           // bytes of a refused body read and dropped, so that its client reads the refusal
	MaxConnectionAge = 10 * time.Second          // a connection older closes after its next reply, so that one waiting has its turn
	idleHint         = BodyTimeout - time.Second // Keep-Alive's: clients close before the server does, lest a request be reset
)

// IsLoopback reports whether host, or host:port, is localhost or a
// loopback IP, as go-sdk's Host check has it.
func IsLoopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return strings.EqualFold(host, "localhost") || err == nil && ip.IsLoopback()
}

// refuse answers a POST whose body is still coming, drops up to MaxDrain
// bytes more, and closes: a connection closed with bytes unread is reset,
// which lost the answer (Node's fetch saw EPIPE for a 413, one run in 3).
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, e *jsonrpc.Error) {
	rc := http.NewResponseController(w)
	w.Header().Set("Connection", "close") // its rest is never read as the next request
	writeError(w, status, jsonrpc.ID{}, e)
	_ = rc.Flush()
	_ = rc.SetReadDeadline(time.Now().Add(h.bodyTimeout))
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxDrain))
}

// tooLarge is the refusal of a body past MaxBodySize, declared or sent.
var tooLarge = invalid("message too large: a request body may hold at most %d bytes", MaxBodySize)

// A replyDeadline gives a reply, once it starts, timeout to go out: one its
// client does not read ends its connection, and frees its body's room. An
// event stream has none; every other reply sets its own.
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

// Unwrap lets an http.ResponseController (bound's, go-sdk's) reach the
// connection, to set its deadlines and flush event streams.
func (d *replyDeadline) Unwrap() http.ResponseWriter { return d.ResponseWriter }
