package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// errOutputClosed is what Write returns once the connection is closed, or
// once the client has closed its end of standard output. It wraps io.EOF:
// to the SDK, and to the server's main, the session has ended, as it does
// when the input ends.
var errOutputClosed = fmt.Errorf("stdio: output closed: %w", io.EOF)

// Write implements [mcp.Connection]. A response must answer a pending
// request; its error, if any, is given a standard code and a plain message
// (see wireError). The reply to a cancelled request is dropped. Once the
// connection is closed, nothing is written.
func (c *conn) Write(_ context.Context, msg jsonrpc.Message) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	resp, isResponse := msg.(*jsonrpc.Response)
	var answered request
	c.mu.Lock()
	select {
	case <-c.closed:
		c.mu.Unlock()
		return errOutputClosed
	default:
	}
	if isResponse {
		var ok bool
		answered, ok = c.pending[resp.ID]
		// The id leaves pending before the reply is written, never after:
		// a client that reuses an id as soon as it reads the reply must
		// find it free. The reply still counts as unanswered until it is
		// out (settleLocked, below).
		delete(c.pending, resp.ID)
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
			msg = &jsonrpc.Response{ID: resp.ID, Error: wireError(resp.Error, answered.method)}
		}
		defer func() {
			c.mu.Lock()
			c.settleLocked(answered)
			c.mu.Unlock()
		}()
	} else {
		c.mu.Unlock()
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if err := c.writeLine(data); err != nil {
		if isResponse {
			c.log.Error("could not write a reply", "id", jsonID(resp.ID), "method", answered.method, "error", err)
		}
		return err
	}
	return nil
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
// writeMu. The Write writes the whole line, or fails: a Write to a pipe
// through the poller waits, as often as it must, for room in the pipe.
func (c *conn) writeLine(data []byte) error {
	data = append(data, '\n')
	c.traceLine("write: ", data[:len(data)-1])
	_, err := c.out.Write(data)
	switch {
	case errors.Is(err, syscall.EPIPE):
		// No one will read what is written: end the session, as the end
		// of input does. Close makes Read return io.EOF.
		c.log.Warn("the client closed standard output; ending the session", "error", err)
		if cerr := c.Close(); cerr != nil {
			c.log.Error("could not close the connection", "error", cerr)
		}
		return fmt.Errorf("%w (%w)", errOutputClosed, err)
	case errors.Is(err, os.ErrClosed):
		return errOutputClosed // closed by Close, while this write waited
	}
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
	buf = appendVisible(buf, line[:min(len(line), maxTrace)])
	if len(line) > maxTrace {
		buf = fmt.Appendf(buf, "… (%d bytes in all)", len(line))
	}
	buf = append(buf, '\n')
	c.traceMu.Lock()
	defer c.traceMu.Unlock()
	_, _ = c.trace.Write(buf) // tracing is best effort
}

// appendVisible appends line to buf with each control character (a
// carriage return, an escape) shown as the \xNN a Go string would have, so
// that a line read from a client cannot rewrite the trace on a terminal. A
// JSON message never holds one outside its strings' escapes.
func appendVisible(buf, line []byte) []byte {
	for _, c := range line {
		if c < 0x20 || c == 0x7f {
			buf = fmt.Appendf(buf, `\x%02x`, c)
			continue
		}
		buf = append(buf, c)
	}
	return buf
}
