package stdio

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
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

// TestLines checks the framing: "\r\n" as well as "\n", blank lines (of
// spaces, tabs or a lone "\r") skipped, a line past MaxLine answered with
// -32600 and skipped, the last line read without its "\n".
func TestLines(t *testing.T) {
	c := start(t, Options{MaxLine: 200}, limits{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\r", "", " ", "\t", "\r", " \r", `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.ElementsMatch(t, []string{"1", "2"}, []string{string(c.recv().ID), string(c.recv().ID)}, "replies, in any order")
	c.send(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"` + strings.Repeat("x", 300) + `"}}`)
	rid, code, msg := c.recvError()
	assert.Equal(t, "null", rid)
	assert.EqualValues(t, -32600, code)
	assert.Contains(t, msg, "a line may hold at most 200 bytes")
	padded := func(id, n int) string { // a ping of n bytes
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"x":""}}`, id)
		return strings.Replace(line, `""`, `"`+strings.Repeat("x", n-len(line))+`"`, 1)
	}
	c.send(padded(5, 200) + "\r")
	assert.Equal(t, "5", string(c.recv().ID), "a line of MaxLine bytes, and \\r\\n")
	c.send(padded(6, 201))
	rid, code, _ = c.recvError()
	assert.Equal(t, "null", rid, "a line of MaxLine+1 bytes")
	assert.EqualValues(t, -32600, code)
	c.write(`{"jsonrpc":"2.0","id":4,"method":"ping"}`) // no "\n"
	require.NoError(t, c.end())
	assert.Equal(t, "4", string(c.recv().ID), "the last line, without a newline")
}

// TestLineNeverHeldWhole: a line past MaxLine, however long, is read to
// its end in pieces of the input's buffer, never held whole; the next line
// is read as usual.
func TestLineNeverHeldWhole(t *testing.T) {
	const maxLine, buffer = 1000, 64
	line := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("x", 1_000_000) + `"}}`
	c := &conn{opts: Options{MaxLine: maxLine}, in: bufio.NewReaderSize(strings.NewReader(line+"\n"+`{"id":2}`), buffer)}
	_, err := c.readLine()
	require.ErrorIs(t, err, errTooLong)
	assert.LessOrEqual(t, cap(c.long), 2*(maxLine+buffer), "readLine held %d bytes of a line past MaxLine", cap(c.long))
	next, err := c.readLine()
	require.NoError(t, err)
	assert.Equal(t, `{"id":2}`, string(next))
}

// TestWriteRepliesOnly: the server's own messages, which it does not send
// (no tool notifies; go-sdk pings only if asked to), are refused, not
// written: each line out is a reply.
func TestWriteRepliesOnly(t *testing.T) {
	err := (&conn{}).write(&jsonrpc.Request{Method: "notifications/message"})
	assert.ErrorContains(t, err, "sends replies only")
}

// TestEras runs what Claude Code 2.1.280 sends (anthropics/claude-code#96183):
// server/discover, then initialize; and 2026-07-28 requests before and
// after it. Each era has its session: the initialize is no duplicate.
func TestEras(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`)
	assert.Contains(t, string(c.recv().Result), `"supportedVersions":["2026-07-28"`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"},` + modernMeta + `}}`)
	assert.Contains(t, string(c.recv().Result), `"resultType":"complete"`)
	c.send(initialize)
	require.Nil(t, c.recv().Error, "initialize after server/discover")
	c.send(initialized, callLine(3, "echo", `{"message":"legacy"}`))
	assert.NotContains(t, string(c.recv().Result), "resultType", "a legacy result")
	c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{` + modernMeta + `}}`)
	require.Nil(t, c.recv().Error, "a 2026-07-28 request after initialize")
	c.send(initialize)
	_, code, msg := c.recvError()
	assert.EqualValues(t, -32600, code, "a second initialize")
	assert.Contains(t, msg, "initialized already")
}

// TestInitializeRefused: an initialize refused, because its id is that of
// a server/discover in flight (a client that probes, then falls back, on a
// server slow to start), leaves the session to the initialize sent again.
func TestInitializeRefused(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.holdDiscover.Store(true)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`)
	c.heldNow()
	c.send(strings.Replace(initialize, `"init"`, "1", 1))
	rid, code, msg := c.recvError()
	assert.Equal(t, "null", rid)
	assert.EqualValues(t, -32600, code)
	assert.Contains(t, msg, "id 1 is in use")
	close(c.unhold)
	assert.Contains(t, string(c.recv().Result), "supportedVersions", "server/discover's reply")
	c.send(initialize)
	r := c.recv()
	require.Nil(t, r.Error, "initialize sent again")
	assert.Contains(t, string(r.Result), `"protocolVersion":"2025-11-25"`)
	c.send(initialized, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r = c.recv()
	require.Nil(t, r.Error, "tools/list after the handshake")
	assert.Contains(t, string(r.Result), `"name":"echo"`)
}

