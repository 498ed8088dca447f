package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/tools"
)

// The tests in this file reproduce, through the server run as a process
// (start), what clients the server had not met and a hostile tester did
// with its standard streams: stderr closed first or never read, stdout
// closed, floods of notifications, lines far too long or too deep, ids
// that are not UTF-8, echoes that would amplify. Each promise of
// docs/limits.md holds whatever the peer does.

// TestPeerClosesStderrFirst: mcp-go's Stdio.Close closes the server's
// stderr before its stdin; the server's last log lines then fail with
// EPIPE, and it still exits with status 0, not killed by SIGPIPE.
func TestPeerClosesStderrFirst(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGPIPE on Windows")
	}
	for range 5 {
		cmd := serverCommand(t)
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		p := start(t, cmd)
		p.send(t, wireInit, wireInitialized, wireCall)
		for range 2 {
			p.receive(t)
		}
		require.NoError(t, stderr.Close())
		p.closeInput(t)
		assert.Equal(t, 0, p.wait(t, failAfter), "the server's exit after its stderr closed (-1: killed by a signal)")
	}
}

// TestPeerNeverReadsStderr: a client may ignore the server's stderr, which
// fills after about 64 KiB of log: thousands of calls, each logged (some
// 270 KB in all), are all answered, and SIGTERM still stops the server at
// once.
func TestPeerNeverReadsStderr(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	cmd := serverCommand(t)
	stderr, err := cmd.StderrPipe() // never read
	require.NoError(t, err)
	defer func() { _ = stderr.Close() }()
	p := start(t, cmd)
	p.send(t, wireInit, wireInitialized)
	p.receive(t)
	const calls = 3000
	go func() {
		for i := range calls {
			_, _ = fmt.Fprintf(p.stdin, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`+"\n", 10+i)
		}
	}()
	for i := range calls {
		require.NotNil(t, p.receive(t).Result, "reply %d of %d", i+1, calls)
	}
	begin := time.Now()
	p.signal(t, syscall.SIGTERM)
	require.Equal(t, 0, p.wait(t, failAfter))
	t.Logf("stopped %v after SIGTERM", time.Since(begin))
}

// TestPeerFloodsNotifications: notifications are read and dropped as they
// come, so that memory stays bounded, and a request behind them is
// answered.
func TestPeerFloodsNotifications(t *testing.T) {
	p := start(t, serverCommand(t))
	p.send(t, wireInit)
	require.NotNil(t, p.receive(t).Result)
	note := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2,"message":"working"}}` + "\n"
	batch := strings.Repeat(note, 10_000)
	begin := time.Now()
	for range 30 { // 300,000 notifications, 36 MB
		_, err := io.WriteString(p.stdin, batch)
		require.NoError(t, err)
	}
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.Equal(t, "2", string(p.receive(t).ID))
	t.Logf("a ping behind 300,000 notifications answered in %v", time.Since(begin))
	p.checkPeakRSS(t, 64<<20, "after 300,000 notifications")
}

// TestPeerSendsInvalidUTF8: an id holding invalid UTF-8 is refused under
// "id": null, never answered under another id, and the refusal quotes it
// with U+FFFD in place of the bytes: stdout carries only lines a strict
// client can decode.
func TestPeerSendsInvalidUTF8(t *testing.T) {
	p := start(t, serverCommand(t))
	p.send(t, "{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\"}", "{\"jsonrpc\":\"2.0\",\"id\":\"c\xffd\",\"method\":\"ping\"}")
	for range 2 {
		line, ok := p.line(t)
		require.True(t, ok, "a reply")
		assert.True(t, utf8.ValidString(line), "a reply that is not UTF-8: %q", line)
		assert.Contains(t, line, "\ufffd")
	}
}

// TestPeerAmplifiesEcho: a reply costs no more than its request allows.
// echo takes at most tools.MaxEchoLength characters; "<", "<" and "&",
// which go-sdk writes as six-byte \u003c escapes, make the longest reply.
func TestPeerAmplifiesEcho(t *testing.T) {
	slow(t)
	p := start(t, serverCommand(t))
	p.send(t, wireInit)
	require.NotNil(t, p.receive(t).Result)
	echo := func(id int, n int) reply {
		p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"%s"}}}`,
			id, strings.Repeat("<", n)))
		return p.receive(t)
	}
	r := echo(2, tools.MaxEchoLength)
	require.Nil(t, r.Error)
	assert.NotContains(t, string(r.Result), `"isError":true`)
	assert.LessOrEqual(t, len(r.Result), 6*tools.MaxEchoLength+100, "the longest echo's reply")
	r = echo(3, 8_000_000)
	require.Nil(t, r.Error)
	assert.Contains(t, string(r.Result), `"isError":true`, "an echo past the limit is a tool error")
	assert.Less(t, len(r.Result), 1000, "an echo past the limit is answered briefly")
	p.checkPeakRSS(t, 256<<20, "for an 8 MB echo")
}

// TestPeerNestsDeep: a line of two million '[' once overflowed the stack of
// the recursive JSON decoder and ended the process; a message nesting
// deeper than 64 levels is refused before any decoder reads it, with its
// id where encoding/json's scan finds one (up to 10,000 levels), else
// "id": null.
func TestPeerNestsDeep(t *testing.T) {
	p := start(t, serverCommand(t))
	deep := func(id, n int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":`, id) + strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) + "}}"
	}
	p.send(t, strings.Repeat("[", 2_000_000), deep(1, 9_000), deep(3, 50_000), `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	for _, id := range []string{"null", "1", "null"} {
		r := p.receive(t)
		require.NotNil(t, r.Error, "reply to id %s", id)
		assert.Equal(t, id, string(r.ID))
		assert.EqualValues(t, -32600, r.Error.Code)
	}
	assert.NotNil(t, p.receive(t).Result, "ping after the deep lines")
}

// TestPeerSendsHugeLine: a line of 50 MB: it is refused with -32600, skipped
// without being kept in memory, and the server answers the next request.
func TestPeerSendsHugeLine(t *testing.T) {
	slow(t)
	p := start(t, serverCommand(t))
	p.send(t, wireInit)
	require.NotNil(t, p.receive(t).Result)

	chunk := strings.Repeat("x", 1<<20)
	_, err := io.WriteString(p.stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"`)
	require.NoError(t, err)
	for range 50 {
		_, err := io.WriteString(p.stdin, chunk)
		require.NoError(t, err)
	}
	p.send(t, `"}}}`)
	resp := p.receive(t)
	require.NotNil(t, resp.Error)
	assert.Equal(t, int64(-32600), resp.Error.Code)
	assert.Contains(t, resp.Error.Message, "message too large")
	assert.Equal(t, "null", string(resp.ID))

	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	resp = p.receive(t)
	assert.Equal(t, "3", string(resp.ID))
	assert.JSONEq(t, `{}`, string(resp.Result))

	p.checkPeakRSS(t, 64<<20, "after a 50 MB line (the limit is 8 MiB)")
	p.closeInput(t)
	assert.Equal(t, 0, p.wait(t, failAfter))
}

