package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"mcp-hello-tools/internal/protocol"
)

// errTooLong reports a line longer than MaxMessageSize, read and dropped.
var errTooLong = errors.New("line too long")

// next reads lines until one holds a message for the legacy session, and
// returns it, handing the modern session its messages and answering lines
// no session is to see. At the end of input it drains, and returns io.EOF.
// It runs on the SDK's reading goroutine: the common case costs no handoff.
func (c *conn) next() (jsonrpc.Message, error) {
	for {
		select {
		case <-c.done:
			return nil, io.EOF
		default:
		}
		line, err := c.readLine()
		switch {
		case errors.Is(err, errTooLong):
			c.trace("read: ", fmt.Appendf(nil, "(a line of more than %d bytes, skipped)", c.opts.MaxMessageSize))
			c.reply(nil, protocol.Errorf(jsonrpc.CodeInvalidRequest,
				"invalid request: message too large: a line may hold at most %d bytes", c.opts.MaxMessageSize))
			continue
		case err != nil:
			c.drain()
			return nil, io.EOF
		case len(bytes.Trim(line, " \t\r")) == 0:
			continue // a blank line is no message
		}
		c.trace("read: ", line)
		msg, era := c.handle(line)
		switch {
		case msg == nil:
		case era == protocol.Legacy:
			return msg, nil
		default:
			select {
			case c.modern <- msg:
			case <-c.done:
			}
		}
	}
}

// readLine returns the next line without its "\n" or "\r\n", valid until
// the next call; errTooLong for a line longer than MaxMessageSize, read to
// its end but never held whole; the last line even without "\n"; then the
// error that ended the input.
func (c *conn) readLine() ([]byte, error) {
	c.long = c.long[:0]
	for {
		frag, err := c.in.ReadSlice('\n')
		if len(c.long)+len(frag) > c.opts.MaxMessageSize+len("\r\n") {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = c.in.ReadSlice('\n')
			}
			return nil, errTooLong
		}
		line := frag
		if len(c.long) > 0 || errors.Is(err, bufio.ErrBufferFull) {
			c.long = append(c.long, frag...)
			line = c.long
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && len(line) == 0:
			return nil, err
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) > c.opts.MaxMessageSize {
			return nil, errTooLong
		}
		return line, nil
	}
}

// handle answers a line that is not for a session, or returns its message
// and the era of the session it is for.
func (c *conn) handle(line []byte) (jsonrpc.Message, protocol.Era) {
	msg, err := protocol.Decode(line)
	switch {
	case msg.Response:
		c.log.Warn("ignored a response: this server sends no requests", "id", string(msg.ID), "error", err)
	case err != nil:
		c.reply(msg.ID, err)
	case msg.ID == nil:
		return c.notification(msg)
	default:
		return c.request(msg, len(line))
	}
	return nil, 0
}

// request checks a request and returns it under an id of its own, or nil.
func (c *conn) request(msg *protocol.Message, size int) (jsonrpc.Message, protocol.Era) {
	era, err := c.opts.Methods.Check(msg, "")
	if err != nil {
		c.reply(msg.ID, err)
		return nil, 0
	}
	id, err := c.admit(msg, era, size)
	switch {
	case errors.Is(err, errOver):
		return nil, 0
	case err != nil:
		c.reply(nil, err)
		return nil, 0
	}
	sdkID, _ := jsonrpc.MakeID(float64(id)) // an integer id cannot fail
	return &jsonrpc.Request{ID: sdkID, Method: msg.Method, Params: msg.Params}, era
}

// errOver reports that the session is over.
var errOver = errors.New("stdio: the session is over")

