package streamable

// Tests of a body's room in the bytes in flight.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/semaphore"
)

// TestInFlightBound: a body takes room past its first SmallBodySize as it
// is read; one that finds none gets 503 at once, even while still sending
// its body, and its connection ends. A small body needs no room, and room
// is made as calls are answered.
func TestInFlightBound(t *testing.T) {
	t.Parallel()
	// The half-sent body is refused once its time is up, and its connection
	// closed once as long again: failAfter/8 each (not 0.2 s), so that a
	// busy machine sends the other bodies well within theirs.
	s := start(t, func(h *Handler) {
		h.inFlight, h.bodyTimeout = semaphore.NewWeighted(readChunk), failAfter/8
	})
	sid := s.session(t)
	// Past SmallBodySize: its next chunk takes all the room.
	large := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"message":"` + strings.Repeat("x", SmallBodySize) + `"}}}`
	done := make(chan response, 1)
	go func() { done <- do(t, http.MethodPost, s.url, large, "Mcp-Session-Id", sid) }()
	select {
	case <-s.held:
	case <-time.After(failAfter):
		t.Fatal("the call did not start")
	}
	assert.Equal(t, http.StatusOK, do(t, http.MethodPost, s.url, initialize).status, "a small body while the room is taken")
	busyWhileSending(t, s.host)
	halfSentRefused(t, s.host)
	close(s.unhold)
	assert.Equal(t, http.StatusOK, receive(t, done, "the large call's answer").status)
	assert.Equal(t, http.StatusOK, do(t, http.MethodPost, s.url, large, "Mcp-Session-Id", sid).status, "room is made once the first is answered")
}

// TestOneWaitsForRoom: of the bodies that find no room, one waits for it,
// and is served once room is made; the others are refused at once, rather
// than wait holding room that the first needs.
func TestOneWaitsForRoom(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) {
		h.inFlight, h.bodyTimeout = semaphore.NewWeighted(readChunk), 2*failAfter
	})
	sid := s.session(t)
	large := func(id int, tool string) string { // past SmallBodySize: all the room
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"message":"%s"}}}`,
			id, tool, strings.Repeat("x", SmallBodySize))
	}
	go do(t, http.MethodPost, s.url, large(2, "hold"), "Mcp-Session-Id", sid)
	select {
	case <-s.held:
	case <-time.After(failAfter):
		t.Fatal("the call did not start")
	}
	answers := make(chan response, 2)
	for id := range 2 {
		go func() { answers <- do(t, http.MethodPost, s.url, large(3+id, "echo"), "Mcp-Session-Id", sid) }()
	}
	r := receive(t, answers, "the refusal") // before its deadline: the other waits
	assert.Equal(t, http.StatusServiceUnavailable, r.status, "the body that came second: %s", r.body)
	close(s.unhold)
	r = receive(t, answers, "the answer to the body that waited")
	assert.Equal(t, http.StatusOK, r.status, "the body that waited: %s", r.body)
}

// TestBusyGivesRoomBack: a body refused for room part-way through (503)
// gives back the room it took: none is lost for good.
func TestBusyGivesRoomBack(t *testing.T) {
	h := &Handler{inFlight: semaphore.NewWeighted(2 * readChunk)}
	require.True(t, h.inFlight.TryAcquire(readChunk), "another body's room")
	h.waiting.Store(true) // and another body waits: this one is refused, not let wait
	done, cancel := context.WithCancel(context.Background())
	cancel() // nor, were it let wait, for ever
	_, room, err := h.read(done, strings.NewReader(strings.Repeat(" ", SmallBodySize+2*readChunk)))
	require.ErrorIs(t, err, errBusy)
	assert.Zero(t, room, "room held by a body refused")
	h.inFlight.Release(readChunk)
	assert.True(t, h.inFlight.TryAcquire(2*readChunk), "the room a body refused took part-way is lost")
}

// busyWhileSending: a client still sending its body when it is refused
// reads the 503, not a connection reset.
func busyWhileSending(t *testing.T, host string) {
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	// More than sockets hold: the writes wait for the server to read, and
	// the client reads the answer once it has sent the whole request.
	body := `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"` + strings.Repeat("x", MaxBodySize-100) + `"}}`
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	require.NoError(t, err, "the server stopped reading the body")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "the 503 was lost")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
}

// halfSentRefused: a client that leaves a body half sent, past
// SmallBodySize, reads the 503, then the end of its connection once the
// body's time is up: what it sent later would not be read as another
// request.
func halfSentRefused(t *testing.T, host string) {
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", MaxBodySize, strings.Repeat(" ", SmallBodySize+1))
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(failAfter)))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.True(t, resp.Close, "Connection: close")
	_, err = io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
	_, err = r.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the server ends the connection")
}

