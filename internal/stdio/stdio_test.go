package stdio

// The tests of stdio.go: lines read, the sessions of each revision, the
// write, and the end of a session.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	log := slog.New(slog.DiscardHandler)
	c := &conn{log: log, out: out, flight: newFlight(limits{}, log), read: make(chan struct{}, 1)}
	c.flight.calls[1] = &call{id: id, method: "tools/call"}
	c.ctx, c.stop = context.WithCancelCause(context.Background())
	err = c.write(&jsonrpc.Response{ID: sdkID, Result: json.RawMessage(`{"not JSON`)})
	require.Error(t, err)
	assert.Empty(t, out.lines, "no line out")
	assert.Empty(t, out.partial, "nothing out")
	assert.Empty(t, c.flight.calls, "the call is over")
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

// TestLongBlankLineSkipped: a blank line longer than the input's buffer is
// skipped whole: none of it is read as part of the next line, which is
// neither longer for it nor refused for it.
func TestLongBlankLineSkipped(t *testing.T) {
	const maxLine, buffer = 1000, 64
	next := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"` + strings.Repeat("x", 900) + `"}}`
	blank := strings.Repeat(" ", 500) + "\r\n"
	c := &conn{opts: Options{MaxLine: maxLine}, in: bufio.NewReaderSize(strings.NewReader(blank+next+"\n"+`{"id":3}`), buffer)}
	line, err := c.readLine()
	require.NoError(t, err, "a line of %d bytes after a blank line of %d", len(next), len(blank))
	assert.Equal(t, next, string(line))
	line, err = c.readLine()
	require.NoError(t, err)
	assert.Equal(t, `{"id":3}`, string(line))
}

// TestRefusalWaitsForReply: a refusal the transport writes itself waits
// until a reply going out, part by part, is out whole: stdout carries only
// whole lines, never one inside another.
func TestRefusalWaitsForReply(t *testing.T) {
	c := start(t, Options{}, limits{})
	message, out := c.holdLongReply(t)
	c.send(`not JSON`)
	for line := ""; !strings.HasPrefix(line, "read: not JSON"); {
		line = receive(t, c.trace, "the line read")
	}
	c.out.through <- struct{}{}
	for !strings.HasSuffix(string(out), "\n") {
		out = append(out, c.out.next(t)...)
	}
	var r reply
	require.NoError(t, json.Unmarshal(out, &r), "what went out until a newline: the reply whole, nothing else")
	assert.Equal(t, "1", string(r.ID))
	assert.Contains(t, string(r.Result), message)
	c.out.release()
	assert.Equal(t, "1", string(c.recv().ID))
	_, code, _ := c.recvError()
	assert.EqualValues(t, jsonrpc.CodeParseError, code, "the refusal, after the reply")
}

// TestReadLoopEndsAfterClose: once a write has failed, a line read after
// it is handed to no session, go-sdk's having ended, and the read loop
// ends: the session leaves no goroutine blocked behind it, which the
// bubble would find when the test ends. The write fails only once the read
// loop waits for the next line: had it failed first, the loop would end
// without reading another (CI saw that once, in .ci/exercises).
func TestReadLoopEndsAfterClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := start(t, Options{}, limits{})
		c.out.err = io.ErrClosedPipe
		c.out.held.Store(true)
		c.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		c.out.blockedWrite(t)       // the reply is going out
		synctest.Wait()             // and the read loop waits for a line
		c.out.through <- struct{}{} // the write fails
		assert.ErrorIs(t, c.served(), io.ErrClosedPipe)
		c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`) // read, after the session is over
		synctest.Wait()
	})
}
