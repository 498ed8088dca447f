package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/internal/protocol"
)

const (
	initialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

// toolCall is a tools/call line with id, for the test server's tools.
func toolCall(id any, tool string, args string) string {
	data, _ := json.Marshal(id)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, data, tool, args)
}

// SleepInput is the arguments of the test server's sleep tool.
type SleepInput struct {
	Milliseconds int `json:"milliseconds"`
}

// newTestServer returns a server with two tools: "echo", and "sleep", which
// answers after the given time or when its request is cancelled. started,
// if not nil, receives a value as each sleep begins.
func newTestServer(started chan<- struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Message string `json:"message"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep"}, func(ctx context.Context, _ *mcp.CallToolRequest, in SleepInput) (*mcp.CallToolResult, any, error) {
		if started != nil {
			started <- struct{}{}
		}
		select {
		case <-time.After(time.Duration(in.Milliseconds) * time.Millisecond):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "awake"}}}, nil, nil
	})
	s.AddReceivingMiddleware(protocol.Middleware(slog.New(slog.DiscardHandler)))
	return s
}

// A client is a test's end of a session served by Serve over pipes.
type client struct {
	t       *testing.T
	in      *io.PipeWriter
	replies chan reply
	logs    *syncBuffer
	done    chan error
}

// A reply is a line the server wrote, decoded.
type reply struct {
	line   string
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// serve starts Serve with opts, for the test server unless server is set,
// and returns the client's end.
func serve(t *testing.T, server *mcp.Server, opts Options) *client {
	t.Helper()
	if server == nil {
		server = newTestServer(nil)
	}
	inR, inW := io.Pipe()
	c := &client{t: t, in: inW, replies: make(chan reply, 10_000), logs: new(syncBuffer), done: make(chan error, 1)}
	opts.In = inR
	opts.Out = &lineWriter{c: c}
	opts.Logger = slog.New(slog.NewTextHandler(c.logs, nil))
	opts.Methods = protocol.Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})
	go func() { c.done <- Serve(context.Background(), server, opts) }()
	t.Cleanup(func() {
		_ = inW.Close()
		select {
		case err := <-c.done:
			assert.NoError(t, err, "Serve")
		case <-time.After(10 * time.Second):
			t.Errorf("Serve did not return after the input ended")
		}
		if t.Failed() {
			t.Logf("server log:\n%s", c.logs.String())
		}
	})
	return c
}

func (c *client) send(lines ...string) {
	c.t.Helper()
	for _, line := range lines {
		_, err := io.WriteString(c.in, line+"\n")
		require.NoError(c.t, err, "sending %.100s", line)
	}
}

// recv returns the next reply, failing the test if none comes within 5 s.
func (c *client) recv() reply {
	c.t.Helper()
	select {
	case r := <-c.replies:
		return r
	case <-time.After(5 * time.Second):
		c.t.Fatalf("no reply within 5 s; log:\n%s", c.logs.String())
		return reply{}
	}
}

// none checks that no reply comes within d.
func (c *client) none(d time.Duration) {
	c.t.Helper()
	select {
	case r := <-c.replies:
		c.t.Fatalf("unexpected reply: %s", r.line)
	case <-time.After(d):
	}
}

// end closes the input and waits for Serve to return.
func (c *client) end() {
	c.t.Helper()
	require.NoError(c.t, c.in.Close())
	select {
	case err := <-c.done:
		require.NoError(c.t, err, "Serve")
		c.done <- nil // for the cleanup
	case <-time.After(10 * time.Second):
		c.t.Fatalf("Serve did not return after the input ended")
	}
}

// A lineWriter is the server's output in a test: it decodes each line into
// a reply for the client.
type lineWriter struct {
	c       *client
	partial []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(w.partial[:i])
		w.partial = w.partial[i+1:]
		r := reply{line: line}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			w.c.t.Errorf("the server wrote a line that is not JSON: %q", line)
		}
		if r.Error != nil && !protocol.IsSpecCode(r.Error.Code) {
			w.c.t.Errorf("the server wrote an error with a code no specification assigns: %s", line)
		}
		w.c.replies <- r
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
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

// TestLines checks the framing: "\r\n" as well as "\n", blank lines (of
// spaces, tabs or a lone "\r") ignored, a last line without "\n" read, and
// a line past MaxMessageSize answered with -32600 and skipped.
func TestLines(t *testing.T) {
	c := serve(t, nil, Options{MaxMessageSize: 200})
	c.send(initialize + "\r")
	assert.JSONEq(t, `"init"`, string(c.recv().ID))
	c.send("", " ", "\t", "\r", " \r", toolCall(1, "echo", `{"message":"crlf"}`)+"\r")
	r := c.recv()
	assert.JSONEq(t, `1`, string(r.ID), "the first reply after blank lines: %s", r.line)
	c.send(toolCall(2, "echo", `{"message":"`+strings.Repeat("x", 300)+`"}`))
	r = c.recv()
	require.NotNil(t, r.Error, "a line of 300 bytes with a limit of 200: %s", r.line)
	assert.Equal(t, int64(-32600), r.Error.Code)
	assert.Equal(t, "null", string(r.ID))
	assert.Contains(t, r.Error.Message, "a line may hold at most 200 bytes")
	_, err := io.WriteString(c.in, toolCall(3, "echo", `{"message":"last"}`)) // no "\n"
	require.NoError(t, err)
	c.end()
	assert.JSONEq(t, `3`, string(c.recv().ID), "the last line, without a newline, is read")
}

// TestEras runs what Claude Code 2.1.280 sends (anthropics/claude-code#96183):
// server/discover, then initialize; and 2026-07-28 requests before and
// after it. Each era has its session: the initialize is not a duplicate.
func TestEras(t *testing.T) {
	c := serve(t, nil, Options{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`)
	r := c.recv()
	require.Nil(t, r.Error, "server/discover: %s", r.line)
	assert.Contains(t, string(r.Result), `"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`)

	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"},` + modernMeta + `}}`)
	r = c.recv()
	require.Nil(t, r.Error, "a 2026-07-28 call: %s", r.line)
	assert.Contains(t, string(r.Result), `"resultType":"complete"`)

	c.send(initialize)
	r = c.recv()
	require.Nil(t, r.Error, "initialize after server/discover: %s", r.line)
	assert.Contains(t, string(r.Result), `"protocolVersion":"2025-11-25"`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, toolCall(3, "echo", `{"message":"legacy"}`))
	r = c.recv()
	require.Nil(t, r.Error, "a legacy call: %s", r.line)
	assert.NotContains(t, string(r.Result), "resultType", "a legacy result has no resultType")

	c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{` + modernMeta + `}}`)
	r = c.recv()
	require.Nil(t, r.Error, "a 2026-07-28 request after initialize: %s", r.line)
	c.send(initialize)
	r = c.recv()
	require.NotNil(t, r.Error, "a second initialize: %s", r.line)
	assert.Equal(t, int64(-32600), r.Error.Code)
}

// TestDuplicateID: a request reusing the id of one in flight is refused
// with "id": null, lest the client take it for the first one's answer.
func TestDuplicateID(t *testing.T) {
	c := serve(t, nil, Options{})
	c.send(initialize)
	c.recv()
	c.send(toolCall(7, "sleep", `{"milliseconds":200}`), toolCall(7, "echo", `{"message":"again"}`))
	r := c.recv()
	require.NotNil(t, r.Error, "%s", r.line)
	assert.Equal(t, int64(-32600), r.Error.Code)
	assert.Equal(t, "null", string(r.ID))
	assert.Contains(t, r.Error.Message, "id 7 is in use by a request in flight")
	r = c.recv()
	assert.Contains(t, string(r.Result), "awake")
}

// TestCancel: a cancelled request gets no reply; its id is free at once;
// a cancellation of a request already answered, or not sent yet, or of
// initialize, is ignored.
func TestCancel(t *testing.T) {
	started := make(chan struct{}, 1)
	c := serve(t, newTestServer(started), Options{})
	c.send(initialize)
	c.recv()
	c.send(toolCall(1, "sleep", `{"milliseconds":60000}`))
	<-started
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"stop"}}`,
		toolCall(1, "echo", `{"message":"reused at once"}`))
	r := c.recv()
	assert.JSONEq(t, `1`, string(r.ID))
	assert.Contains(t, string(r.Result), "reused at once", "the reply to the reused id is the echo's, not the sleep's")
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`, toolCall(9, "echo", `{"message":"nine"}`))
	assert.Contains(t, string(c.recv().Result), "nine", "a cancellation before its request is ignored")
	c.none(100 * time.Millisecond)
	assert.Contains(t, c.logs.String(), "request cancelled by the client")
	assert.Contains(t, c.logs.String(), "reason=stop")
}

// TestStaleCancel sends, many times over, a request, a cancellation of it
// racing its reply, and a request reusing its id: the last is always
// answered. (go-sdk cancels on a goroutine of its own, some time after it
// reads a cancellation: under the client's ids, it could cancel the reuse.)
func TestStaleCancel(t *testing.T) {
	c := serve(t, nil, Options{})
	c.send(initialize)
	c.recv()
	for i := range 500 {
		c.send(toolCall("x", "echo", `{"message":"first"}`),
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`)
		// The first is answered or cancelled; wait until its id is free.
		time.Sleep(200 * time.Microsecond)
		c.send(toolCall(fmt.Sprint("y", i), "echo", `{"message":"marker"}`))
		for r := c.recv(); string(r.ID) != fmt.Sprintf(`"y%d"`, i); r = c.recv() {
		}
		c.send(toolCall("x", "echo", `{"message":"second"}`))
		r := c.recv()
		require.Nil(t, r.Error, "round %d: the request reusing the id of a cancelled one: %s", i, r.line)
		require.Contains(t, string(r.Result), "second", "round %d", i)
	}
}

