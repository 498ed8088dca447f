package streamable

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// A Listener has at most a fixed number of connections open at once, so
// that file descriptors last. A new connection past that waits, unserved,
// until one closes, except that a connection idle between requests gives
// way: the one idle the longest is closed for it. Else 256 keep-alive
// connections left idle by clients would lock out every other client for
// net/http's IdleTimeout.
type Listener struct {
	net.Listener
	slots      chan struct{} // one a connection open
	becameIdle chan struct{} // a connection went idle: one may give way
	closed     chan struct{}
	closeOnce  sync.Once

	mu   sync.Mutex
	idle map[net.Conn]time.Time // the connections idle between requests, and since when
}

// NewListener returns a Listener on ln of at most n connections. Its
// ConnState method must be the http.Server's ConnState.
func NewListener(ln net.Listener, n int) *Listener {
	return &Listener{Listener: ln, slots: make(chan struct{}, n), becameIdle: make(chan struct{}, 1),
		closed: make(chan struct{}), idle: map[net.Conn]time.Time{}}
}

// Accept accepts a connection and waits for room for it.
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for {
		select {
		case l.slots <- struct{}{}:
			return &slotConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
		}
		if l.closeIdle() {
			continue
		}
		select {
		case l.slots <- struct{}{}:
			return &slotConn{Conn: c, release: func() { <-l.slots }}, nil
		case <-l.becameIdle:
		case <-l.closed:
			_ = c.Close()
			return nil, net.ErrClosed
		}
	}
}

// closeIdle closes the connection idle the longest, if there is one.
func (l *Listener) closeIdle() bool {
	l.mu.Lock()
	var oldest net.Conn
	for c, since := range l.idle {
		if oldest == nil || since.Before(l.idle[oldest]) {
			oldest = c
		}
	}
	delete(l.idle, oldest)
	l.mu.Unlock()
	if oldest == nil {
		return false
	}
	_ = oldest.Close() // frees its slot at once
	return true
}

// ConnState tracks which connections are idle, for http.Server.ConnState.
func (l *Listener) ConnState(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if state != http.StateIdle {
		delete(l.idle, c)
		return
	}
	l.idle[c] = time.Now()
	select {
	case l.becameIdle <- struct{}{}:
	default:
	}
}

// Close closes the listener; an Accept waiting for room returns.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// A slotConn gives its slot back when it is closed, once.
type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *slotConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
