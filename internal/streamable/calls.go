package streamable

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// calls are the legacy requests being served, for their cancellation. Each
// goes to go-sdk under an id of its own (newID), so that its client may
// reuse its id once it cancels it; its reply goes back under it (underID).
type calls struct {
	mu     sync.Mutex
	held   map[call]*heldError
	lastID atomic.Int64 // the last id go-sdk was handed (newID)
}

// A call is a legacy request: its session, and its id.
type call struct {
	session string
	id      jsonrpc.ID
}

// newID returns an id go-sdk has never been handed by this handler.
func (c *calls) newID() jsonrpc.ID {
	id, _ := jsonrpc.MakeID(float64(c.lastID.Add(1)))
	return id
}

// add records held as key's request, unless key's id is in use.
func (c *calls) add(key call, held *heldError) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[key] != nil {
		return false
	}
	c.held[key] = held
	return true
}

// done forgets held, unless cancelled: its id free, perhaps reused.
func (c *calls) done(key call, held *heldError) {
	c.mu.Lock()
	if c.held[key] == held {
		delete(c.held, key)
	}
	c.mu.Unlock()
}

// cancel marks the request a notifications/cancelled names, for serve to
// drop its reply, and frees its id; it returns go-sdk's id for it, if any.
func (c *calls) cancel(session string, id jsonrpc.ID) (jsonrpc.ID, bool) {
	if !id.IsValid() {
		return jsonrpc.ID{}, false // it names no request
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := call{session, id}
	held := c.held[key]
	if held == nil {
		return jsonrpc.ID{}, false
	}
	held.cancelled.Store(true)
	delete(c.held, key)
	return held.sdkID, true
}

// setBody makes req the body of r, without a copy of its params.
func setBody(r *http.Request, req *jsonrpc.Request) {
	head, _ := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: req.ID, Method: req.Method}) // a JSON object, its params left out
	parts := []io.Reader{bytes.NewReader(head)}
	size := int64(len(head))
	if req.Params != nil {
		parts = []io.Reader{bytes.NewReader(head[:len(head)-1]), strings.NewReader(`,"params":`), bytes.NewReader(req.Params), strings.NewReader("}")}
		size += int64(len(`,"params":`) + len(req.Params))
	}
	r.Body, r.ContentLength = io.NopCloser(io.MultiReader(parts...)), size
}

// underID returns reply, a response go-sdk encoded under from, under to:
// its head replaced, as go-sdk encodes it, without a result of megabytes
// decoded and encoded again; a reply of another shape is.
func underID(reply []byte, from, to jsonrpc.ID) []byte {
	head := func(id jsonrpc.ID) []byte {
		data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id}) // {"jsonrpc":"2.0","id":…}
		return append(data[:len(data)-1], ',')
	}
	if fromHead := head(from); bytes.HasPrefix(reply, fromHead) {
		return append(head(to), reply[len(fromHead):]...)
	}
	msg, err := jsonrpc.DecodeMessage(reply)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || resp.ID != from {
		return reply
	}
	resp.ID = to
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return reply
	}
	return data
}