// TestBackpressure: with MaxInFlight requests unanswered, the connection
// reads no more until a reply is out.
func TestBackpressure(t *testing.T) {
	started := make(chan struct{}, 100)
	server := newTestServer(started)
	inR, inW := io.Pipe()
	var read atomic.Int64
	out := &lineWriter{c: &client{t: t, replies: make(chan reply, 100)}}
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), server, Options{In: countLines(inR, &read), Out: out, MaxInFlight: 2,
			Methods: protocol.Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})})
	}()
	go func() {
		_, _ = io.WriteString(inW, initialize+"\n")
		for i := range 10 {
			_, _ = io.WriteString(inW, toolCall(i, "sleep", `{"milliseconds":300}`)+"\n")
		}
		_ = inW.Close()
	}()
	<-started
	<-started
	time.Sleep(100 * time.Millisecond)
	assert.LessOrEqual(t, read.Load(), int64(4), "lines read with two requests unanswered (1 initialize, 2 sleeps, 1 waiting)")
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	assert.Len(t, out.c.replies, 11, "every request answered")
}

// countLines counts the lines read from r into n.
func countLines(r io.Reader, n *atomic.Int64) io.Reader {
	return readerFunc(func(p []byte) (int, error) {
		k, err := r.Read(p)
		n.Add(int64(bytes.Count(p[:k], []byte("\n"))))
		return k, err
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// TestDrain: when the input ends, the requests read are answered; one that
// gives no answer within the grace period is abandoned, and logged.
func TestDrain(t *testing.T) {
	c := serve(t, nil, Options{GracePeriod: 300 * time.Millisecond})
	c.send(initialize, toolCall(1, "sleep", `{"milliseconds":100}`), toolCall(2, "sleep", `{"milliseconds":60000}`))
	start := time.Now()
	c.end()
	assert.Less(t, time.Since(start), 5*time.Second)
	var ids []string
	for len(c.replies) > 0 {
		ids = append(ids, string((<-c.replies).ID))
	}
	assert.Equal(t, []string{`"init"`, `1`}, ids, "replies written before Serve returned")
	assert.Contains(t, c.logs.String(), "abandoned a request still running when the input ended")
}

// TestNotificationsDropped: notifications the server has no handler for
// never reach go-sdk, whose queue of them has no bound; a request behind
// many of them is answered.
func TestNotificationsDropped(t *testing.T) {
	var handled atomic.Int64
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ServerOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationServerRequest) { handled.Add(1) },
	})
	c := serve(t, server, Options{})
	c.send(initialize)
	c.recv()
	for range 20_000 {
		c.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.JSONEq(t, `2`, string(c.recv().ID))
	assert.Zero(t, handled.Load(), "progress notifications reached the SDK")
}

// TestOutputClosed: a write that fails ends the session.
func TestOutputClosed(t *testing.T) {
	inR, inW := io.Pipe()
	defer func() { _ = inW.Close() }()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), newTestServer(nil), Options{In: inR, Out: failingWriter{},
			Methods: protocol.Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})})
	}()
	_, err := io.WriteString(inW, initialize+"\n")
	require.NoError(t, err)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Serve went on after its output failed")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// TestCancelWhileBlocked: Serve returns promptly when its context is done,
