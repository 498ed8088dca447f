package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/tools"
)

// The tests in this file check the wire-robustness promises through the
// real binary: replies written before exit, long lines, a line far too long,
// signals and -trace.

var stress = flag.Int("stress", 0, "run TestWireStress with this many spawn, call, close cycles of the binary")

const (
	wireInit        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wire-test","version":"1.0.0"}}}`
	wireInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	wireCall        = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":"6 * 7"}}}`
)

// wireServer is the binary running with pipes on its stdin and stdout.
type wireServer struct {
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	stdout     *bufio.Reader
	stdoutPipe io.ReadCloser // under stdout, to close it
	stderr     *syncBuffer
}

func startWireServer(t testing.TB, args ...string) *wireServer {
	t.Helper()
	cmd := serverCommand(t, args...)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	s := &wireServer{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<20), stdoutPipe: stdout, stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", s.stderr.String())
		}
	})
	return s
}

func (s *wireServer) send(t testing.TB, line string) {
	t.Helper()
	_, err := io.WriteString(s.stdin, line+"\n")
	require.NoError(t, err)
}

// receive reads one line from the server and decodes it as a response.
func (s *wireServer) receive(t testing.TB) wireResponse {
	t.Helper()
	line, err := s.stdout.ReadBytes('\n')
	require.NoError(t, err, "reading a reply; stderr:\n%s", s.stderr.String())
	var resp wireResponse
	require.NoError(t, json.Unmarshal(line, &resp), "reply is not JSON: %.200s", line)
	return resp
}

// wait waits for the server to exit, for at most d, and returns its exit
// status.
func (s *wireServer) wait(t testing.TB, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(d):
		_ = s.cmd.Process.Signal(syscall.SIGQUIT) // a goroutine dump on stderr
		err = <-done
		t.Fatalf("the server did not exit within %v (%v); stderr:\n%s", d, err, s.stderr.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("waiting for the server: %v", err)
	}
	return s.cmd.ProcessState.ExitCode()
}

type wireResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestWirePrintfPipe runs the command of the README: the input ends right
// after the call, and both replies still come back.
func TestWirePrintfPipe(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sh")
	}
	cmd := exec.Command("sh", "-c", `printf '%s\n' "$INIT" "$INITIALIZED" "$CALL" | "$SERVER"`)
	cmd.Env = append(os.Environ(), "INIT="+wireInit, "INITIALIZED="+wireInitialized, "CALL="+wireCall, "SERVER="+os.Args[0], runAsServer+"=1")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "stderr:\n%s", stderr.String())
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	require.Len(t, lines, 2, "replies:\n%s", out)
	assert.Contains(t, lines[0], `"id":1,"result":{`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"exact\":true,\"parsed\":\"(6 * 7)\",\"result\":\"42\"}"}],"structuredContent":{"exact":true,"parsed":"(6 * 7)","result":"42"}}}`, lines[1])
}

// TestWireLongEcho sends a message of a million characters, most of them
// more than one byte long, through echo and back.
func TestWireLongEcho(t *testing.T) {
	session := connect(t, "2025-11-25")
	message := strings.Repeat("héllo 🎉 wö", 100_000)
	require.Equal(t, 1_000_000, len([]rune(message)))
	res := callTool(t, session, "echo", map[string]any{"message": message})
	require.False(t, res.IsError)
	text := res.Content[0].(*mcp.TextContent).Text
	assert.Equal(t, len(message), len(text))
	assert.True(t, text == message, "echo changed the message")
}

// TestWireHugeLine sends a 50 MB line: it is refused with -32600, skipped
// without being kept in memory, and the server answers the next request.
func TestWireHugeLine(t *testing.T) {
	slow(t)
	s := startWireServer(t)
	s.send(t, wireInit)
	require.NotNil(t, s.receive(t).Result)

	chunk := strings.Repeat("x", 1<<20)
	_, err := io.WriteString(s.stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"`)
	require.NoError(t, err)
	for range 50 {
		_, err := io.WriteString(s.stdin, chunk)
		require.NoError(t, err)
	}
	s.send(t, `"}}}`)
	resp := s.receive(t)
	require.NotNil(t, resp.Error)
	assert.Equal(t, int64(-32600), resp.Error.Code)
	assert.Contains(t, resp.Error.Message, "message too large")
	assert.Equal(t, "null", string(resp.ID))

	s.send(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	resp = s.receive(t)
	assert.Equal(t, "3", string(resp.ID))
	assert.JSONEq(t, `{}`, string(resp.Result))

	if peak, ok := peakRSS(s.cmd.Process.Pid); ok {
		t.Logf("peak resident memory: %d MiB", peak>>20)
		assert.Less(t, peak, int64(64<<20), "peak resident memory after a 50 MB line (the limit is 8 MiB)")
	}
	require.NoError(t, s.stdin.Close())
	assert.Equal(t, 0, s.wait(t, 10*time.Second))
}

