package streamable

// Tests of go-sdk's answers held back and rewritten (serve, heldError).

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoppingRequests: once the server stops (Shutdown), a request still
// in flight when its base context ends, the wait for it over, is answered
// 503 as the server stopping: not 404, as a session that has ended, which
// tells a client to start anew. (A 2026-07-28 request is answered by the
// same case, go-sdk having written nothing, once go-sdk has waited for its
// handler to return: no signal tells the test that go-sdk has seen the
// context end before the handler returns, so it is left out.)
func TestStoppingRequests(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	done := s.hold(t, s.session(t), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"message":"m"}}}`)
	s.Shutdown()
	s.endRequests()
	r := receive(t, done, "the answer")
	assert.Equal(t, http.StatusServiceUnavailable, r.status, r.body)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), r.code, r.body)
	assert.Contains(t, r.message, "server stopping")
	assert.JSONEq(t, "2", string(r.id), r.body)
}

// TestHeaderQuotedInert: go-sdk's header mismatch quotes the header and
// the body's value; ESC and U+009B in them go back as text (\x1b,
// \u009b), not as the start of a terminal's command.
func TestHeaderQuotedInert(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":` + name + `,"arguments":{},` + modernMeta + `}}`
	}
	tests := []struct{ name, header, want string }{
		{`"\u001b[2Jx"`, "echo", `\x1b[2Jx`}, // net/http refuses ESC in a header
		{`"echo"`, "\u009b31mx", `\u009b31mx`},
		{`"echo"`, "\u202ex", `\u202ex`}, // a bidirectional override, which reverses what follows
	}
	for _, tt := range tests {
		r := do(t, http.MethodPost, s.url, call(tt.name), "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tt.header)
		assert.Equal(t, int64(mcp.CodeHeaderMismatch), r.code, "name %s, Mcp-Name %q: %s", tt.name, tt.header, r.body)
		assert.Contains(t, r.message, tt.want, "name %s, Mcp-Name %q: quoted as text", tt.name, tt.header)
		assert.NotContains(t, r.message, "\x1b", "name %s, Mcp-Name %q: ESC", tt.name, tt.header)
		assert.NotContains(t, r.message, "\u009b", "name %s, Mcp-Name %q: U+009B", tt.name, tt.header)
		assert.NotContains(t, r.message, "\u202e", "name %s, Mcp-Name %q: U+202E", tt.name, tt.header)
	}
}

// TestHeldErrorDropsCancelled: once its request is cancelled, nothing
// go-sdk writes for it goes out, a status (200, or 202) nor a body, that
// serve may answer the POST as cancelled.
func TestHeldErrorDropsCancelled(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusAccepted} {
		rec := httptest.NewRecorder()
		held := &heldError{ResponseWriter: rec}
		held.cancelled.Store(true)
		held.WriteHeader(status)
		_, err := held.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		require.NoError(t, err)
		assert.False(t, held.wrote, "WriteHeader(%d) of a request cancelled went out", status)
		assert.False(t, rec.Flushed || rec.Body.Len() > 0, "WriteHeader(%d): a reply to a request cancelled went out", status)
	}
}