// admit records a request as in flight and returns the id the SDK will
// know it by. While the requests unanswered are at the limit, it waits for
// a reply: nothing reads the input meanwhile, the pipe fills, and the
// client's writes block. A request reusing an id in flight is refused with
// "id": null, lest the refusal be taken for the first one's answer.
func (c *conn) admit(msg *protocol.Message, era protocol.Era, size int) (int64, error) {
	c.mu.Lock()
	for c.unanswered > 0 && (c.unanswered >= c.opts.MaxInFlight || c.unansweredBytes+size > c.opts.MaxInFlightSize) {
		c.mu.Unlock()
		select {
		case <-c.progress:
		case <-c.done:
			return 0, errOver
		}
		c.mu.Lock()
	}
	defer c.mu.Unlock()
	if _, dup := c.ids[string(msg.ID)]; dup {
		return 0, protocol.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: id %s is in use by a request in flight", msg.ID)
	}
	c.lastID++
	c.calls[c.lastID] = &call{id: msg.ID, method: msg.Method, size: size, era: era}
	c.ids[string(msg.ID)] = c.lastID
	c.unanswered++
	c.unansweredBytes += size
	return c.lastID, nil
}

// settleLocked counts cl as answered, and tells admit and drain. mu is held.
func (c *conn) settleLocked(cl *call) {
	c.unanswered--
	c.unansweredBytes -= cl.size
	c.signal()
}

// signal tells admit and drain that a request is settled or a reply is
// moving, if they are not told already.
func (c *conn) signal() {
	select {
	case c.progress <- struct{}{}:
	default:
	}
}

// notification returns the first notifications/initialized, for the legacy
// session, and acts on cancellations. It drops the others: the server has
// no use for them, and a flood of them must not queue up in the SDK.
func (c *conn) notification(msg *protocol.Message) (jsonrpc.Message, protocol.Era) {
	switch msg.Method {
	case "notifications/cancelled":
		return c.cancel(msg.Params)
	case "notifications/initialized":
		c.mu.Lock()
		first := !c.initialized
		c.initialized = true
		c.mu.Unlock()
		if first {
			return &jsonrpc.Request{Method: msg.Method, Params: msg.Params}, protocol.Legacy
		}
	}
	return nil, 0
}

