package main

import (
	"mcp-hello-tools/internal/streamable"
	"mcp-hello-tools/tools"

	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file run the binary with -http and check that memory
// and file descriptors stay bounded whatever clients do: send large bodies
// at once, open sessions without end, or leave bodies half sent.

// startHTTPBinary runs the binary with -http on a free port and returns its
// endpoint URL and process, and its log lines after it started serving.
func startHTTPBinary(t *testing.T) (string, *exec.Cmd, <-chan string) {
	t.Helper()
	cmd := serverCommand(t, "-http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(stderr)
	serving := regexp.MustCompile(`msg=serving .*url=(\S+)`)
	for lines.Scan() {
		if m := serving.FindStringSubmatch(lines.Text()); m != nil {
			later := make(chan string, 100)
			go func() {
				for lines.Scan() {
					select {
					case later <- lines.Text():
					default: // not watched
					}
				}
				_, _ = io.Copy(io.Discard, stderr)
			}()
			return m[1], cmd, later
		}
	}
	t.Fatalf("the server did not start serving: %v", lines.Err())
	return "", nil, nil
}

// postBody POSTs body to url and returns the status and the response body.
func postBody(url, body string, header ...string) (int, string, http.Header, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data), resp.Header, err
}

// TestHTTPConcurrentLargeBodies: of sixteen 8 MB echoes at once, those
// that find room as their bodies arrive (16 MiB of bodies) are served, the
// others refused, so memory stays bounded.
func TestHTTPConcurrentLargeBodies(t *testing.T) {
	slow(t)
	url, cmd, _ := startHTTPBinary(t)
	status, _, header, err := postBody(url, initializeBody)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	sid := header.Get("Mcp-Session-Id")
	message := strings.Repeat("<", 8_000_000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for i := range 16 {
		wg.Go(func() {
			call := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"%s"}}}`, i, message)
			status, body, header, err := postBody(url, call, "Mcp-Session-Id", sid)
			mu.Lock()
			defer mu.Unlock()
			if assert.NoError(t, err) {
				statuses[status]++
				switch status {
				case http.StatusOK:
					assert.Contains(t, body, `"isError":true`, "an echo past the limit")
				case http.StatusServiceUnavailable:
					assert.Equal(t, "1", header.Get("Retry-After"), "a POST that found no room in time")
				}
			}
		})
	}
	wg.Wait()
	t.Logf("statuses: %v", statuses)
	assert.Equal(t, 16, statuses[http.StatusOK]+statuses[http.StatusServiceUnavailable], "each answered, or refused for room: %v", statuses)
	assert.GreaterOrEqual(t, statuses[http.StatusOK], 2, "16 MiB in flight hold two 8 MB bodies at once")
	if peak, ok := peakRSS(cmd.Process.Pid); ok {
		t.Logf("peak resident memory: %d MiB", peak>>20)
		assert.Less(t, peak, int64(400<<20), "peak resident memory for sixteen 8 MB bodies at once")
	}
}

// TestHTTPSmallBesideLargeBodies: while four clients send 8 MB bodies in a
// loop, refused or not, a client of small requests is answered every time.
func TestHTTPSmallBesideLargeBodies(t *testing.T) {
	slow(t)
	url, _, _ := startHTTPBinary(t)
	status, _, header, err := postBody(url, initializeBody)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	sid := header.Get("Mcp-Session-Id")
	large := `{"jsonrpc":"2.0","id":"%d","method":"tools/call","params":{"name":"echo","arguments":{"message":"` + strings.Repeat("x", 8_000_000) + `"}}}`
	stop, looping := make(chan struct{}), make(chan struct{}, 4)
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for loop := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				status, _, _, err := postBody(url, fmt.Sprintf(large, loop), "Mcp-Session-Id", sid) // an id of its own, in flight
				mu.Lock()
				statuses[status]++
				mu.Unlock()
				if !assert.NoError(t, err) {
					return
				}
				if i == 0 {
					looping <- struct{}{}
				}
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	for range 4 {
		<-looping // each loop has had an answer, and goes on
	}
	var slowest time.Duration
	for i := range 50 {
		start := time.Now()
		call := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":"6 * 7"}}}`, i+3)
		status, body, _, err := postBody(url, call, "Mcp-Session-Id", sid)
		slowest = max(slowest, time.Since(start))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status, "small call %d beside 8 MB bodies: %s", i, body)
	}
	close(stop)
	wg.Wait()
	t.Logf("50 small calls beside four loops of 8 MB bodies: the slowest in %.3f s; the 8 MB bodies' statuses: %v", slowest.Seconds(), statuses)
}