// even with a write blocked for ever on a client that stopped reading.
func TestCancelWhileBlocked(t *testing.T) {
	inR, inW := io.Pipe()
	defer func() { _ = inW.Close() }()
	outR, outW := io.Pipe() // never read
	defer func() { _ = outR.Close() }()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, newTestServer(nil), Options{In: inR, Out: outW,
			Methods: protocol.Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})})
	}()
	_, err := io.WriteString(inW, initialize+"\n")
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond) // the reply is blocked in Write
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
		assert.Less(t, time.Since(start), closeWait+time.Second)
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its context was cancelled")
	}
}

// TestTrace: every line read and written goes to Trace, control characters
// shown as \xNN.
func TestTrace(t *testing.T) {
	var trace syncBuffer
	c := serve(t, nil, Options{Trace: &trace})
	c.send(initialize, "\x1b[2Jnot json")
	c.recv()
	c.recv()
	c.end()
	assert.Contains(t, trace.String(), "read: "+initialize+"\n")
	assert.Contains(t, trace.String(), "read: \\x1b[2Jnot json\n")
	assert.Contains(t, trace.String(), `write: {"jsonrpc":"2.0","id":null,"error":{"code":-32700`)
}

// TestCancelWhileOutputBlocked: a request cancelled while its reply waits
// for the output, held by a long write, gets no reply; and its id, reused,
// gets the one reply to the new request.
func TestCancelWhileOutputBlocked(t *testing.T) {
	inR, inW := io.Pipe()
	defer func() { _ = inW.Close() }()
	outR, outW := io.Pipe() // a write blocks until the test reads
	defer func() { _ = outR.Close() }()
	go func() {
		_ = Serve(context.Background(), newTestServer(nil), Options{In: inR, Out: outW,
			Methods: protocol.Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})})
	}()
	send := func(line string) {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
	}
	out := bufio.NewReader(outR)
	send(initialize)
	_, err := out.ReadString('\n')
	require.NoError(t, err)
	send(toolCall("a", "echo", `{"message":"blocks the output"}`))
	time.Sleep(100 * time.Millisecond) // echo's reply is blocked in Write
	send(`{"jsonrpc":"2.0","id":"X","method":"ping"}`)
	time.Sleep(100 * time.Millisecond) // ping's reply waits for the output
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"X"}}`)
	time.Sleep(100 * time.Millisecond)
	lines := make(chan string, 10)
	go func() {
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				return
			}
			lines <- line
		}
	}()
	assert.Contains(t, <-lines, `"id":"a"`)
	send(`{"jsonrpc":"2.0","id":"X","method":"tools/list"}`)
	assert.Contains(t, <-lines, `"tools"`, "the reply to the id reused")
	select {
	case line := <-lines:
		t.Fatalf("a reply to the cancelled request: %s", line)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestDrainSlowReader: at the end of input, a long reply to a client that
// reads slowly but steadily goes out whole, though it takes longer than
// the grace period: the wait is for progress, not for whole replies.
func TestDrainSlowReader(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), newTestServer(nil), Options{In: inR, Out: outW, GracePeriod: time.Second,
			Methods: protocol.Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})})
	}()
	message := strings.Repeat("x", 40*writeChunk)
	_, err := io.WriteString(inW, initialize+"\n"+toolCall(1, "echo", fmt.Sprintf(`{"message":%q}`, message))+"\n")
	require.NoError(t, err)
	require.NoError(t, inW.Close())
	chunks := make(chan []byte)
	go func() {
		defer close(chunks)
		for {
			time.Sleep(100 * time.Millisecond) // 4 s for the reply, a read every tenth of the grace period
			buf := make([]byte, writeChunk)
			n, err := outR.Read(buf)
			if err != nil {
				return
			}
			chunks <- buf[:n]
		}
	}()
	var got bytes.Buffer
	for !bytes.Contains(got.Bytes(), []byte(message+`"}]}}`)) {
		select {
		case chunk := <-chunks:
			got.Write(chunk)
		case <-time.After(2 * time.Second):
			t.Fatalf("the reply stopped after %d bytes", got.Len())
		}
	}
	_ = outR.Close()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return")
	}
}