// TestPeerClosesStdout: a client that closes the server's stdout ends the
// session at once: the next reply fails with EPIPE (not SIGPIPE), and the
// server says so and exits with status 1.
func TestPeerClosesStdout(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGPIPE on Windows")
	}
	p := start(t, serverCommand(t))
	p.send(t, wireInit)
	require.NotNil(t, p.receive(t).Result)
	require.NoError(t, p.out.Close())
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.Equal(t, 1, p.wait(t, 5*time.Second))
	assert.Contains(t, p.stderr.String(), "writing to standard output: write /dev/stdout: broken pipe")
}

// TestPeerSendsLongEcho sends a message of a million characters, most of them
// more than one byte long, through echo and back.
func TestPeerSendsLongEcho(t *testing.T) {
	session := start(t, serverCommand(t)).connect(t, "2025-11-25")
	message := strings.Repeat("héllo 🎉 wö", 100_000)
	require.Equal(t, 1_000_000, len([]rune(message)))
	res := callTool(t, session, "echo", map[string]any{"message": message})
	require.False(t, res.IsError)
	text := res.Content[0].(*mcp.TextContent).Text
	assert.Equal(t, len(message), len(text))
	assert.True(t, text == message, "echo changed the message")
}

// TestPeerStopsReading: a client that stops reading leaves the
// server's replies stuck in writes to a full pipe; SIGTERM and SIGINT still
// stop it promptly, with status 0.
func TestPeerStopsReading(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			p := start(t, serverCommand(t))
			p.send(t, wireInit, wireInitialized)
			message := strings.Repeat("y", tools.MaxEchoLength) // a reply of a megabyte fills the pipe
			for id := range 3 {
				p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":%q}}}`, 10+id, message))
			}
			require.NotNil(t, p.receive(t).Result) // initialize's
			// An echo's reply has begun; more than the pipe holds is left
			// of it, and the server's write of it blocks.
			_, err := p.stdout.Peek(1)
			require.NoError(t, err)
			p.signal(t, sig)
			assert.Equal(t, 0, p.wait(t, 5*time.Second))
		})
	}
}