// TestHTTPManySessions: a client that opens sessions without end ends the
// oldest ones, not the server's memory.
func TestHTTPManySessions(t *testing.T) {
	slow(t)
	url, cmd, _ := startHTTPBinary(t)
	var first string
	for i := range 2000 {
		status, _, header, err := postBody(url, initializeBody)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status, "initialize %d", i)
		if i == 0 {
			first = header.Get("Mcp-Session-Id")
		}
	}
	status, body, _, err := postBody(url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Session-Id", first)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotFound, status, "the first of 2000 sessions has ended: %s", body)
	if peak, ok := peakRSS(cmd.Process.Pid); ok {
		t.Logf("peak resident memory: %d MiB", peak>>20)
		assert.Less(t, peak, int64(64<<20), "peak resident memory after 2000 sessions")
	}
}

// TestHTTPHalfSentBodies: connections that send headers and part of a body
// are held no more than maxConnections at once, so the server keeps file
// descriptors to spare. Each is answered 408 and closed once its body's
// time is up; a request behind them waits to be accepted, and is served.
func TestHTTPHalfSentBodies(t *testing.T) {
	slow(t)
	url, cmd, _ := startHTTPBinary(t)
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), streamable.Path)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for range maxConnections {
		c, err := net.Dial("tcp", host)
		require.NoError(t, err)
		conns = append(conns, c)
		_, err = fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", host)
		require.NoError(t, err)
	}
	// The server has accepted them all once it holds as many descriptors.
	fds := func() int { entries, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid)); return len(entries) }
	if fds() > 0 {
		require.Eventually(t, func() bool { return fds() >= maxConnections }, 10*time.Second, 10*time.Millisecond, "accepted: %d", fds())
		assert.Less(t, fds(), maxConnections+50, "file descriptors held by half-sent bodies")
	}
	start := time.Now()
	status, _, _, err := postBody(url, initializeBody)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	t.Logf("a request behind %d half-sent bodies: %d in %v", len(conns), status, time.Since(start))
	for i, c := range conns {
		require.NoError(t, c.SetReadDeadline(start.Add(4*streamable.BodyTimeout))) // a bound for a failure only
		r := bufio.NewReader(c)
		resp, err := http.ReadResponse(r, nil)
		require.NoError(t, err, "half-sent body %d", i)
		assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
		_, err = io.Copy(io.Discard, resp.Body)
		require.NoError(t, err)
		_, err = r.ReadByte()
		assert.ErrorIs(t, err, io.EOF, "half-sent body %d: the server closes its connection", i)
	}
	t.Logf("the last half-sent body answered and closed within %v", time.Since(start))
}

// TestHTTPSecondSignal: on SIGTERM the server waits up to 5 s for
// requests in flight, here a reply its client does not read; a second
// SIGTERM ends it at once.
func TestHTTPSecondSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	url, cmd, log := startHTTPBinary(t)
	status, _, header, err := postBody(url, initializeBody)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), streamable.Path)
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	// A reply of 6 MB (each < sent as \u003c), more than sockets hold.
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` +
		strings.Repeat("<", tools.MaxEchoLength) + `"}}}`
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s", host, header.Get("Mcp-Session-Id"), len(call), call)
	require.NoError(t, err)
	_, err = bufio.NewReader(conn).ReadString('\n') // the reply has started; read no more of it
	require.NoError(t, err)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	for line := range log { // the first signal is taken
		if strings.Contains(line, `msg="stopping:`) {
			break
		}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		assert.True(t, exit.Sys().(syscall.WaitStatus).Signaled(), "ended by the second signal: %v", err)
	case <-time.After(2 * shutdownGrace):
		t.Fatal("the server did not end at the second SIGTERM")
	}
}
