package streamable

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// Conns is a listener that keeps at most max connections open, so that
// file descriptors last. Past max, a new connection closes the one that
// has waited longest for a request's headers, once it has waited
// ConnGrace, and waits while every one is served or younger: each max held
// idle delays it ConnGrace (netutil.LimitListener's wait: 1 s each 50).
// Its ConnState must be the http.Server's, its handler a Handler.
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

// ConnGrace is a connection's time to send headers before it makes room.
const ConnGrace = 250 * time.Millisecond

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

// Accept accepts a connection, and makes room for it if max are open.
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

// wait waits for a connection to close or be done, or, if timed, for due.
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

// ConnContext is an http.Server's ConnContext: it notes a connection's
// accept time (MaxConnectionAge), and the connection (serving).
func ConnContext(ctx context.Context, nc net.Conn) context.Context {
	if c, ok := nc.(*conn); ok {
		ctx = context.WithValue(ctx, connKey{}, c)
	}
	return context.WithValue(ctx, acceptedKey{}, time.Now())
}

type acceptedKey struct{}

type connKey struct{}

// serving marks r's connection as served: it is closed no more to make room.
func serving(r *http.Request) {
	c, ok := r.Context().Value(connKey{}).(*conn)
	if !ok {
		return
	}
	c.l.mu.Lock()
	c.serving = true
	c.l.mu.Unlock()
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

// CloseWrite lets net/http end its side of a connection whose client is
// still sending (a body too large), so that the client reads the answer.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Close closes the listener, and ends an Accept's wait.
func (l *Conns) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}
