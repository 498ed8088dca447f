package streamable

// Tests of the bounds every request gets: loopback names, a body's and a
// reply's time, bodies too large, a connection's age.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/semaphore"
)

// TestLoopbackHosts: go-sdk's Host check, fed the host in lower case,
// takes every loopback name.
func TestLoopbackHosts(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	_, port, err := net.SplitHostPort(s.host)
	require.NoError(t, err)
	for _, host := range []string{"127.0.0.1", "localhost", "LOCALHOST", "LocalHost", "[::1]"} {
		r := do(t, http.MethodPost, s.url, initialize, "Host", host+":"+port)
		assert.Equal(t, http.StatusOK, r.status, "Host %s: %s", host, r.body)
	}
}

// TestBodyNeverComes: a request whose declared body never comes holds its
// connection no longer than the body's deadline, whether the handler reads
// the body (a POST: 408) or not (net/http reads what is left).
func TestBodyNeverComes(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) { h.bodyTimeout = 100 * time.Millisecond })
	post := rawRequest(t, s.host, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":")
	assert.Contains(t, post, "HTTP/1.1 408")
	assert.Contains(t, post, "the body did not arrive within 100ms")
	for _, head := range []string{"GET /mcp", "DELETE /mcp", "GET /other", "POST /"} {
		reply := rawRequest(t, s.host, head+" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\n\r\n")
		assert.Regexp(t, `^HTTP/1.1 [45]\d\d`, reply, head)
	}
	evil := rawRequest(t, s.host, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\nContent-Length: 1\r\n\r\n")
	assert.Contains(t, evil, "HTTP/1.1 403", "a refusal before the body")
}

// TestReplyWaitsForBody: a reply to a request whose body the handler does
// not read has the body's time as well as its own, since net/http reads
// the body before it sends the reply. Its own time here is a nanosecond:
// without the body's, it would never go out.
func TestReplyWaitsForBody(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) { h.replyTimeout = time.Nanosecond })
	for _, head := range []string{"POST /elsewhere", "POST /mcp"} {
		extra := ""
		if head == "POST /mcp" {
			extra = "Origin: http://evil.example\r\n" // refused before its body is read
		}
		reply := rawRequest(t, s.host, head+" HTTP/1.1\r\nHost: 127.0.0.1\r\n"+extra+"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
		assert.Regexp(t, `^HTTP/1.1 40[34]`, reply, head)
	}
}

// TestDeclaredTooLarge: a Content-Length past the limit is refused at
// once, without waiting for the body.
func TestDeclaredTooLarge(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) { h.bodyTimeout = failAfter * 2 })
	conn, err := net.Dial("tcp", s.host)
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n{", MaxBodySize+1)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(failAfter)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "no answer before the body")
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
}

// tooLargeBody is a body past MaxBodySize by more than sockets hold, and
// within what a refusal drains.
const tooLargeBody = MaxDrain

// TestTooLargeReadFirst: a client that sends a body past MaxBodySize whole
// before it reads, declared or chunked, reads the 413 every time, not a
// reset: the server reads what is left of the body before it closes.
func TestTooLargeReadFirst(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	body := strings.Repeat(" ", tooLargeBody)
	for _, framing := range []string{fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body),
		fmt.Sprintf("Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)} {
		for i := range 20 {
			conn, err := net.Dial("tcp", s.host)
			require.NoError(t, err)
			require.NoError(t, conn.SetDeadline(time.Now().Add(failAfter)))
			_, err = io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\n"+framing)
			require.NoError(t, err, "run %d, %.17s: sending the body", i, framing)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			require.NoError(t, err, "run %d, %.17s: the 413 was lost", i, framing)
			assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "run %d, %.17s", i, framing)
			_ = conn.Close()
		}
	}
}

// TestTooLargeNodeFetch: Node's fetch, which sends a body whole before it
// reads the answer, reads the 413 to a body past MaxBodySize every time,
// declared or streamed.
func TestTooLargeNodeFetch(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH")
	}
	s := start(t, nil)
	script := filepath.Join(t.TempDir(), "fetch.mjs")
	require.NoError(t, os.WriteFile(script, []byte(`
const [url, runs, size] = process.argv.slice(2);
const headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"};
const statuses = [];
for (let i = 0; i < Number(runs); i++) {
  const whole = " ".repeat(Number(size));
  const streamed = new ReadableStream({start(c) { c.enqueue(new TextEncoder().encode(whole)); c.close(); }});
  for (const body of [whole, streamed]) {
    try {
      const r = await fetch(url, {method: "POST", headers, body, duplex: "half"});
      await r.text();
      statuses.push(String(r.status));
    } catch (e) {
      statuses.push(String(e.cause?.code ?? e));
    }
  }
}
console.log(statuses.join(" "));
`), 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 6*failAfter)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, script, s.url, "20", strconv.Itoa(tooLargeBody)).Output()
	require.NoError(t, err, "node: %s", out)
	statuses := strings.Fields(string(out))
	assert.Len(t, statuses, 40, "%s", out)
	for i, status := range statuses {
		assert.Equal(t, "413", status, "run %d, body %s", i/2, []string{"declared", "streamed"}[i%2])
	}
}