// TestInitializedOnce: go-sdk receives one notifications/initialized, that
// after an initialize admitted: one sent before initialize, or again, goes
// no further (a flood of them must not queue up in go-sdk).
func TestInitializedOnce(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(initialized, initialize, initialized, initialized, initialized, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	for range 2 {
		require.Nil(t, c.recv().Error)
	}
	assert.EqualValues(t, 1, c.notified.Load(), "notifications/initialized that reached go-sdk")
}

// TestBeforeInitialize: go-sdk refuses a request before initialize with
// code 0 (go-sdk#976); here it is -32600, and ping is answered.
func TestBeforeInitialize(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	_, code, msg := c.recvError()
	assert.EqualValues(t, -32600, code)
	assert.Contains(t, msg, "send initialize first")
	assert.Equal(t, "2", string(c.recv().ID))
}

// TestDuplicateID: a request that reuses the id of one in flight is
// refused with "id": null, lest the client take it for the first's answer.
func TestDuplicateID(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(initialize, initialized)
	c.recv()
	c.send(callLine(7, "hold", `{"message":"first"}`))
	c.heldNow()
	c.send(callLine(7, "echo", `{"message":"again"}`))
	rid, code, msg := c.recvError()
	assert.Equal(t, "null", rid)
	assert.EqualValues(t, -32600, code)
	assert.Contains(t, msg, "id 7 is in use by a request in flight")
	long := strings.Repeat("i", 100_000) // quoted in part
	c.send(callLine(long, "hold", `{"message":"second"}`))
	c.heldNow()
	c.send(callLine(long, "echo", `{"message":"again"}`))
	_, _, msg = c.recvError()
	assert.Contains(t, msg, "id iiii")
	assert.Less(t, len(msg), 2*protocol.MaxQuote)
	close(c.unhold)
	for range 2 {
		assert.Contains(t, string(c.recv().Result), "released")
	}
}

// TestRefusalUnderIDInFlight: a message refused that has the id of a
// request in flight is answered under null, as a request that reuses the
// id is, lest the client take the refusal for the first's answer: refused
// by Admit in decoding ("jsonrpc" 1.0), checking (a method not served), or
// the handshake (initialize again). Member names are case-sensitive (JSON-RPC 2.0, §4):
// "ID" is no id, so a refusal does not name one, and a request with it is
// a notification, ignored.
func TestRefusalUnderIDInFlight(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(initialize, initialized)
	c.recv()
	c.send(callLine(2, "hold", `{"message":"first"}`))
	c.heldNow()
	for _, tt := range []struct{ name, line, want string }{
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":2,"method":"ping"}`, `"jsonrpc" must be "2.0"`},
		{"not served", `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`, "resources/list"},
		{"initialize again", strings.Replace(initialize, `"init"`, "2", 1), "initialized already"},
		{`"ID" and jsonrpc 1.0`, `{"jsonrpc":"1.0","ID":2,"method":"ping"}`, `"jsonrpc" must be "2.0"`},
		{`"Id" and jsonrpc 1.0`, `{"jsonrpc":"1.0","Id":2,"method":"ping"}`, `"jsonrpc" must be "2.0"`},
	} {
		c.send(tt.line)
		rid, _, msg := c.recvError()
		assert.Equal(t, "null", rid, "%s: %s", tt.name, tt.line)
		assert.Contains(t, msg, tt.want, tt.name)
	}
	c.send(`{"jsonrpc":"2.0","ID":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	assert.Equal(t, "3", string(c.recv().ID), `the reply after a request with "ID" (a notification, unanswered)`)
	close(c.unhold)
	r := c.recv()
	assert.Equal(t, "2", string(r.ID))
	assert.Contains(t, string(r.Result), "released first", "the one reply under id 2")
}

// TestCancel: a cancelled request gets no reply, its id is free at once, and
// its handler's context is done; a cancellation of a request not in
// flight, or of initialize, is ignored.
func TestCancel(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(initialize, cancel("init"), initialized)
	c.recv()
	c.send(callLine(1, "hold", `{"message":"cancelled"}`))
	c.heldNow()
	c.send(cancel(1), callLine(1, "echo", `{"message":"reused"}`))
	r := c.recv()
	assert.Equal(t, "1", string(r.ID))
	assert.Contains(t, string(r.Result), "reused", "the reply to the reused id is the echo's")
	c.logged("dropped a reply to a request cancelled") // the handler saw its context done
	c.send(cancel(9), callLine(9, "echo", `{"message":"nine"}`))
	assert.Contains(t, string(c.recv().Result), "nine", "a cancellation before its request is ignored")
	require.NoError(t, c.end())
	assert.Empty(t, c.out.lines, "no more replies")
}

// TestInitializeNotCancelled: a cancellation that names initialize in
// flight is ignored, as MCP says ("Cancellation": initialize must not be
// cancelled), and its reply comes.
func TestInitializeNotCancelled(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.holdInit.Store(true)
	c.send(initialize)
	c.heldNow()
	c.send(cancel("init"), `not JSON`) // answered by the transport, once it has read the cancellation
	_, code, _ := c.recvError()
	assert.EqualValues(t, jsonrpc.CodeParseError, code, "the line after the cancellation")
	close(c.unhold)
	r := c.recv()
	assert.Equal(t, `"init"`, string(r.ID))
	assert.Contains(t, string(r.Result), `"protocolVersion"`, "initialize's reply")
}

// TestCancelWithoutInitialize: a 2026-07-28 client sends no initialize, and
// its cancellations, which carry no version, cancel all the same: the
// handshake is a rule of requests, not of notifications.
func TestCancelWithoutInitialize(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold","arguments":{"message":"m"},` + modernMeta + `}}`)
	c.heldNow()
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":1e400}}`)
	c.logged("request cancelled by the client")
	c.logged("dropped a reply to a request cancelled")
	require.NoError(t, c.end())
	assert.Empty(t, c.out.lines, "no reply to the request cancelled")
}

// TestCancelNamesExactly: a cancellation names a request by the member
// "requestId", spelled so, holding the id as sent: "RequestId", or 7.5
// for 7, names none, though encoding/json and jsonrpc.MakeID would read
// each as 7.
func TestCancelNamesExactly(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(initialize, initialized)
	c.recv()
	c.send(callLine(7, "hold", `{"message":"seven"}`))
	c.heldNow()
	for _, params := range []string{`{"RequestId":7}`, `{"requestid":7}`, `{"requestId":7.5}`, `{"requestId":"7"}`} {
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":` + params + `}`)
	}
	close(c.unhold)
	r := c.recv()
	assert.Equal(t, "7", string(r.ID))
	assert.Contains(t, string(r.Result), "released seven", "the request was not cancelled")
}

// TestStaleCancel sends, many times over, a request, a cancellation racing
// its reply, and a request that reuses its id: the last is always answered.
// (go-sdk looks a cancellation up on a goroutine of its own, some time
// after it reads it: under the client's ids, it could cancel the reuse.)
func TestStaleCancel(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(initialize, initialized)
	c.recv()
	for i := range 300 {
		c.send(callLine("x", "echo", `{"message":"first"}`), cancel("x"))
		c.send(callLine("x", "echo", `{"message":"second"}`))
		for {
			r := c.recv()
			if r.Error == nil && strings.Contains(string(r.Result), "second") {
				break
			}
			require.Contains(t, string(r.Result), "first", "round %d: %v", i, r.Error)
		}
	}
}

// TestBackpressure: with the requests in flight at the limit, in number
// or in bytes (their lines whole: an id may be long), the server reads no
// more until a reply is out.
func TestBackpressure(t *testing.T) {
	long := strings.Repeat("i", 100)
	for _, tt := range []struct {
		name   string
		limits limits
		lines  []string
	}{
		{"in number", limits{maxInFlight: 2}, []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":3,"method":"ping"}`}},
		{"in bytes", limits{maxInFlightSize: 150}, []string{`{"jsonrpc":"2.0","id":"1` + long + `","method":"ping"}`,
			`{"jsonrpc":"2.0","id":"2` + long + `","method":"ping"}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, Options{}, tt.limits)
			c.out.held.Store(true)
			go c.send(tt.lines...)
			c.out.blockedWrite(t)                                                      // the first reply is being written, and the others are read
			c.logged("waiting for a reply: the requests in flight are at their limit") // the last is read, and waits for room
			c.out.release()
			for range tt.lines {
				require.Nil(t, c.recv().Error)
			}
		})
	}
}

// TestDrain: once the input ends, the requests read are answered, and
// then Serve returns.
func TestDrain(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(initialize, initialized, callLine(1, "hold", `{"message":"a"}`))
	c.recv()
	c.heldNow()
	require.NoError(t, c.in.Close())
	close(c.unhold)
	assert.Contains(t, string(c.recv().Result), "released a")
	require.NoError(t, c.served())
}

// timers returns a timer maker for limits.after, and the timers it makes,
// in order, for the test to fire: of grace periods and of run periods.
func timers() (after func(time.Duration) <-chan time.Time, grace, run chan chan time.Time) {
	after, grace, run, _ = lookingTimers()
	return after, grace, run
}

// lookingTimers is timers, and the timers of the looks at what the client
// has left unread (GracePeriod/5), which only an output the kernel counts
// has.
func lookingTimers() (after func(time.Duration) <-chan time.Time, grace, run, looks chan chan time.Time) {
	grace, run, looks = make(chan chan time.Time, 1000), make(chan chan time.Time, 10), make(chan chan time.Time, 1000)
	return func(d time.Duration) <-chan time.Time {
		timer := make(chan time.Time, 1)
		switch d {
		case RunPeriod:
			run <- timer
		case GracePeriod / 5:
			looks <- timer
		default:
			grace <- timer
		}
		return timer
	}, grace, run, looks
}

// next returns the next timer made.
func next(t *testing.T, made chan chan time.Time) chan time.Time {
	t.Helper()
	select {
	case timer := <-made:
		return timer
	case <-time.After(failAfter):
		t.Fatal("no period started")
		return nil
	}
}

// TestAbandon: a request still running RunPeriod after the input ended is
// abandoned, and logged as such.
func TestAbandon(t *testing.T) {
	after, _, run := timers()
	c := start(t, Options{}, limits{after: after})
	c.send(initialize, initialized, callLine(1, "hold", `{"message":"a"}`))
	c.recv()
	c.heldNow()
	require.NoError(t, c.in.Close())
	next(t, run) <- time.Time{}
	line := c.logged("abandoned a request not yet answered a run period after the input ended")
	assert.Contains(t, line, "id=1")
	assert.Contains(t, line, "method=tools/call")
	require.NoError(t, c.served())
}

// TestRunAfterEnd: a request still running when the input ends is waited
// for, however long it takes within RunPeriod, as a slow machine needs:
// every grace period here is over as soon as it starts, until the
// handler returns.
func TestRunAfterEnd(t *testing.T) {
	var graceOver atomic.Bool
	graceOver.Store(true)
	run := make(chan chan time.Time, 10)
	after := func(d time.Duration) <-chan time.Time {
		timer := make(chan time.Time, 1)
		if d == RunPeriod {
			run <- timer
		} else if graceOver.Load() {
			timer <- time.Time{}
		}
		return timer
	}
	c := start(t, Options{}, limits{after: after})
	c.send(initialize, initialized, callLine(1, "hold", `{"message":"a"}`))
	c.recv()
	c.heldNow()
	require.NoError(t, c.in.Close())
	select {
	case <-run:
	case err := <-c.done:
		t.Fatalf("Serve returned (%v) with a request still running: %s", err, c.logged("abandoned"))
	case <-time.After(failAfter):
		t.Fatal("no run period started")
	}
	graceOver.Store(false)
	close(c.unhold)
	assert.Contains(t, string(c.recv().Result), "released a")
	require.NoError(t, c.served())
}

// TestDrainWaitsAnew: at the end of input, each part of a reply the client
// accepts starts the grace period anew; only once it has accepted none for
// the period are the requests behind abandoned, and logged as such.
func TestDrainWaitsAnew(t *testing.T) {
	after, grace, _ := timers()
	c := start(t, Options{}, limits{after: after})
	c.send(initialize, initialized)
	c.recv()
	c.send(callLine(1, "hold", `{"message":"a"}`))
	c.heldNow()
	c.out.held.Store(true)
	message := strings.Repeat("x", 3*MinReadRate*int(GracePeriod.Seconds())) // a reply of four parts
	c.send(callLine(2, "echo", `{"message":"`+message+`"}`))
	require.NoError(t, c.in.Close())
	first := next(t, grace) // the echo's reply is going out
	c.out.next(t)
	second := next(t, grace) // a part was accepted: the period starts anew
	first <- time.Time{}     // too late
	c.out.next(t)
	third := next(t, grace)
	second <- time.Time{}
	c.out.blockedWrite(t) // the third part, held
	third <- time.Time{}
	line := c.logged("abandoned a request still running: the client made no progress reading the reply going out for the grace period")
	assert.Contains(t, line, "id=1")
	c.logged("waiting for the client to read a reply going out")
	c.out.release()
	r := c.recv()
	assert.Equal(t, "2", string(r.ID))
	assert.Contains(t, string(r.Result), message, "the reply, whole")
	require.NoError(t, c.served())
	assert.Empty(t, c.out.lines, "no reply to the request abandoned")
}

// TestStoppedReader: at the end of input, a client that reads nothing of
// a reply for the grace period has stopped: the reply computed behind it
// is abandoned, and logged as such; the reply going out is not cut off,
// and goes out whole when read.
func TestStoppedReader(t *testing.T) {
	after, grace, _ := timers()
	c := start(t, Options{}, limits{after: after})
	c.send(initialize, initialized)
	c.recv()
	c.out.held.Store(true)
	message := strings.Repeat("x", 4096)
	c.send(callLine(1, "echo", `{"message":"`+message+`"}`), callLine(2, "echo", `{"message":"`+message+`"}`))
	c.out.blockedWrite(t)                    // one reply goes out, held
	c.logged("a reply waits for the output") // the other is computed, behind it
	require.NoError(t, c.in.Close())
	next(t, grace) <- time.Time{}
	c.logged("abandoned a reply: the client made no progress reading the reply going out for the grace period")
	c.logged("waiting for the client to read a reply going out")
	select {
	case err := <-c.done:
		t.Fatalf("Serve returned (%v) with the reply unread", err)
	default:
	}
	c.out.release()
	assert.Contains(t, string(c.recv().Result), message, "the reply, whole")
	require.NoError(t, c.served())
	assert.Empty(t, c.out.lines, "no reply to the request abandoned")
}

// TestStalledOnce: once a client has stopped reading and the replies
// behind the one going out are abandoned, no grace period starts again,
// though the client then takes a part: the abandon and its warning are
// not repeated every period. In a bubble of virtual time, synctest.Wait
// returns once the drain has done all it will.
func TestStalledOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		after, grace, _ := timers()
		c := start(t, Options{}, limits{after: after})
		c.send(initialize, initialized)
		c.recv()
		c.out.held.Store(true)
		message := strings.Repeat("x", 3*MinReadRate*int(GracePeriod.Seconds())) // a reply of four parts
		c.send(callLine(1, "echo", `{"message":"`+message+`"}`))
		c.out.blockedWrite(t)                          // its first part, held
		c.send(callLine(2, "hold", `{"message":"b"}`)) // behind it; a reply computed would wait on a mutex, which no bubble sees as blocked
		c.heldNow()
		require.NoError(t, c.in.Close())
		next(t, grace) <- time.Time{}
		c.logged("abandoned a request still running")
		c.out.through <- struct{}{} // the client takes a part
		c.out.blockedWrite(t)       // the next, held
		synctest.Wait()
		assert.Zero(t, len(grace), "a grace period after the client stopped: it would abandon again, and warn again")
		c.out.release()
		assert.Contains(t, string(c.recv().Result), message, "the reply, whole")
		require.NoError(t, c.served())
	})
}

// TestLastLook: when a grace period runs out, the drain looks once more
// at what the client has left unread in the kernel: a client that has read
// some since the last look is making progress, and nothing is abandoned.
func TestLastLook(t *testing.T) {
	after, grace, _, looks := lookingTimers()
	var unread atomic.Int64
	unread.Store(1000)
	counted := func(io.Writer) func() (int, bool) { return func() (int, bool) { return int(unread.Load()), true } }
	c := start(t, Options{}, limits{after: after, unreadOf: counted})
	c.send(initialize, initialized)
	c.recv()
	c.out.held.Store(true)
	message := strings.Repeat("x", 4096)
	c.send(callLine(1, "echo", `{"message":"`+message+`"}`), callLine(2, "echo", `{"message":"`+message+`"}`))
	c.out.blockedWrite(t)                    // one reply goes out, held
	c.logged("a reply waits for the output") // the other is computed, behind it
	require.NoError(t, c.in.Close())
	stall := next(t, grace)
	next(t, looks) <- time.Time{} // 1000 bytes unread
	next(t, looks)                // the look is taken: the next is due
	unread.Store(500)             // the client reads, and the kernel has not taken a part yet
	stall <- time.Time{}
	next(t, grace) // not stalled: a grace period anew
	c.out.release()
	assert.ElementsMatch(t, []string{"1", "2"}, []string{string(c.recv().ID), string(c.recv().ID)}, "both replies")
	require.NoError(t, c.served())
	for len(c.logs) > 0 {
		assert.NotContains(t, <-c.logs, "abandoned")
	}
}

// TestRunPeriodSparesReplies: the run period abandons requests still
// running, not replies computed and waiting for the client to read.
func TestRunPeriodSparesReplies(t *testing.T) {
	after, _, run := timers()
	c := start(t, Options{}, limits{after: after})
	c.send(initialize, initialized)
	c.recv()
	c.out.held.Store(true)
	c.send(callLine(1, "echo", `{"message":"a"}`), callLine(2, "echo", `{"message":"b"}`))
	c.out.blockedWrite(t)                    // one reply goes out, held
	c.logged("a reply waits for the output") // the other is computed, behind it
	require.NoError(t, c.in.Close())
	next(t, run) <- time.Time{}
	c.logged("the run period after the end of input is over")
	c.out.release()
	assert.ElementsMatch(t, []string{"1", "2"}, []string{string(c.recv().ID), string(c.recv().ID)})
	require.NoError(t, c.served())
	for len(c.logs) > 0 {
		assert.NotContains(t, <-c.logs, "abandoned")
	}
}

// TestSlowReaderAfterEnd: at the end of input, a client that reads slowly
// but steadily receives every reply, whole, however long they take to
// read. Scaled down from the client of issue 30 (8 KiB/s, replies of 12 s
// against a grace period of 5 s): a reader of at most 64 KiB/s, replies of
// 1.6 s against a grace period of 1 s. An io.Pipe wakes the writer as
// soon as it reads; the kernel's pipes and sockets do not
// (unread_linux_test.go). TestDrainWaitsAnew holds the rule in the test's
// own time; this holds it end to end in real time, with a margin: a part
// of 1 KiB is taken every 16 ms, against a grace period of 1 s.
func TestSlowReaderAfterEnd(t *testing.T) {
	r, w := io.Pipe()
	readSlowly(t, r, w, time.Second, 640, 3, 100_000)
}

// readSlowly serves replies through w, GracePeriod grace, to echoes of
// replies messages of size characters, sent before the input ends, and
// reads them from r at most perTick bytes every 10 ms; each is to arrive
// whole.
func readSlowly(t *testing.T, r io.Reader, w io.WriteCloser, grace time.Duration, perTick, replies, size int) {
	t.Helper()
	c := start(t, Options{Out: w, GracePeriod: grace}, limits{})
	lines := make(chan string, 10)
	go pacedRead(r, perTick, 10*time.Millisecond, lines)
	recv := func() reply {
		t.Helper()
		var rep reply
		select {
		case line := <-lines:
			require.NoError(t, json.Unmarshal([]byte(line), &rep), "the server wrote %.200q", line)
		case <-time.After(failAfter):
			t.Fatal("no reply")
		}
		return rep
	}
	c.send(initialize, initialized)
	require.Nil(t, recv().Error)
	messages := map[string]string{}
	for id := range replies {
		messages[fmt.Sprint(id)] = strings.Repeat(fmt.Sprint(id), size)
		c.send(callLine(id, "echo", `{"message":"`+messages[fmt.Sprint(id)]+`"}`))
	}
	require.NoError(t, c.in.Close())
	for range messages {
		rep := recv()
		require.Nil(t, rep.Error)
		var result mcp.CallToolResult
		require.NoError(t, json.Unmarshal(rep.Result, &result))
		require.Len(t, result.Content, 1)
		assert.True(t, result.Content[0].(*mcp.TextContent).Text == messages[string(rep.ID)], "the reply to %s, whole", rep.ID)
		delete(messages, string(rep.ID))
	}
	require.NoError(t, c.served())
	require.NoError(t, w.Close()) // the reader's end of input
}

// pacedRead reads r, at most n bytes each tick of period, and sends each
// line read to lines as soon as it is whole; it closes lines at the end
// of r.
func pacedRead(r io.Reader, n int, period time.Duration, lines chan<- string) {
	defer close(lines)
	tick := time.NewTicker(period)
	defer tick.Stop()
	buf, partial := make([]byte, n), []byte(nil)
	for range tick.C {
		for budget := n; budget > 0; {
			m, err := r.Read(buf[:budget])
			budget -= m
			partial = append(partial, buf[:m]...)
			for i := bytes.IndexByte(partial, '\n'); i >= 0; i = bytes.IndexByte(partial, '\n') {
				lines <- string(partial[:i])
				partial = partial[i+1:]
			}
			if err != nil {
				return
			}
		}
	}
}

// TestOutputClosed: a write that fails ends Serve at once, with its error.
func TestOutputClosed(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.out.err = io.ErrClosedPipe
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	select {
	case err := <-c.done:
		assert.ErrorIs(t, err, io.ErrClosedPipe)
	case <-time.After(failAfter):
		t.Fatal("Serve went on after its output failed")
	}
}

// TestOutputClosedAfterEnd: a write that fails after the end of input
// ends Serve at once too, with its error: no reply waits any longer.
func TestOutputClosedAfterEnd(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(initialize, initialized, callLine(1, "hold", `{"message":"a"}`), callLine(2, "hold", `{"message":"b"}`))
	c.recv()
	c.heldNow()
	c.heldNow()
	require.NoError(t, c.in.Close())
	c.out.err = io.ErrClosedPipe
	c.unhold <- struct{}{} // one reply fails; the other is still to come
	assert.ErrorIs(t, c.served(), io.ErrClosedPipe)
}

// TestContextDone: Serve returns when its context is done, even with a
// write blocked on a client that reads nothing.
func TestContextDone(t *testing.T) {
	in, _ := io.Pipe()
	out := newOutput()
	out.held.Store(true)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil), Options{In: in, Out: out})
	}()
	stop()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(failAfter):
		t.Fatal("Serve did not return when its context was done")
	}
}

// TestTrace: every line read and written goes to the trace, control and
// formatting characters as \xNN and \uNNNN: C0, DEL, C1 (U+009B is CSI),
// bidirectional overrides; a line past maxTrace bytes is cut, and its
// length said.
func TestTrace(t *testing.T) {
	c := start(t, Options{}, limits{})
	traced := func() string {
		t.Helper()
		return receive(t, c.trace, "a line traced")
	}
	c.send("\x1b[2J\x7f\u009b2J\u009d0;x\u202enot json\u00a0é")
	c.recv()
	assert.Equal(t, "read: \\x1b[2J\\x7f\\x9b2J\\x9d0;x\\u202enot json\\xa0é\n", traced())
	assert.Contains(t, traced(), `write: {"jsonrpc":"2.0","id":null,"error":{"code":-32700`)
	long := strings.Repeat("x", maxTrace+100)
	c.send(long)
	c.recv()
	assert.Equal(t, "read: "+long[:maxTrace]+fmt.Sprintf("… (%d bytes in all)\n", len(long)), traced())
	assert.Contains(t, traced(), `write: {"jsonrpc":"2.0","id":null,"error":{"code":-32700`)
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

// TestLimitsPage: docs/limits.md states this package's limits as they are.
func TestLimitsPage(t *testing.T) {
	page, err := os.ReadFile("../../docs/limits.md")
	require.NoError(t, err)
	for _, want := range []string{
		fmt.Sprintf("%d, or %d MiB of lines", maxInFlight, maxInFlightSize>>20),
	} {
		assert.Contains(t, string(page), want)
	}
}

// TestLogQuotesCut: what a client sent is quoted in the log cut to
// protocol.MaxQuote bytes: the id of a response it sent, the id and reason
// of a cancellation.
func TestLogQuotesCut(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(initialize, initialized)
	c.recv()
	long := strings.Repeat("i", 300_000)
	c.send(`{"jsonrpc":"2.0","id":"`+long+`","result":{}}`, callLine(long, "hold", `{"message":"a"}`))
	c.heldNow()
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + long + `","reason":"` + long + `"}}`)
	for _, text := range []string{"ignored a response", "request cancelled by the client"} {
		line := c.logged(text)
		assert.Less(t, len(line), 4*protocol.MaxQuote, "the log line %q… quotes too much", line[:min(len(line), 80)])
	}
}

// TestWriteOnlyEncodedReplies: a reply that cannot be encoded is write's error,
// and nothing of it goes out: stdout carries only whole JSON-RPC lines; nor
// does a reply to a request not in flight, nor a refusal that cannot be
// encoded.
func TestWriteOnlyEncodedReplies(t *testing.T) {
	out := newOutput()
	sdkID, err := jsonrpc.MakeID(float64(1))
	require.NoError(t, err)
	id, err := jsonrpc.MakeID("a")
	require.NoError(t, err)
	c := &conn{log: slog.New(slog.DiscardHandler), out: out, calls: map[int64]*call{1: {id: id, method: "tools/call"}},
		progress: make(chan struct{}, 1), read: make(chan struct{}, 1)}
	c.ctx, c.stop = context.WithCancelCause(context.Background())
	err = c.write(&jsonrpc.Response{ID: sdkID, Result: json.RawMessage(`{"not JSON`)})
	require.Error(t, err)
	assert.Empty(t, out.lines, "no line out")
	assert.Empty(t, out.partial, "nothing out")
	assert.Empty(t, c.calls, "the call is over")
	// A second reply to it (go-sdk answers each request once) is dropped.
	require.NoError(t, c.write(&jsonrpc.Response{ID: sdkID, Result: json.RawMessage(`{}`)}))
	assert.Empty(t, out.partial, "nothing out")
	// Nor does a refusal that cannot be encoded.
	c.reply(id, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "x", Data: json.RawMessage(`{"not JSON`)})
	assert.Empty(t, out.partial, "nothing out")
	assert.Empty(t, out.lines, "no line out")
}

// TestNothingAfterClose: once the session is over (a write failed, or the
// context is done), a reply still to come is not written: its handler is
// left to end with the process.
func TestNothingAfterClose(t *testing.T) {
	out := newOutput()
	c := &conn{out: out, read: make(chan struct{}, 1)}
	c.ctx, c.stop = context.WithCancelCause(context.Background())
	c.stop(nil)
	assert.ErrorIs(t, c.send([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)), errClosed)
	assert.Empty(t, out.partial, "nothing out")
	assert.Empty(t, out.lines, "no line out")
}

// TestContextDoneEndsSessions: once the context is done, the session is
// over: go-sdk's sessions read the end of their input, and end.
func TestContextDoneEndsSessions(t *testing.T) {
	in, client := io.Pipe()
	defer func() { _ = client.Close() }()
	out := newOutput()
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, server, Options{In: in, Out: out}) }()
	go func() { _, _ = io.WriteString(client, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n") }()
	receive(t, out.lines, "the reply: the sessions are connected")
	var sessions []*mcp.ServerSession
	for ss := range server.Sessions() {
		sessions = append(sessions, ss)
	}
	require.Len(t, sessions, 2, "the legacy session and the modern")
	stop()
	require.NoError(t, receive(t, done, "Serve's return"))
	for _, ss := range sessions {
		ended := make(chan error, 1)
		go func() { ended <- ss.Wait() }()
		_ = receive(t, ended, "a session's end") // its error says why it ended: any will do
	}
}