// peakRSS returns the peak resident memory of a process, in bytes, on
// systems with /proc.
func peakRSS(pid int) (int64, bool) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// TestWireSIGTERMWhileIdle: the server stops promptly, with status 0, when
// told to while it waits for input.
func TestWireSIGTERMWhileIdle(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	s := startWireServer(t)
	s.send(t, wireInit)
	require.NotNil(t, s.receive(t).Result)
	s.send(t, wireInitialized)
	s.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	require.NotNil(t, s.receive(t).Result) // all is read and answered: the server waits for input
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 0, s.wait(t, 5*time.Second))
}

// TestWireSignalWhileStdoutFull: a client that stops reading leaves the
// server's replies stuck in writes to a full pipe; SIGTERM and SIGINT still
// stop it promptly, with status 0.
func TestWireSignalWhileStdoutFull(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startWireServer(t)
			s.send(t, wireInit)
			s.send(t, wireInitialized)
			message := strings.Repeat("y", tools.MaxEchoLength) // a reply of a megabyte fills the pipe
			for id := range 3 {
				s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":%q}}}`, 10+id, message))
			}
			require.NotNil(t, s.receive(t).Result) // initialize's
			// An echo's reply has begun; more than the pipe holds is left
			// of it, and the server's write of it blocks.
			_, err := s.stdout.Peek(1)
			require.NoError(t, err)
			require.NoError(t, s.cmd.Process.Signal(sig))
			assert.Equal(t, 0, s.wait(t, 5*time.Second))
		})
	}
}

// TestWireStdoutClosed: a client that closes the server's stdout ends the
// session at once: the next reply fails with EPIPE (not SIGPIPE), and the
// server says so and exits with status 1.
func TestWireStdoutClosed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGPIPE on Windows")
	}
	s := startWireServer(t)
	s.send(t, wireInit)
	require.NotNil(t, s.receive(t).Result)
	require.NoError(t, s.stdoutPipe.Close())
	s.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.Equal(t, 1, s.wait(t, 5*time.Second))
	assert.Contains(t, s.stderr.String(), "writing to standard output: write /dev/stdout: broken pipe")
}

// TestWireReuseID: a client may reuse an id as soon as it has read the
// reply that carries it.
func TestWireReuseID(t *testing.T) {
	s := startWireServer(t)
	s.send(t, wireInit)
	require.NotNil(t, s.receive(t).Result)
	for i := range 2000 {
		s.send(t, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
		resp := s.receive(t)
		require.Nil(t, resp.Error, "ping %d, reusing id 7", i)
		require.Equal(t, "7", string(resp.ID))
	}
	require.NoError(t, s.stdin.Close())
	assert.Equal(t, 0, s.wait(t, 10*time.Second))
}

// TestWireTrace: with -trace, every message read and written is logged to
// stderr, one line each; stdout carries only the replies.
func TestWireTrace(t *testing.T) {
	s := startWireServer(t, "-trace")
	s.send(t, `{oops`)
	assert.Equal(t, "null", string(s.receive(t).ID))
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	assert.Equal(t, "1", string(s.receive(t).ID))
	require.NoError(t, s.stdin.Close())
	assert.Equal(t, 0, s.wait(t, 10*time.Second))
	for _, want := range []string{
		`read: {"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		`write: {"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		"read: {oops\n",
		`write: {"jsonrpc":"2.0","id":null,"error":{"code":-32700,`,
	} {
		assert.Contains(t, s.stderr.String(), want)
	}
}

// TestWireStress runs the binary many times over, with -stress N: each
// cycle starts it, initializes, makes two calls, and then either closes its
// stdin or sends SIGTERM. A cycle whose server does not exit in time fails
// with a goroutine dump of the server.
func TestWireStress(t *testing.T) {
	if *stress == 0 {
		t.Skip("run with -stress N")
	}
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range 4 {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(*stress) && failed.Load() == 0; i = next.Add(1) {
				ok := t.Run(fmt.Sprint("cycle-", i), func(t *testing.T) { stressCycle(t, i%2 == 0) })
				if !ok {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d cycles in %v, %d failed", min(next.Load()-4, int64(*stress)), time.Since(start), failed.Load())
}

func stressCycle(t *testing.T, sigterm bool) {
	s := startWireServer(t)
	s.send(t, wireInit)
	s.send(t, wireInitialized)
	s.send(t, wireCall)
	s.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
	if !sigterm {
		require.NoError(t, s.stdin.Close())
	}
	for range 3 {
		require.Nil(t, s.receive(t).Error)
	}
	if sigterm {
		require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	}
	require.Equal(t, 0, s.wait(t, 10*time.Second))
}