// cancel handles notifications/cancelled (MCP, "Cancellation"): a request
// in flight is counted as answered, its id freed and its reply to be
// dropped, and the SDK is told to cancel it under its own id. Cancelling
// anything else, or initialize, which a client must not, is ignored.
func (c *conn) cancel(params json.RawMessage) (jsonrpc.Message, protocol.Era) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    any             `json:"reason"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil, 0
	}
	key, _ := protocol.CanonicalID(p.RequestID)
	c.mu.Lock()
	id, ok := c.ids[string(key)]
	cl := c.calls[id]
	if !ok || cl.method == "initialize" {
		c.mu.Unlock()
		c.log.Debug("ignored a cancellation of no request in flight", "requestId", string(p.RequestID))
		return nil, 0
	}
	cl.cancelled = true
	delete(c.ids, string(key))
	c.settleLocked(cl)
	c.mu.Unlock()
	c.log.Info("request cancelled by the client; its reply will not be sent",
		"id", string(cl.id), "method", cl.method, "reason", p.Reason)
	return &jsonrpc.Request{Method: "notifications/cancelled", Params: fmt.Appendf(nil, `{"requestId":%d}`, id)}, cl.era
}

// write writes a session's reply under its request's id, with its error's
// code mapped by protocol.WireError (go-sdk#976), unless it was cancelled,
// up to the moment the reply takes the output.
func (c *conn) write(msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok { // a message of the server's own; this server sends none
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return err
		}
		return c.writeLine(data)
	}
	n, _ := resp.ID.Raw().(int64)
	c.mu.Lock()
	cl := c.calls[n]
	c.mu.Unlock()
	if cl == nil {
		c.log.Error("dropped a reply to no request in flight", "id", n)
		return nil
	}
	var line []byte
	if resp.Error != nil {
		line = protocol.ErrorResponse(cl.id, resp.Error)
	} else {
		line = append(append(append([]byte(`{"jsonrpc":"2.0","id":`), cl.id...), `,"result":`...), resp.Result...)
		line = append(line, '}')
		if bytes.IndexByte(line, '\n') >= 0 { // go-sdk writes compact JSON; a newline would split the message
			var compact bytes.Buffer
			if err := json.Compact(&compact, line); err != nil {
				return err
			}
			line = compact.Bytes()
		}
	}
	c.outMu.Lock()
	defer c.outMu.Unlock()
	c.mu.Lock()
	cancelled := cl.cancelled // while the reply waited for the output, too
	if cancelled {
		delete(c.calls, n)
	} else {
		delete(c.ids, string(cl.id)) // a client may reuse the id as soon as it reads the reply
	}
	c.mu.Unlock()
	if cancelled {
		c.log.Info("dropped the reply to a cancelled request", "id", string(cl.id), "method", cl.method)
		return nil
	}
	err := c.writeLocked(line)
	c.mu.Lock()
	delete(c.calls, n)
	c.settleLocked(cl)
	c.mu.Unlock()
	return err
}

// reply writes the error reply to a line the SDK does not see.
func (c *conn) reply(id json.RawMessage, err error) {
	_ = c.writeLine(protocol.ErrorResponse(id, err)) // writeLine logs its errors
}

// writeLine writes data and a newline, whole, before any other line.
func (c *conn) writeLine(data []byte) error {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	return c.writeLocked(data)
}

// writeChunk is how much of a line goes out in one Write: a client reading
// a long reply slowly shows progress, which drain waits for.
const writeChunk = 64 << 10

// writeLocked writes data and a newline; outMu is held. If a write fails
// (EPIPE: the client closed standard output), the session is over.
func (c *conn) writeLocked(data []byte) error {
	select {
	case <-c.done:
		return errOver
	default:
	}
	c.trace("write: ", data)
	for data = append(data, '\n'); len(data) > 0; data = data[min(len(data), writeChunk):] {
		if _, err := c.opts.Out.Write(data[:min(len(data), writeChunk)]); err != nil {
			c.log.Warn("cannot write to standard output; ending the session", "error", err)
			c.close()
			return err
		}
		c.signal()
	}
	return nil
}

// drain waits, once the input has ended, until every request read is
// answered or no reply has moved for the grace period, and ends the
// session.
func (c *conn) drain() {
	timer := time.NewTimer(c.opts.GracePeriod)
	defer timer.Stop()
	for {
		c.mu.Lock()
		left := c.unanswered
		c.mu.Unlock()
		if left == 0 {
			c.close()
			return
		}
		select {
		case <-c.progress:
			timer.Reset(c.opts.GracePeriod)
		case <-c.done:
			return
		case <-timer.C:
			c.mu.Lock()
			for _, cl := range c.calls {
				if !cl.cancelled {
					c.log.Error("abandoned a request still running when the input ended",
						"id", string(cl.id), "method", cl.method, "grace_period", c.opts.GracePeriod)
				}
			}
			c.mu.Unlock()
			c.close()
			return
		}
	}
}

// maxTrace is the longest line written to Options.Trace, in bytes.
const maxTrace = 16 << 10

// trace writes prefix and line to Options.Trace, control characters as
// \xNN, so that a client's line cannot rewrite the terminal showing it.
func (c *conn) trace(prefix string, line []byte) {
	if c.opts.Trace == nil {
		return
	}
	buf := append(make([]byte, 0, len(prefix)+min(len(line), maxTrace)+32), prefix...)
	for _, b := range line[:min(len(line), maxTrace)] {
		if b < 0x20 || b == 0x7f {
			buf = append(buf, `\x`+strconv.FormatUint(uint64(b)|0x100, 16)[1:]...)
			continue
		}
		buf = append(buf, b)
	}
	if len(line) > maxTrace {
		buf = fmt.Appendf(buf, "… (%d bytes in all)", len(line))
	}
	_, _ = c.opts.Trace.Write(append(buf, '\n')) // tracing is best effort
}