// TestPeerReusesIDs: a client may reuse an id as soon as it has read the
// reply that carries it.
func TestPeerReusesIDs(t *testing.T) {
	p := start(t, serverCommand(t))
	p.send(t, wireInit)
	require.NotNil(t, p.receive(t).Result)
	for i := range 2000 {
		p.send(t, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
		resp := p.receive(t)
		require.Nil(t, resp.Error, "ping %d, reusing id 7", i)
		require.Equal(t, "7", string(resp.ID))
	}
	p.closeInput(t)
	assert.Equal(t, 0, p.wait(t, failAfter))
}

// TestPeerReadsSlowlyAfterEnd: a client that sends three echoes of 100,000
// characters, ends its input, and reads at a steady 8 KiB/s, as a slow
// pipe might, gets every reply whole, though each takes some 12 s to read,
// more than twice the grace period: the grace period measures a client
// that has stopped reading, not a reply that takes long to read.
func TestPeerReadsSlowlyAfterEnd(t *testing.T) {
	slow(t)
	p := start(t, serverCommand(t))
	p.send(t, wireInit, wireInitialized)
	message := strings.Repeat("z", 100_000)
	for id := range 3 {
		p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":%q}}}`, 10+id, message))
	}
	p.closeInput(t)

	// Read p.out itself, 1 KiB every 125 ms: p.stdout would read ahead.
	require.NoError(t, p.out.SetReadDeadline(time.Now().Add(2*time.Minute))) // for a failure only
	var got []byte
	tick := time.NewTicker(125 * time.Millisecond)
	defer tick.Stop()
	buf := make([]byte, 1024)
	for {
		<-tick.C
		n, err := p.out.Read(buf)
		got = append(got, buf[:n]...)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "reading the replies slowly")
	}
	assert.Equal(t, 0, p.wait(t, 5*time.Second))
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	// Not require.Len, which would print 300 KB of replies.
	require.Equal(t, 4, len(lines), "replies: initialize's and three echoes'")
	whole := map[int]bool{} // by id: the replies come in the order they are ready
	for _, line := range lines[1:] {
		var r struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(line), &r), "a reply: %.80q", line)
		whole[r.ID] = len(r.Result.Content) == 1 && r.Result.Content[0].Text == message
	}
	assert.Equal(t, map[int]bool{10: true, 11: true, 12: true}, whole, "each echo's reply, whole")
	assert.NotContains(t, p.stderr.String(), "abandoned")
}