// TestSmallBesideHolders: while connections hold bodies declared at
// MaxBodySize (Content-Length or chunked), part sent or none, and all the
// room their parts took, small requests are answered at once, while the
// holders still hold.
func TestSmallBesideHolders(t *testing.T) {
	t.Parallel()
	// Four holders send a part each, and take 4 MiB of room: 4 MiB -
	// SmallBodySize, in chunks of readChunk. Together, all of it.
	const holders, part = 8, 4 << 20
	s := start(t, func(h *Handler) { h.bodyTimeout = 2 * failAfter }) // not an hour: a body that waits for room must end, lest closing the server wait for it
	read := make(chan struct{}, holders)
	watched := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sent, err := strconv.Atoi(r.Header.Get("Sent")); err == nil {
			r.Body = &readSignal{ReadCloser: r.Body, left: sent, read: read}
		}
		s.ServeHTTP(w, r)
	}))
	defer closeWatched(t, watched)
	host := strings.TrimPrefix(watched.URL, "http://")
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for i := range holders {
		conn, err := net.Dial("tcp", host)
		require.NoError(t, err)
		conns = append(conns, conn)
		length, sent, body := fmt.Sprintf("Content-Length: %d", MaxBodySize), 0, ""
		if i%2 == 0 {
			length = "Transfer-Encoding: chunked"
		}
		if i%4 < 2 {
			sent, body = part, strings.Repeat(" ", part)
			if i%2 == 0 {
				body = fmt.Sprintf("%x\r\n%s", part, body)
			}
		}
		require.NoError(t, conn.SetWriteDeadline(time.Now().Add(failAfter))) // a server that stops reading fails the test
		_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\n%s\r\nSent: %d\r\n\r\n%s", length, sent, body)
		require.NoError(t, err)
	}
	for i := range holders {
		select {
		case <-read:
		case <-time.After(failAfter):
			t.Fatalf("%d of %d holders read: the others wait", i, holders)
		}
	}
	require.False(t, s.inFlight.TryAcquire(1), "the holders hold all the room")
	sid := s.session(t)
	slowest := time.Duration(0)
	for i := range 20 {
		start := time.Now()
		r := do(t, http.MethodPost, s.url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`, i+2),
			"Mcp-Session-Id", sid)
		slowest = max(slowest, time.Since(start))
		require.Equal(t, http.StatusOK, r.status, "call %d beside %d holders: %s", i, holders, r.body)
	}
	t.Logf("20 small calls beside %d holders: the slowest answered in %.3f s", holders, slowest.Seconds())
	// A call that waited for room would wait for a holder's body, twice
	// failAfter here, or until its client gave up: 20 calls took 0.01 s at
	// most under -race at load 12, so a bound of failAfter cannot flip, and
	// is short of the wait it rules out.
	assert.Less(t, slowest, failAfter, "a small call waited beside %d holders", holders)
	for i, c := range conns {
		require.NoError(t, c.SetReadDeadline(time.Now()))
		_, err := c.Read(make([]byte, 1))
		assert.ErrorIs(t, err, os.ErrDeadlineExceeded, "holder %d was answered: it holds no longer", i)
	}
}

// TestRoomCountsBytes: a body holds room for the bytes it has sent, not
// for a buffer that doubles: two bodies held at 4 MiB and a byte leave
// room for a call of 100 KB, at once.
func TestRoomCountsBytes(t *testing.T) {
	t.Parallel()
	const holders, part = 2, 4<<20 + 1
	s := start(t, func(h *Handler) { h.bodyTimeout = 2 * failAfter }) // not an hour: a body that waits for room must end, lest closing the server wait for it
	read := make(chan struct{}, holders)
	watched := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sent, err := strconv.Atoi(r.Header.Get("Sent")); err == nil {
			r.Body = &readSignal{ReadCloser: r.Body, left: sent, read: read}
		}
		s.ServeHTTP(w, r)
	}))
	defer closeWatched(t, watched)
	for range holders {
		conn, err := net.Dial("tcp", strings.TrimPrefix(watched.URL, "http://"))
		require.NoError(t, err)
		defer func() { _ = conn.Close() }()
		require.NoError(t, conn.SetWriteDeadline(time.Now().Add(failAfter))) // a server that stops reading fails the test
		_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\nSent: %d\r\n\r\n%s", MaxBodySize, part, strings.Repeat(" ", part))
		require.NoError(t, err)
	}
	for range holders {
		receive(t, read, "a holder's part, read")
	}
	sid := s.session(t)
	r := do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"`+
		strings.Repeat("x", 100_000)+`"}}}`, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusOK, r.status, "a call of 100 KB beside %d bodies held at %d bytes: %.200s", holders, part, r.body)
}

// A readSignal sends on read once its reader has read left bytes, and asks
// for more.
type readSignal struct {
	io.ReadCloser
	left int
	read chan<- struct{}
}

func (b *readSignal) Read(p []byte) (int, error) {
	if b.left == 0 && b.read != nil {
		b.read <- struct{}{}
		b.read = nil
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= n
	return n, err
}
