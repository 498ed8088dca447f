package streamable

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIdleGiveWay: with every connection open and idle between requests, a
// new one is served, and the one idle the longest is closed for it.
func TestIdleGiveWay(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	limited := NewListener(ln, 2)
	srv := &http.Server{ConnState: limited.ConnState, IdleTimeout: time.Hour,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })}
	go func() { _ = srv.Serve(limited) }()
	t.Cleanup(func() { _ = srv.Close() })

	request := "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
	var idle []net.Conn
	for range 2 { // two clients keep their connections open, idle
		conn, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		t.Cleanup(func() { _ = conn.Close() })
		_, err = io.WriteString(conn, request)
		require.NoError(t, err)
		buf := make([]byte, 4096)
		n, err := conn.Read(buf)
		require.NoError(t, err)
		require.Contains(t, string(buf[:n]), "ok")
		idle = append(idle, conn)
	}
	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	_, err = io.WriteString(conn, strings.Replace(request, "\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1))
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(failAfter)))
	reply, err := io.ReadAll(conn)
	require.NoError(t, err, "a third client, with two idle connections open")
	assert.Contains(t, string(reply), "ok")
	closed := make(chan error, 2)
	for _, c := range idle {
		go func() {
			_, err := c.Read(make([]byte, 1))
			closed <- err
		}()
	}
	select {
	case err := <-closed:
		assert.ErrorIs(t, err, io.EOF, "an idle connection is closed")
	case <-time.After(failAfter):
		t.Fatal("no idle connection was closed")
	}
}
