package streamable

// Tests of the sessions kept: deleted, bounded, raced.

import (
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestDeleteSession: a session the client deletes is gone, and counts no
// more against MaxSessions: the next session ends none.
func TestDeleteSession(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) { h.sessions.max = 2 })
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	kept, deleted := s.session(t), s.session(t)
	assert.Equal(t, http.StatusNoContent, do(t, http.MethodDelete, s.url, ``, "Mcp-Session-Id", deleted).status)
	assert.Equal(t, http.StatusNotFound, do(t, http.MethodPost, s.url, list, "Mcp-Session-Id", deleted).status)
	s.session(t) // two, with kept: none to end
	r := do(t, http.MethodPost, s.url, list, "Mcp-Session-Id", kept)
	assert.Equal(t, http.StatusOK, r.status, "a session ended for one deleted: %s", r.body)
}

// TestMaxSessions: past the limit, a new session ends the one idle the
// longest; one the client failed to delete is still counted.
func TestMaxSessions(t *testing.T) {
	t.Parallel()
	s := start(t, func(h *Handler) { h.sessions.max = 2 })
	first, second := s.session(t), s.session(t)
	r := do(t, http.MethodDelete, s.url, ``, "Mcp-Session-Id", first, "MCP-Protocol-Version", "2026-07-28") // refused: no sessions in 2026-07-28
	assert.NotEqual(t, http.StatusNoContent, r.status, r.body)
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	assert.Equal(t, http.StatusOK, do(t, http.MethodPost, s.url, list, "Mcp-Session-Id", second).status, "second is used last")
	s.session(t) // a third
	r = do(t, http.MethodPost, s.url, list, "Mcp-Session-Id", first)
	assert.Equal(t, http.StatusNotFound, r.status, "the session idle the longest has ended")
	assert.Contains(t, r.message, "to make room for newer ones, at most 2")
	assert.Equal(t, http.StatusOK, do(t, http.MethodPost, s.url, list, "Mcp-Session-Id", second).status)
}

// TestRequestRacingDelete: a request whose session is deleted while go-sdk
// serves it is answered as any request of a session that has ended, not
// with the empty 200 go-sdk leaves. Here go-sdk finds the session, then
// waits to read the body until the DELETE is done.
func TestRequestRacingDelete(t *testing.T) {
	t.Parallel()
	reading, resume := make(chan struct{}), make(chan struct{})
	pause := sync.OnceFunc(func() { close(reading); <-resume })
	s := start(t, func(h *Handler) {
		legacy := h.legacy
		h.legacy = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Pause") != "" {
				r.Body = pausedBody{ReadCloser: r.Body, pause: pause}
			}
			legacy.ServeHTTP(w, r)
		})
	})
	sid := s.session(t)
	done := make(chan response, 1)
	go func() {
		done <- do(t, http.MethodPost, s.url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Session-Id", sid, "Pause", "yes")
	}()
	select {
	case <-reading:
	case <-time.After(failAfter):
		t.Fatal("go-sdk did not read the body")
	}
	assert.Equal(t, http.StatusNoContent, do(t, http.MethodDelete, s.url, ``, "Mcp-Session-Id", sid).status)
	close(resume)
	r := receive(t, done, "the answer to the request that raced the DELETE")
	assert.Equal(t, http.StatusNotFound, r.status, "the answer: %q", r.body)
	assert.JSONEq(t, "2", string(r.id), r.body)
	assert.Contains(t, r.message, "session not found: it has ended", r.body)
}

// A pausedBody calls pause before it is read.
type pausedBody struct {
	io.ReadCloser
	pause func()
}

func (b pausedBody) Read(p []byte) (int, error) {
	b.pause()
	return b.ReadCloser.Read(p)
}
