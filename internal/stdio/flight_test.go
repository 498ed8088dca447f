package stdio

// The tests of flight.go: ids in flight, cancellation, and the bound on
// what waits for a reply.

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/internal/protocol"
)

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

// TestCancelTooLate: a cancellation that comes once the reply is going out
// cancels nothing: the reply, going out, still holds the end of input
// until it is out whole.
func TestCancelTooLate(t *testing.T) {
	after, grace, _ := timers()
	c := start(t, Options{}, limits{after: after})
	message, _ := c.holdLongReply(t)
	c.send(cancel(1))
	require.NoError(t, c.in.Close())
	next(t, grace) // the drain waits for the reply going out
	c.out.release()
	assert.Contains(t, string(c.recv().Result), message, "the reply, whole")
	require.NoError(t, c.served())
	for len(c.logs) > 0 {
		assert.NotContains(t, <-c.logs, "request cancelled", "a cancellation of a reply going out")
	}
}

// TestReplyGoingOutAfterEnd: a reply that starts to go out after the input
// has ended starts the grace period: a client that reads nothing of it has
// the request behind it abandoned, and the reply goes out whole when read.
func TestReplyGoingOutAfterEnd(t *testing.T) {
	after, grace, run := timers()
	c := start(t, Options{}, limits{after: after})
	c.send(initialize, initialized)
	c.recv()
	c.send(callLine(1, "hold", `{"message":"a"}`), callLine(2, "hold", `{"message":"b"}`))
	c.heldNow()
	c.heldNow()
	c.out.held.Store(true)
	require.NoError(t, c.in.Close())
	next(t, run)           // the drain has started, and nothing goes out
	c.unhold <- struct{}{} // one reply is computed, and goes out
	c.out.blockedWrite(t)
	next(t, grace) <- time.Time{}
	line := c.logged("abandoned a request still running: the client made no progress reading the reply going out for the grace period")
	c.out.release()
	r := c.recv()
	assert.Contains(t, string(r.Result), "released", "the reply that went out")
	assert.Contains(t, line, "id="+map[string]string{"1": "2", "2": "1"}[string(r.ID)], "the other request, abandoned")
	require.NoError(t, c.served())
	assert.Empty(t, c.out.lines, "no reply to the request abandoned")
}
