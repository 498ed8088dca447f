package streamable

// Tests of the listener (Conns), and of bound marking a connection served.

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pipes is a listener whose Accept returns the server's end of a new
// net.Pipe each time, and sends the client's end on clients.
type pipes struct {
	net.Listener
	clients chan net.Conn
}

func (p pipes) Accept() (net.Conn, error) {
	server, client := net.Pipe()
	p.clients <- client
	return server, nil
}

func (p pipes) Close() error { return nil }

// within runs f, which must return within failAfter: one that takes a mutex
// left locked fails the test rather than hangs it.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		f()
		close(done)
	}()
	receive(t, done, what)
}

// servedBy returns a request served on c, as net/http's context has it.
func servedBy(c net.Conn) *http.Request {
	return (&http.Request{}).WithContext(context.WithValue(context.Background(), connKey{}, c))
}

// An accepted is what an Accept returned.
type accepted struct {
	c   net.Conn
	err error
}

// accepting returns a function that starts an Accept of conns on a
// goroutine of its own, and the channel its result comes on.
func accepting(conns *Conns) (accept func(), done chan accepted) {
	done = make(chan accepted, 2)
	return func() {
		go func() {
			c, err := conns.Accept()
			done <- accepted{c, err}
		}()
	}, done
}

// TestConnsCloseEndsWait: an Accept that waits for room, every connection
// being served, returns net.ErrClosed once the listener is closed, and
// closes the connection it accepted: a shutdown waits for no Accept.
func TestConnsCloseEndsWait(t *testing.T) {
	t.Parallel()
	ln := pipes{clients: make(chan net.Conn, 10)}
	conns := LimitConns(ln, 1)
	accept, done := accepting(conns)
	accept()
	first := receive(t, done, "the first Accept")
	require.NoError(t, first.err)
	receive(t, ln.clients, "the first client's end")
	within(t, "ConnState", func() { conns.ConnState(first.c, http.StateActive) })
	within(t, "serving", func() { serving(servedBy(first.c)) })
	accept()
	client := receive(t, ln.clients, "the second client's end") // its Accept waits for room, or is about to
	require.NoError(t, client.SetReadDeadline(time.Now().Add(failAfter)))
	require.NoError(t, conns.Close())
	second := receive(t, done, "the waiting Accept, once the listener is closed")
	assert.ErrorIs(t, second.err, net.ErrClosed)
	_, err := client.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the connection accepted is closed")
}

// TestConnsWakeOnIdleOrClose: an Accept that waits for room, its one
// connection being served, is woken when that connection closes, or waits
// for headers again (and, ConnGrace past, is closed for it). Many times
// over, so that the Accept is, most times, already waiting.
func TestConnsWakeOnIdleOrClose(t *testing.T) {
	t.Parallel()
	for i := range 200 {
		state := []http.ConnState{http.StateIdle, http.StateClosed}[i%2]
		ln := pipes{clients: make(chan net.Conn, 10)}
		conns := LimitConns(ln, 1)
		conns.grace = 0
		accept, done := accepting(conns)
		accept()
		first := receive(t, done, "the first Accept")
		require.NoError(t, first.err)
		firstClient := receive(t, ln.clients, "the first client's end")
		require.NoError(t, firstClient.SetReadDeadline(time.Now().Add(failAfter)))
		within(t, "serving", func() { serving(servedBy(first.c)) })
		accept()
		receive(t, ln.clients, "the second client's end") // its Accept waits for room, or is about to
		within(t, "ConnState", func() { conns.ConnState(first.c, state) })
		second := receive(t, done, fmt.Sprintf("round %d: the Accept waiting, once the connection served is %v", i, state))
		require.NoError(t, second.err)
		if state == http.StateIdle {
			_, err := firstClient.Read(make([]byte, 1))
			require.ErrorIs(t, err, io.EOF, "the connection idle is closed to make room")
		}
	}
}

