package stdio

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// methodCancelled is the notification a client sends to cancel a request it
// made (MCP specification 2025-11-25, "Cancellation").
const methodCancelled = "notifications/cancelled"

// cancel handles a notifications/cancelled the connection has read, and
// reports whether to pass it on to the SDK.
//
// The specification says the receiver SHOULD NOT answer a cancelled
// request, but go-sdk v1.8.0 does: it cancels the handler's context and
// replies with the handler's error, -32603 "context canceled". So when the
// notification's requestId names a pending request, cancel moves it from
// pending to cancelled: Write drops its reply, and the end of input no
// longer waits for it. The notification then goes on to the SDK, to stop
// the handler.
//
// A cancellation of any other request (unknown, already answered, or
// initialize, which clients MUST NOT cancel) is ignored, as the
// specification allows, and kept from the SDK. The SDK looks for the
// request on a goroutine of its own, some time after it has read the
// notification, and could find a request with that id read after it.
func (c *conn) cancel(note *jsonrpc.Request) bool {
	var params struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    any             `json:"reason"`
	}
	if err := json.Unmarshal(note.Params, &params); err != nil {
		c.log.Debug("ignored a cancellation whose params are not an object with a requestId", "error", err)
		return false
	}
	id, err := makeID(params.RequestID)
	if err != nil || !id.IsValid() {
		c.log.Debug("ignored a cancellation with no valid requestId", "requestId", string(params.RequestID))
		return false
	}

	// Write takes a request out of pending, under mu, before writing its
	// reply: so a reply is either on its way before the cancellation or
	// dropped, never written after its request was cancelled.
	c.mu.Lock()
	r, pending := c.pending[id]
	method := r.method
	if pending && method != "initialize" {
		delete(c.pending, id)
		c.cancelled[id] = method
		c.settleLocked(r)
	}
	c.mu.Unlock()

	switch {
	case !pending:
		c.log.Debug("ignored a cancellation of no request in flight", "id", jsonID(id))
		return false
	case method == "initialize":
		c.log.Warn("ignored a cancellation of initialize, which a client must not cancel", "id", jsonID(id))
		return false
	}
	c.log.Info("request cancelled by the client; its reply will not be sent",
		"id", jsonID(id), "method", method, "reason", params.Reason)
	return true
}
