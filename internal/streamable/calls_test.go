package streamable

// Tests of a session's calls: a cancelled request gets no reply, and its
// id is free at once.

import (
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
)

// TestCancelledRequest: a request its client cancels gets no reply of
// go-sdk's (MCP: "Cancellation"), but its POST a JSON-RPC error with a code
// of the specification, whatever go-sdk answers. go-sdk answers one
// cancelled before it starts with code 0, outside any middleware; the tool
// wait fails the same way, once it has started, so no race is needed.
func TestCancelledRequest(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	for _, id := range []string{`"w"`, `7`} {
		done := make(chan response, 1)
		go func() {
			done <- do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"wait","arguments":{}}}`,
				"Mcp-Session-Id", sid)
		}()
		select {
		case <-s.held:
		case <-time.After(failAfter):
			t.Fatal("the call did not start")
		}
		r := do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`}}`, "Mcp-Session-Id", sid)
		assert.Equal(t, http.StatusAccepted, r.status, r.body)
		r = receive(t, done, "the cancelled call's answer")
		assert.Equal(t, http.StatusOK, r.status, "id %s: %s", id, r.body)
		assert.Equal(t, int64(jsonrpc.CodeInternalError), r.code, "id %s: %s", id, r.body)
		assert.Contains(t, r.message, "request cancelled", "id %s", id)
		assert.JSONEq(t, id, string(r.id), r.body)
	}
}

// TestIDInUse: a request that reuses the id of one in flight in its
// session is refused, as on stdio, and the cancellation of that id cancels
// the first: go-sdk, which looks a cancellation up by id, would otherwise
// cancel one request while this handler dropped the other's reply, and
// answer code 0.
func TestIDInUse(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`
	done := s.hold(t, sid, call)
	r := do(t, http.MethodPost, s.url, call, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), r.code, r.body)
	assert.Contains(t, r.message, "id 7 is in use by a request in flight")
	assert.JSONEq(t, "null", string(r.id), "under its own id, the refusal would be read as the first call's reply: %s", r.body)
	r = do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusAccepted, r.status, r.body)
	select {
	case r = <-done:
	case <-time.After(failAfter):
		t.Fatal("the first call was not cancelled")
	}
	assert.Equal(t, int64(jsonrpc.CodeInternalError), r.code, r.body)
	assert.Contains(t, r.message, "request cancelled")
}

// TestCancelledIDFree: a request its client cancels frees its id at once,
// as on stdio, though go-sdk still serves it: a request that reuses the id
// is served, under that id, and the first's POST is answered as cancelled.
func TestCancelledIDFree(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	first := s.hold(t, sid, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold","arguments":{"message":"first"}}}`)
	r := do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusAccepted, r.status, r.body)
	r = do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"message":"second"}}}`,
		"Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusOK, r.status, r.body)
	assert.JSONEq(t, "5", string(r.id), r.body)
	assert.Contains(t, string(r.result), "second", "the reuse of a cancelled request's id: %s", r.body)
	close(s.unhold)
	r = receive(t, first, "the cancelled call's answer")
	assert.JSONEq(t, "5", string(r.id), r.body)
	assert.Contains(t, r.message, "request cancelled", r.body)
}

// TestCancelOfNoRequest: a notifications/cancelled that names no request
// being served is accepted, and not passed on. go-sdk cancels later, on a
// goroutine of its own, and might cancel a request that came after it: one
// the client sent first, and whose cancellation overtook it.
func TestCancelOfNoRequest(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	for _, note := range []string{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`} {
		r := do(t, http.MethodPost, s.url, note, "Mcp-Session-Id", sid)
		assert.Equal(t, http.StatusAccepted, r.status, "%s: %s", note, r.body)
	}
	select {
	case note := <-s.notes: // go-sdk handles notifications in order
		assert.Equal(t, "notifications/initialized", note, "the first notification go-sdk received")
	case <-time.After(failAfter):
		t.Fatal("go-sdk received no notification")
	}
}

// TestCancelNamesExactly: a cancellation names a request by the member
// "requestId", spelled so, holding the id as sent: "RequestId", or 7.5
// for 7, names none, and is not passed on to go-sdk, which would read each
// as 7.
func TestCancelNamesExactly(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	done := s.hold(t, sid, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	for _, params := range []string{`{"RequestId":7}`, `{"requestid":7}`, `{"requestId":7.5}`, `{"requestId":"7"}`} {
		r := do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":`+params+`}`, "Mcp-Session-Id", sid)
		assert.Equal(t, http.StatusAccepted, r.status, "%s: %s", params, r.body)
	}
	r := do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusAccepted, r.status, r.body)
	select {
	case note := <-s.notes: // go-sdk handles notifications in order
		assert.Equal(t, "notifications/initialized", note, "the first notification go-sdk received")
	case <-time.After(failAfter):
		t.Fatal("go-sdk received no notification")
	}
	r = do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusAccepted, r.status, r.body)
	select {
	case <-done: // cancelled now, by its id
	case <-time.After(failAfter):
		t.Fatal("the call was not cancelled by its id")
	}
}

// TestUnderID: a reply go-sdk wrote under its id goes back under the
// client's, whatever order its members come in; one under another id is
// left as it is.
func TestUnderID(t *testing.T) {
	from, _ := jsonrpc.MakeID(float64(7))
	to, _ := jsonrpc.MakeID("c")
	for reply, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"result":{"x":1}}`:  `{"jsonrpc":"2.0","id":"c","result":{"x":1}}`,
		`{"result":{"x":1},"id":7,"jsonrpc":"2.0"}`:  `{"jsonrpc":"2.0","id":"c","result":{"x":1}}`,
		`{"jsonrpc":"2.0","id":70,"result":{"x":1}}`: `{"jsonrpc":"2.0","id":70,"result":{"x":1}}`,
		`not JSON`: `not JSON`,
	} {
		got := string(underID([]byte(reply), from, to))
		if want == "not JSON" {
			assert.Equal(t, want, got)
			continue
		}
		assert.JSONEq(t, want, got, "underID(%s)", reply)
	}
}

// TestReuseOutlivesCancelled: a cancelled request that ends leaves the
// request that reused its id in flight under it: a third with the id is
// refused as in use, and a cancellation of the id cancels the second.
func TestReuseOutlivesCancelled(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	sid := s.session(t)
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`
	first := s.hold(t, sid, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold","arguments":{"message":"first"}}}`)
	r := do(t, http.MethodPost, s.url, cancel, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusAccepted, r.status, r.body)
	second := s.hold(t, sid, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	close(s.unhold)
	r = receive(t, first, "the cancelled call's answer")
	assert.Contains(t, r.message, "request cancelled", r.body)
	r = do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"message":"third"}}}`,
		"Mcp-Session-Id", sid)
	assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), r.code, "a third request with the id of the second, in flight: %s", r.body)
	assert.Contains(t, r.message, "id 5 is in use by a request in flight")
	r = do(t, http.MethodPost, s.url, cancel, "Mcp-Session-Id", sid)
	assert.Equal(t, http.StatusAccepted, r.status, r.body)
	r = receive(t, second, "the second call's answer, cancelled")
	assert.Contains(t, r.message, "request cancelled", r.body)
}