// TestConnsMakeRoom: past max, Accept closes the connection that has
// waited longest for a request's headers, never one being served.
func TestConnsMakeRoom(t *testing.T) {
	t.Parallel()
	ln := pipes{clients: make(chan net.Conn, 10)}
	conns := LimitConns(ln, 3)
	conns.grace = 0
	accept := func() (*conn, net.Conn) {
		t.Helper()
		done := make(chan accepted, 1)
		go func() { // an Accept that waits for ever fails the test
			c, err := conns.Accept()
			done <- accepted{c, err}
		}()
		a := receive(t, done, "Accept")
		require.NoError(t, a.err)
		c := a.c
		client := receive(t, ln.clients, "the client's end")
		require.NoError(t, client.SetReadDeadline(time.Now().Add(failAfter))) // for a failure only
		return c.(*conn), client
	}
	locked := func(f func()) { // f, under Conns' mutex, which a Conns that never lets it go fails the test
		t.Helper()
		done := make(chan struct{})
		go func() {
			conns.mu.Lock()
			defer conns.mu.Unlock()
			f()
			close(done)
		}()
		receive(t, done, "Conns' mutex")
	}
	served, servedClient := accept()
	idle, idleClient := accept()
	_, freshClient := accept()
	within(t, "ConnState", func() { conns.ConnState(idle, http.StateIdle) }) // answered: it waits for headers since now, after served and fresh
	locked(func() { served.serving = true })

	_, _ = accept() // fresh has waited longest, and is closed
	_, err := freshClient.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the connection that waited longest")
	_, _ = accept() // then idle
	_, err = idleClient.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the connection idle the longest")

	var open bool
	var n int
	locked(func() { _, open = conns.open[served]; n = len(conns.open) })
	assert.True(t, open, "the connection being served is open")
	assert.Equal(t, 3, n, "connections open")
	_ = servedClient.Close()
}

// TestConnsGrace: a connection that has waited for its headers less than
// ConnGrace is not closed to make room: the new one waits.
func TestConnsGrace(t *testing.T) {
	t.Parallel()
	ln := pipes{clients: make(chan net.Conn, 10)}
	conns := LimitConns(ln, 1)
	conns.grace = time.Hour
	accept, done := accepting(conns)
	accept()
	first := receive(t, done, "the first Accept")
	require.NoError(t, first.err)
	firstClient := receive(t, ln.clients, "the first client's end")
	require.NoError(t, firstClient.SetReadDeadline(time.Now().Add(failAfter)))
	accept()
	receive(t, ln.clients, "the second client's end") // its Accept waits for room, or is about to
	within(t, "ConnState", func() { conns.ConnState(first.c, http.StateClosed) })
	second := receive(t, done, "the Accept waiting, once the first connection is closed by net/http")
	require.NoError(t, second.err)
	go func() { _, _ = first.c.Write([]byte("x")) }()
	_, err := firstClient.Read(make([]byte, 1))
	assert.NoError(t, err, "the first connection, within its grace, was not closed to make room")
}

// TestBoundMarksServing: a connection whose request the handler serves
// (bound marks it) is not closed to make room, however long it has waited:
// the new connection waits.
func TestBoundMarksServing(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	ln := pipes{clients: make(chan net.Conn, 10)}
	conns := LimitConns(ln, 1)
	conns.grace = 0
	accept, done := accepting(conns)
	accept()
	first := receive(t, done, "the first Accept")
	require.NoError(t, first.err)
	receive(t, ln.clients, "the first client's end")
	within(t, "bound", func() {
		r := httptest.NewRequestWithContext(servedBy(first.c).Context(), http.MethodGet, "/elsewhere", nil)
		_, _, ok := s.bound(&replyDeadline{ResponseWriter: httptest.NewRecorder()}, r)
		require.True(t, ok, "bound refused a request to be served")
	})
	accept()
	receive(t, ln.clients, "the second client's end")
	require.NoError(t, conns.Close())
	second := receive(t, done, "the second Accept, once the listener is closed")
	assert.ErrorIs(t, second.err, net.ErrClosed, "the connection being served was closed to make room for the second")
}

// TestConnCloseWrite: a connection Conns accepted closes its writing side
// alone, as the TCP connection it wraps does, when net/http asks (a body
// too large): its client, still sending, reads the refusal and then the
// end, not a reset, and what it sends still arrives.
func TestConnCloseWrite(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	conns := LimitConns(ln, 1)
	defer func() { _ = conns.Close() }()
	client, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer func() { _ = client.Close() }()
	nc, err := conns.Accept()
	require.NoError(t, err)
	defer func() { _ = nc.Close() }()
	cw, ok := nc.(interface{ CloseWrite() error })
	require.True(t, ok, "net/http finds no CloseWrite")
	require.NoError(t, cw.CloseWrite())
	require.NoError(t, client.SetDeadline(time.Now().Add(failAfter)))
	_, err = client.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the client reads the end of what the server sends")
	_, err = client.Write([]byte("x"))
	require.NoError(t, err)
	require.NoError(t, nc.SetReadDeadline(time.Now().Add(failAfter)))
	b := make([]byte, 1)
	_, err = nc.Read(b)
	require.NoError(t, err, "the server still reads")
	assert.Equal(t, "x", string(b))
}
