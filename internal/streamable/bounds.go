package streamable

// This file holds the bounds of handler.go, and may be skipped as one: the
// endpoint's limits, the connections (Conns), and bound, which ServeHTTP
// calls once, first, for every bound and protection a request gets before
// it is routed, and the read of a POST's body within its room.

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
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

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

// Conns is a listener that keeps at most max connections open, so that
// file descriptors last. Past max, a new connection closes the one that
// has waited longest for a request's headers (open or idle, headers sent
// in part or none), once it has waited ConnGrace: a client that has just
// connected, or just been answered, has that long to send them. A new
// connection waits while every one is being served, which takes a body at
// most BodyTimeout, or is younger than ConnGrace: clients that hold
// connections without requests, and open new ones as theirs close, keep a
// new one waiting about ConnGrace for each max of them, not BodyTimeout.
// (netutil.LimitListener, which waits for one to close, had a new client
// wait about 1 s for each 50 connections held so.)
//
// Its ConnState must be the http.Server's, and the server's handler a
// Handler, which says when it serves a connection's request.
type Conns struct {
	net.Listener
	max   int
	grace time.Duration // ConnGrace

	mu     sync.Mutex
	open   map[*conn]struct{}
	freed  chan struct{} // a connection closed, or waits for headers again
	closed chan struct{} // by Close
	once   sync.Once
}

// LimitConns returns ln, keeping at most max connections open.
func LimitConns(ln net.Listener, max int) *Conns {
	return &Conns{Listener: ln, max: max, grace: ConnGrace, open: map[*conn]struct{}{}, freed: make(chan struct{}, 1), closed: make(chan struct{})}
}

// A conn is a connection Conns accepted.
type conn struct {
	net.Conn
	l       *Conns
	serving bool      // a handler serves its request
	waiting time.Time // since when it waits for a request's headers, if not serving
}

// Accept accepts a connection, and closes the one that has waited longest
// for its headers if max are open; if every one is being served, it waits
// for one to close or be done.
func (l *Conns) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	c := &conn{Conn: nc, l: l, waiting: time.Now()}
	for {
		l.mu.Lock()
		if len(l.open) < l.max {
			l.open[c] = struct{}{}
			l.mu.Unlock()
			return c, nil
		}
		var oldest *conn
		for o := range l.open {
			if !o.serving && (oldest == nil || o.waiting.Before(oldest.waiting)) {
				oldest = o
			}
		}
		var due time.Duration // until oldest may be closed
		if oldest != nil {
			if due = time.Until(oldest.waiting.Add(l.grace)); due <= 0 {
				delete(l.open, oldest) // now: its Close, on net/http's goroutine, may come later
			}
		}
		l.mu.Unlock()
		if oldest != nil && due <= 0 {
			_ = oldest.Close() // net/http sees the read fail, and forgets it
			continue
		}
		if err := l.wait(oldest != nil, due); err != nil {
			_ = nc.Close()
			return nil, err
		}
	}
}

// wait waits for a connection to close or be done, or, if timed, for due
// to pass.
func (l *Conns) wait(timed bool, due time.Duration) error {
	var passed <-chan time.Time
	if timed {
		timer := time.NewTimer(due)
		defer timer.Stop()
		passed = timer.C
	}
	select {
	case <-l.freed:
	case <-passed:
	case <-l.closed:
		return net.ErrClosed
	}
	return nil
}

// ConnContext is an http.Server's ConnContext: it notes when a connection
// was accepted, for MaxConnectionAge, and which it is, for Conns.
func ConnContext(ctx context.Context, nc net.Conn) context.Context {
	if c, ok := nc.(*conn); ok {
		ctx = context.WithValue(ctx, connKey{}, c)
	}
	return context.WithValue(ctx, acceptedKey{}, time.Now())
}

type acceptedKey struct{}

type connKey struct{}

// bound applies, top to bottom, the bounds every request gets, and the
// refusals that protect the server, and reads a POST's body within its
// bounds. It returns that body, and the room it holds in the bytes in
// flight, to be released once it is answered; or, if it answered the
// request, false.
func (h *Handler) bound(reply *replyDeadline, r *http.Request) (body []byte, room int64, ok bool) {
	serving(r)
	// A body that never comes must not hold the connection: net/http reads
	// what a handler leaves of it, and would wait for ever. Nor may a reply
	// its client does not read.
	var w http.ResponseWriter = reply
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.bodyTimeout)) // not every ResponseWriter has deadlines
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
		// Else net/http's background read would hit the deadline in a long call,
		// and cancel it.
		_ = rc.SetReadDeadline(time.Time{})
		reply.timeout = h.replyTimeout
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	return body, room, true
}

// serving marks the connection of a request that a handler serves: it has
// sent its headers, and is closed no more to make room.
func serving(r *http.Request) {
	c, ok := r.Context().Value(connKey{}).(*conn)
	if !ok {
		return
	}
	c.l.mu.Lock()
	c.serving = true
	c.l.mu.Unlock()
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

// tooLarge is the refusal of a body past MaxBodySize, declared or sent.
var tooLarge = invalid("message too large: a request body may hold at most %d bytes", MaxBodySize)

// CloseWrite lets net/http end its side of a connection whose client may
// still be sending (a body too large), so that the client reads the answer
// before the connection closes.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
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

// ConnState is the http.Server's ConnState: an idle connection waits for
// the headers of its next request; a closed one makes room.
func (l *Conns) ConnState(nc net.Conn, state http.ConnState) {
	c, ok := nc.(*conn)
	if !ok {
		return
	}
	switch state {
	case http.StateIdle:
		l.mu.Lock()
		c.serving, c.waiting = false, time.Now()
		l.mu.Unlock()
		l.signal()
	case http.StateClosed, http.StateHijacked:
		l.mu.Lock()
		delete(l.open, c)
		l.mu.Unlock()
		l.signal()
	}
}

func (l *Conns) signal() {
	select {
	case l.freed <- struct{}{}:
	default:
	}
}

// Close closes the listener, and ends an Accept's wait.
func (l *Conns) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}
