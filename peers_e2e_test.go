package main

import (
	"bufio"
	"fmt"
	"io"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/tools"
)

// The tests in this file reproduce, through the binary on real pipes, what
// clients the server had not met and a hostile tester found: each promise
// holds whatever a peer does with the server's standard streams.

// TestPeerClosesStderrFirst: mcp-go's Stdio.Close closes the server's
// stderr before its stdin; the server's last log lines then fail with
// EPIPE, and it still exits with status 0, not killed by SIGPIPE.
func TestPeerClosesStderrFirst(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGPIPE on Windows")
	}
	for range 5 {
		cmd := serverCommand(t)
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		replies := bufio.NewReader(stdout)
		_, err = io.WriteString(stdin, wireInit+"\n"+wireInitialized+"\n"+wireCall+"\n")
		require.NoError(t, err)
		for range 2 {
			_, err := replies.ReadString('\n')
			require.NoError(t, err)
		}
		require.NoError(t, stderr.Close())
		require.NoError(t, stdin.Close())
		err = cmd.Wait()
		require.NoError(t, err, "the server's exit after its stderr closed")
		assert.False(t, cmd.ProcessState.Sys().(syscall.WaitStatus).Signaled(), "killed by a signal")
	}
}

// TestPeerNeverReadsStderr: a client may ignore the server's stderr, which
// fills after about 64 KiB of log: thousands of calls, each logged, are
// all answered, and SIGTERM still stops the server at once.
func TestPeerNeverReadsStderr(t *testing.T) {
	slow(t)
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	cmd := serverCommand(t)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe() // never read
	require.NoError(t, err)
	defer func() { _ = stderr.Close() }()
	require.NoError(t, cmd.Start())
	replies := bufio.NewReader(stdout)
	_, err = io.WriteString(stdin, wireInit+"\n"+wireInitialized+"\n")
	require.NoError(t, err)
	_, err = replies.ReadString('\n')
	require.NoError(t, err)
	const calls = 3000 // more than 500 KiB of log
	go func() {
		for i := range calls {
			_, _ = fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`+"\n", 10+i)
		}
	}()
	for i := range calls {
		line, err := replies.ReadString('\n')
		require.NoError(t, err, "reply %d of %d", i+1, calls)
		require.Contains(t, line, `"result"`, "reply %d", i+1)
	}
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait())
	t.Logf("stopped %v after SIGTERM", time.Since(start))
}

// TestPeerFloodsNotifications: notifications are read and dropped as they
// come, so that memory stays bounded, and a request behind them is
// answered.
func TestPeerFloodsNotifications(t *testing.T) {
	s := startWireServer(t)
	s.send(t, wireInit)
	require.NotNil(t, s.receive(t).Result)
	note := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2,"message":"working"}}` + "\n"
	batch := strings.Repeat(note, 10_000)
	start := time.Now()
	for range 30 { // 300,000 notifications, 36 MB
		_, err := io.WriteString(s.stdin, batch)
		require.NoError(t, err)
	}
	s.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.Equal(t, "2", string(s.receive(t).ID))
	t.Logf("a ping behind 300,000 notifications answered in %v", time.Since(start))
	if peak, ok := peakRSS(s.cmd.Process.Pid); ok {
		t.Logf("peak resident memory: %d MiB", peak>>20)
		assert.Less(t, peak, int64(64<<20), "peak resident memory after 300,000 notifications")
	}
}

// TestPeerSendsInvalidUTF8: an id holding invalid UTF-8 comes back valid,
// U+FFFD in its place, in an error reply as in a result: stdout carries
// only lines a strict client can decode.
func TestPeerSendsInvalidUTF8(t *testing.T) {
	s := startWireServer(t)
	s.send(t, "{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\"}")
	s.send(t, "{\"jsonrpc\":\"2.0\",\"id\":\"c\xffd\",\"method\":\"ping\"}")
	for range 2 {
		line, err := s.stdout.ReadBytes('\n')
		require.NoError(t, err)
		assert.True(t, utf8.Valid(line), "a reply that is not UTF-8: %q", line)
		assert.Contains(t, string(line), "\ufffd")
	}
}

// TestPeerAmplifiesEcho: a reply costs no more than its request allows.
// echo takes at most tools.MaxEchoLength characters; "<", "<" and "&",
// which go-sdk writes as six-byte \u003c escapes, make the longest reply.
func TestPeerAmplifiesEcho(t *testing.T) {
	slow(t)
	s := startWireServer(t)
	s.send(t, wireInit)
	require.NotNil(t, s.receive(t).Result)
	echo := func(id int, n int) wireResponse {
		s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"%s"}}}`,
			id, strings.Repeat("<", n)))
		return s.receive(t)
	}
	r := echo(2, tools.MaxEchoLength)
	require.Nil(t, r.Error)
	assert.NotContains(t, string(r.Result), `"isError":true`)
	assert.LessOrEqual(t, len(r.Result), 6*tools.MaxEchoLength+100, "the longest echo's reply")
	r = echo(3, 8_000_000)
	require.Nil(t, r.Error)
	assert.Contains(t, string(r.Result), `"isError":true`, "an echo past the limit is a tool error")
	assert.Less(t, len(r.Result), 1000, "an echo past the limit is answered briefly")
	if peak, ok := peakRSS(s.cmd.Process.Pid); ok {
		t.Logf("peak resident memory: %d MiB", peak>>20)
		assert.Less(t, peak, int64(256<<20), "peak resident memory for an 8 MB echo")
	}
}

// TestPeerNestsDeep: a line of two million '[' once overflowed the stack of
// the recursive JSON decoder and ended the process; a message nesting
// deeper than 64 levels is refused before any decoder reads it, with its
// id where encoding/json's scan finds one (up to 10,000 levels), else
// "id": null.
func TestPeerNestsDeep(t *testing.T) {
	s := startWireServer(t)
	deep := func(id, n int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":`, id) + strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) + "}}"
	}
	s.send(t, strings.Repeat("[", 2_000_000))
	s.send(t, deep(1, 9_000))
	s.send(t, deep(3, 50_000))
	s.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	for _, id := range []string{"null", "1", "null"} {
		r := s.receive(t)
		require.NotNil(t, r.Error, "reply to id %s", id)
		assert.Equal(t, id, string(r.ID))
		assert.EqualValues(t, -32600, r.Error.Code)
	}
	assert.NotNil(t, s.receive(t).Result, "ping after the deep lines")
}
