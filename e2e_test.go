package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"mcp-hello-tools/tools"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file run the real program, and talk to it over its
// standard input and output, as Claude Desktop and VS Code do.

// hostProtocolVersions are the protocol versions real hosts use today: the
// two of the initialize handshake most hosts send, and 2026-07-28, which a
// go-sdk client asks for unless told otherwise (with server/discover, and
// no handshake).
var hostProtocolVersions = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

// failAfter is how long a test waits for the server before it fails: a
// server that is right answers at once, and the deadline is for failures.
const failAfter = 20 * time.Second

// runAsServer, set in its environment, has the test binary run as the
// server: TestMain runs main, as go-sdk's mcp/cmd_test.go does. So the
// end-to-end tests need no toolchain, and count in coverage.
const runAsServer = "MCP_HELLO_TOOLS_RUN_AS_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(runAsServer) != "" {
		main()
		os.Exit(0)
	}
	code := m.Run()
	if hello.dir != "" {
		_ = os.RemoveAll(hello.dir)
	}
	os.Exit(code)
}

// serverCommand returns the command that runs the server with args: this
// test binary, run as the server. With -short, such tests are skipped.
func serverCommand(t testing.TB, args ...string) *exec.Cmd {
	if testing.Short() {
		t.Skip("runs the server as a process of its own; skipped with -short")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runAsServer+"=1")
	return cmd
}

// slow skips a test that measures memory or load over seconds, unless the
// environment has MCP_HELLO_TOOLS_SLOW=1, as .ci/run does.
func slow(t *testing.T) {
	if os.Getenv("MCP_HELLO_TOOLS_SLOW") == "" {
		t.Skip("measures memory over seconds: run with MCP_HELLO_TOOLS_SLOW=1")
	}
}

// connect starts the binary with args and connects a go-sdk client to it
// over the command's stdin and stdout, negotiating protocolVersion. The
// session is closed, and the process stopped, when the test ends; the
// server's stderr is written to the test log if the test fails.
func connect(t testing.TB, protocolVersion string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := serverCommand(t, args...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-test", Version: "v0.0.1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd},
		&mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	require.NoError(t, err, "connecting to %s", cmd.Path)
	t.Cleanup(func() {
		_ = session.Close()
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	return session
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestBinaryToolCalls(t *testing.T) {
	for _, v := range hostProtocolVersions {
		t.Run(v, func(t *testing.T) {
			session := connect(t, v)
			ctx := context.Background()
			assert.Equal(t, v, session.InitializeResult().ProtocolVersion)
			assert.Equal(t, name, session.InitializeResult().ServerInfo.Name)

			list, err := session.ListTools(ctx, nil)
			require.NoError(t, err)
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			assert.ElementsMatch(t, tools.Names(), names)

			res := callTool(t, session, "echo", map[string]any{"message": "héllo\n\"world\" \u2028 🎉"})
			assert.False(t, res.IsError)
			assert.Equal(t, "héllo\n\"world\" \u2028 🎉", res.Content[0].(*mcp.TextContent).Text)

			res = callTool(t, session, "calculate", map[string]any{"expression": "2 * (3 + 4.5) ^ 2"})
			assert.False(t, res.IsError)
			assert.JSONEq(t, `{"result": "112.5", "exact": true, "parsed": "(2 * ((3 + 4.5) ^ 2))"}`, mustJSON(t, res.StructuredContent))

			res = callTool(t, session, "calculate", map[string]any{"expression": "1/0"})
			assert.True(t, res.IsError)
			assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "division by zero")

			before := time.Now().Unix()
			res = callTool(t, session, "get_timestamp", map[string]any{"format": "unix", "timezone": "Europe/Paris"})
			assert.False(t, res.IsError)
			var ts struct {
				Timestamp string `json:"timestamp"`
				Timezone  string `json:"timezone"`
				Unix      int64  `json:"unix"`
			}
			require.NoError(t, json.Unmarshal([]byte(mustJSON(t, res.StructuredContent)), &ts))
			assert.Equal(t, "Europe/Paris", ts.Timezone)
			assert.Equal(t, fmt.Sprint(ts.Unix), ts.Timestamp)
			assert.InDelta(t, before, ts.Unix, 5)
		})
	}
}

// callTool calls a tool and fails the test on a JSON-RPC error.
func callTool(t testing.TB, session *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, "CallTool(%s, %v)", tool, args)
	require.NotEmpty(t, res.Content, "CallTool(%s, %v) has no content", tool, args)
	return res
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestBinaryStdoutIsProtocolOnly drives the server by hand, line by line,
// and checks that every line it writes to stdout is a JSON-RPC 2.0 response
// to one of the requests, with nothing more, and that it exits with status
// 0 when stdin closes.
func TestBinaryStdoutIsProtocolOnly(t *testing.T) {
	replies, status, log := converse(t, serverCommand(t),
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_timestamp","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":"1+"}}}`)
	require.Equal(t, 5, len(replies), "replies; log:\n%s", log)
	for _, line := range replies {
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&resp), "stdout line is not a JSON-RPC response: %.200s", line)
		assert.Equal(t, "2.0", resp.JSONRPC, line)
		assert.NotEmpty(t, resp.Result, line)
		assert.Empty(t, resp.Error, line)
	}
	assert.Zero(t, status, "exit status; log:\n%s", log)
	assert.Contains(t, log, "tools/call", "one log line per tool call on stderr")
}