// TestUnreadReply: a reply its client does not read ends its connection
// after the write deadline, and gives back its body's room.
func TestUnreadReply(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) {
		h.inFlight, h.replyTimeout, h.bodyTimeout = semaphore.NewWeighted(readChunk), 100*time.Millisecond, failAfter
	})
	answered := make(chan struct{}, 10)
	watched := smallBuffers(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeHTTP(w, r)
		answered <- struct{}{}
	}))
	defer closeWatched(t, watched)
	sid := s.session(t)
	conn := dialSmall(t, strings.TrimPrefix(watched.URL, "http://"))
	defer func() { _ = conn.Close() }()
	// A body that takes all the room, and a reply of 3 MB.
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"message":"big","pad":"` +
		strings.Repeat("x", SmallBodySize) + `"}}}`
	_, err := fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s", sid, len(call), call)
	require.NoError(t, err) // and never read the reply
	select {
	case <-answered:
	case <-time.After(failAfter):
		t.Fatal("the unread reply held its connection")
	}
	r := do(t, http.MethodPost, s.url, strings.Replace(call, `"hold"`, `"echo"`, 1), "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusOK, r.status, "the unread reply held the room: %s", r.body)
}

// TestUnreadErrors: answers that come from no MCP handler, here 404s to
// pipelined GETs that their client never reads, end their connection after
// the write deadline too.
func TestUnreadErrors(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) { h.bodyTimeout, h.replyTimeout = 100*time.Millisecond, 100*time.Millisecond })
	watched := smallBuffers(t, s)
	defer closeWatched(t, watched)
	conn := dialSmall(t, strings.TrimPrefix(watched.URL, "http://"))
	defer func() { _ = conn.Close() }()
	require.NoError(t, conn.SetWriteDeadline(time.Now().Add(failAfter)))
	gets := []byte(strings.Repeat("GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 100))
	var err error
	for err == nil {
		_, err = conn.Write(gets)
	}
	assert.NotErrorIs(t, err, os.ErrDeadlineExceeded, "the server stopped reading, and kept the connection")
}

// The tests of replies not read are about the kernel's sockets, whose
// buffers a reply must outgrow: smallBuffers and dialSmall give a server's
// and a client's ends buffers of a few KiB, so that a reply of a few
// hundred KiB outgrows them, where loopback's grow to megabytes; its
// encoding under -race on a busy machine took seconds a megabyte.
const smallBuffer = 4 << 10

// smallBuffers starts a server of handler whose connections send through
// small buffers.
func smallBuffers(t *testing.T, handler http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(handler)
	srv.Listener = smallListener{srv.Listener}
	srv.Start()
	return srv
}

type smallListener struct{ net.Listener }

func (l smallListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(smallBuffer)
	}
	return c, err
}

// dialSmall connects to host with a small buffer to receive.
func dialSmall(t *testing.T, host string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).SetReadBuffer(smallBuffer))
	return conn
}

// TestEventStreamDeadline: a session's event stream has no write deadline,
// though net/http keeps its connection's last: it lasts as long as its
// session.
func TestEventStreamDeadline(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	deadlines := make(chan time.Time, 10)
	watched := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeHTTP(watchDeadlines{ResponseWriter: w, write: deadlines}, r)
	}))
	defer closeWatched(t, watched)
	req, err := http.NewRequest(http.MethodGet, watched.URL+Path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.session(t))
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, time.Time{}, receive(t, deadlines, "the event stream's write deadline"), "the event stream's write deadline")
}

// watchDeadlines passes on the deadlines a handler sets, and sends each
// write deadline on write, each read deadline on read, while it has room:
// a test wants the first of a few.
type watchDeadlines struct {
	http.ResponseWriter
	write, read chan<- time.Time
}

func (w watchDeadlines) SetWriteDeadline(d time.Time) error {
	select {
	case w.write <- d:
	default:
	}
	return http.NewResponseController(w.ResponseWriter).SetWriteDeadline(d)
}

func (w watchDeadlines) SetReadDeadline(d time.Time) error {
	select {
	case w.read <- d:
	default:
	}
	return http.NewResponseController(w.ResponseWriter).SetReadDeadline(d)
}

func (w watchDeadlines) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestReadDeadlineLifted: once a POST's body is read, its read deadline
// is lifted: net/http's background read would hit it in a call longer than
// the body's time, and cancel the call.
func TestReadDeadlineLifted(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	deadlines := make(chan time.Time, 10)
	watched := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeHTTP(watchDeadlines{ResponseWriter: w, read: deadlines}, r)
	}))
	defer closeWatched(t, watched)
	r := do(t, http.MethodPost, watched.URL+Path, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Session-Id", sid)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.NotEqual(t, time.Time{}, receive(t, deadlines, "the body's read deadline"), "the body's read deadline")
	assert.Equal(t, time.Time{}, receive(t, deadlines, "the read deadline, once the body is read"), "the read deadline once the body is read")
}

// TestConnectionAge: a connection past its age closes after its next
// reply, pipelined requests after it unanswered; a younger one serves them.
func TestConnectionAge(t *testing.T) {
	t.Parallel()
	gets := strings.Repeat("GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 2) +
		"GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
	for age, replies := range map[time.Duration]int{0: 1, failAfter: 3} {
		s := start(t, func(h *Handler) { h.maxAge = age })
		assert.Equal(t, replies, strings.Count(rawRequest(t, s.host, gets), "HTTP/1.1 404"), "age %v", age)
	}
}
