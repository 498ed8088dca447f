package stdio

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Write implements [mcp.Connection]. A response must answer a pending
// request; its error, if any, is given a standard code and a plain message
// (see wireError). The reply to a cancelled request is dropped.
func (c *conn) Write(_ context.Context, msg jsonrpc.Message) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	resp, isResponse := msg.(*jsonrpc.Response)
	if isResponse {
		c.mu.Lock()
		method, ok := c.pending[resp.ID]
		cancelledMethod, cancelled := c.cancelled[resp.ID]
		delete(c.cancelled, resp.ID)
		c.mu.Unlock()
		switch {
		case cancelled:
			c.log.Info("dropped the reply to a cancelled request", "id", jsonID(resp.ID), "method", cancelledMethod)
			return nil
		case !ok:
			c.log.Error("dropped a reply to no pending request", "id", jsonID(resp.ID))
			return nil
		case resp.Error != nil:
			msg = &jsonrpc.Response{ID: resp.ID, Error: wireError(resp.Error, method)}
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeLine(data)
	if isResponse {
		// Only now, so that the end of input waits until the reply is out.
		c.mu.Lock()
		c.settleLocked(resp.ID)
		c.mu.Unlock()
	}
	return err
}

// answer writes the error reply to a line that is not a message.
func (c *conn) answer(bad *badMessage) {
	id := bad.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: bad.Code, Message: bad.Message}})
	if err == nil {
		c.writeMu.Lock()
		err = c.writeLine(data)
		c.writeMu.Unlock()
	}
	if err != nil {
		c.log.Error("could not answer a line that is not a message", "error", err)
	}
}

// writeLine writes data and a newline in one Write call. The caller holds
// writeMu.
func (c *conn) writeLine(data []byte) error {
	data = append(data, '\n')
	c.traceLine("write: ", data[:len(data)-1])
	_, err := c.out.Write(data)
	return err
}

// maxTrace is the longest line written to Trace, in bytes.
const maxTrace = 16 << 10

func (c *conn) traceLine(prefix string, line []byte) {
	if c.trace == nil {
		return
	}
	buf := make([]byte, 0, len(prefix)+min(len(line), maxTrace)+40)
	buf = append(buf, prefix...)
	if len(line) > maxTrace {
		buf = append(buf, line[:maxTrace]...)
		buf = fmt.Appendf(buf, "… (%d bytes in all)", len(line))
	} else {
		buf = append(buf, line...)
	}
	buf = append(buf, '\n')
	c.traceMu.Lock()
	defer c.traceMu.Unlock()
	_, _ = c.trace.Write(buf) // tracing is best effort
}
