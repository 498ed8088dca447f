package stdio

// What the tests of this package share: a client's end of a session that
// Serve serves, an output that can hold a write, and a wait that fails.

import (
	"bytes"
	"cmp"
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

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/internal/protocol"
)

// The tests here order events by what the server does (a write it makes, a
// tool it starts, a line it logs), never by time: every wait below ends at
// once when the server is right, and its deadline is only for failures.

const (
	initialize  = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	modernMeta  = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	failAfter   = 10 * time.Second // how long a wait may take before the test fails
)

func callLine(id any, tool, args string) string {
	data, _ := json.Marshal(id)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, data, tool, args)
}

func cancel(id any) string {
	data, _ := json.Marshal(id)
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"stop"}}`, data)
}

// A client is a test's end of a session that Serve serves.
type client struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *output
	logs   chan string // the server's log lines
	held   chan string // the message of each "hold" call, as it starts, or "server/discover", held
	unhold chan struct{}
	done   chan error
	trace  lineWriter // each line traced

	holdDiscover atomic.Bool  // server/discover is held as hold is
	holdInit     atomic.Bool  // and initialize
	notified     atomic.Int32 // the notifications/initialized go-sdk has received
}

// start serves a test server with opts and the limits given, the others
// the package's, and returns the client's end. The server has two tools: echo,
// and hold, which answers when c.unhold is closed or when its request is
// cancelled; server/discover is held so too while c.holdDiscover is set.
func start(t *testing.T, opts Options, lim limits) *client {
	c := &client{t: t, out: newOutput(), logs: make(chan string, 1000), held: make(chan string, 100),
		unhold: make(chan struct{}), done: make(chan error, 1), trace: make(lineWriter, 100_000)}
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"},
		&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	type args struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		c.held <- in.Message
		select {
		case <-c.unhold:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released " + in.Message}}}, nil, nil
	})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch {
			case method == "server/discover" && c.holdDiscover.Load(), method == "initialize" && c.holdInit.Load():
				c.held <- method
				select {
				case <-c.unhold:
				case <-ctx.Done():
				}
			case method == "notifications/initialized":
				c.notified.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	lim.maxInFlight = cmp.Or(lim.maxInFlight, maxInFlight)
	lim.maxInFlightSize = cmp.Or(lim.maxInFlightSize, maxInFlightSize)
	if lim.after == nil {
		lim.after = time.After
	}
	if lim.unreadOf == nil {
		lim.unreadOf = unreadOf
	}
	var in io.Reader
	in, c.in = io.Pipe()
	opts.In, opts.Trace = in, c.trace
	if opts.Out == nil { // a test's own reader
		opts.Out = c.out
	}
	opts.Methods = protocol.Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})
	opts.Logger = slog.New(slog.NewTextHandler(lineWriter(c.logs), &slog.HandlerOptions{Level: slog.LevelDebug}))
	go func() { c.done <- serve(context.Background(), s, opts, lim) }()
	t.Cleanup(func() {
		_ = c.in.Close()
		c.out.release()
		if t.Failed() {
			close(c.logs)
			for line := range c.logs {
				t.Log("server log: " + line)
			}
		}
	})
	return c
}

// send sends lines, each with its "\n".
func (c *client) send(lines ...string) {
	c.t.Helper()
	for _, line := range lines {
		c.write(line + "\n")
	}
}

// write writes text to the server's input, which must read it within
// failAfter: the pipe's write has no deadline of its own, and a server that
// reads no more fails the test rather than hangs it (the write left blocked
// ends when cleanup closes the input).
func (c *client) write(text string) {
	c.t.Helper()
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(c.in, text)
		written <- err
	}()
	select {
	case err := <-written:
		require.NoError(c.t, err, "sending %.100q", text)
	case <-time.After(failAfter):
		c.t.Fatalf("the server read nothing of %.100q for %v", text, failAfter)
	}
}

// A reply is a line the server wrote.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// recv returns the next reply.
func (c *client) recv() reply {
	c.t.Helper()
	var r reply
	select {
	case line := <-c.out.lines:
		require.NoError(c.t, json.Unmarshal([]byte(line), &r), "the server wrote %q", line)
	case <-time.After(failAfter):
		c.t.Fatal("no reply")
	}
	return r
}

// recvError returns the id, code and message of the next reply, an error.
func (c *client) recvError() (string, int64, string) {
	c.t.Helper()
	r := c.recv()
	require.NotNil(c.t, r.Error, "want an error, got %s", r.Result)
	return string(r.ID), r.Error.Code, r.Error.Message
}

// heldNow waits until a held call ("hold", or server/discover) starts, and
// returns its message.
func (c *client) heldNow() string {
	c.t.Helper()
	select {
	case m := <-c.held:
		return m
	case <-time.After(failAfter):
		c.t.Fatal("no held call started")
		return ""
	}
}

// logged waits until the server logs a line containing text, and returns
// it.
func (c *client) logged(text string) string {
	c.t.Helper()
	var seen []string
	for {
		select {
		case line := <-c.logs:
			if strings.Contains(line, text) {
				return line
			}
			seen = append(seen, line)
		case <-time.After(failAfter):
			c.t.Fatalf("the server did not log %q; it logged:\n%s", text, strings.Join(seen, ""))
			return ""
		}
	}
}

// holdTwoReplies has the client shake hands, then ask for two echoes of a
// message of size bytes and read nothing: one reply goes out and is held
// in the write, the other is computed and waits behind it. It returns the
// message.
func (c *client) holdTwoReplies(t *testing.T, size int) string {
	t.Helper()
	c.send(initialize, initialized)
	c.recv()
	c.out.held.Store(true)
	message := strings.Repeat("x", size)
	c.send(callLine(1, "echo", `{"message":"`+message+`"}`), callLine(2, "echo", `{"message":"`+message+`"}`))
	c.out.blockedWrite(t)                    // one reply goes out, held
	c.logged("a reply waits for the output") // the other is computed, behind it
	return message
}

// holdLongReply has the client shake hands, then ask for an echo whose
// reply goes out in four parts (MinReadRate×GracePeriod bytes each) and read
// nothing: the first part is held in the write. It returns the message and
// that part.
func (c *client) holdLongReply(t *testing.T) (message string, first []byte) {
	t.Helper()
	c.send(initialize, initialized)
	c.recv()
	c.out.held.Store(true)
	message = strings.Repeat("x", 3*MinReadRate*int(GracePeriod.Seconds()))
	c.send(callLine(1, "echo", `{"message":"`+message+`"}`))
	return message, c.out.blockedWrite(t)
}

// end closes the input and returns what Serve returns.
func (c *client) end() error {
	c.t.Helper()
	require.NoError(c.t, c.in.Close())
	return c.served()
}

// served waits until Serve returns, and returns its error.
func (c *client) served() error {
	c.t.Helper()
	select {
	case err := <-c.done:
		return err
	case <-time.After(failAfter):
		c.t.Fatal("Serve did not return")
		return nil
	}
}

// An output is Serve's output in a test: whole lines go to lines. While it
// is held, each Write says so on blocked, and waits for the test to let it
// through (next), or for the output to be released.
type output struct {
	mu       sync.Mutex
	partial  []byte
	lines    chan string
	held     atomic.Bool
	blocked  chan []byte
	through  chan struct{}
	open     chan struct{}
	openOnce sync.Once
	err      error
}

func newOutput() *output {
	return &output{lines: make(chan string, 1000), blocked: make(chan []byte), through: make(chan struct{}), open: make(chan struct{})}
}

func (o *output) Write(p []byte) (int, error) {
	if o.held.Load() {
		select {
		case o.blocked <- bytes.Clone(p):
			select {
			case <-o.through:
			case <-o.open:
			}
		case <-o.open:
		}
	}
	if o.err != nil {
		return 0, o.err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.partial = append(o.partial, p...)
	for i := bytes.IndexByte(o.partial, '\n'); i >= 0; i = bytes.IndexByte(o.partial, '\n') {
		o.lines <- string(o.partial[:i])
		o.partial = o.partial[i+1:]
	}
	return len(p), nil
}

// blockedWrite waits until a Write is held, and returns its bytes.
func (o *output) blockedWrite(t *testing.T) []byte {
	t.Helper()
	select {
	case p := <-o.blocked:
		return p
	case <-time.After(failAfter):
		t.Fatal("the server wrote nothing")
		return nil
	}
}

// next lets the next held Write through, and returns its bytes.
func (o *output) next(t *testing.T) []byte {
	t.Helper()
	p := o.blockedWrite(t)
	o.through <- struct{}{}
	return p
}

// release lets every Write through, held or to come.
func (o *output) release() {
	o.held.Store(false)
	o.openOnce.Do(func() { close(o.open) })
}

// lineWriter sends each Write, one log line, to lines.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// receive returns what ch sends, or fails t if nothing comes within
// failAfter.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(failAfter):
		t.Fatalf("%s: nothing came within %v", what, failAfter)
	}
	var zero T
	return zero
}
