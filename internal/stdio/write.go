package stdio

import (
	"cmp"
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"mcp-hello-tools/internal/protocol"
)

// The way out: a session's reply goes out through write, under the
// client's id; reply answers what go-sdk never saw; at the end of input,
// drain waits for the replies still to come.

// write writes a session's reply under the client's id, unless the request
// was cancelled before the reply took the output.
func (c *conn) write(msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok { // the server's own messages: it sends none
		return c.send(msg)
	}
	n, _ := resp.ID.Raw().(int64)
	c.outMu.Lock()
	defer c.outMu.Unlock()
	c.mu.Lock()
	cl := c.calls[n]
	dropped := cl == nil || cl.cancelled
	if cl != nil {
		cl.idFree = true // the client may reuse it as soon as it reads the reply
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.calls, n)
		c.mu.Unlock()
		c.signal()
	}()
	if dropped {
		c.log.Info("dropped a reply to a request cancelled or abandoned", "id", n) // or in no call, which cannot be
		return nil
	}
	return c.send(&jsonrpc.Response{ID: cl.id, Result: resp.Result, Error: resp.Error})
}

// refuse writes the error reply to a message refused before go-sdk saw
// it: under its id, but under null if a request in flight has that id
// (the message reused it), lest the client take the refusal for that
// request's answer.
func (c *conn) refuse(id jsonrpc.ID, err error) {
	c.mu.Lock()
	if c.find(id) != nil {
		id = jsonrpc.ID{}
	}
	c.mu.Unlock()
	c.reply(id, err)
}

// reply writes the error reply to a message go-sdk does not see.
func (c *conn) reply(id jsonrpc.ID, err error) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	_ = c.send(&jsonrpc.Response{ID: id, Error: err}) // a failed write ends the session
}

var errClosed = errors.New("stdio: the session is over")

// send writes msg as one line; a failed write (EPIPE: the client closed
// standard output) ends the session.
func (c *conn) send(msg jsonrpc.Message) error {
	data, err := protocol.Encode(msg) // compact: no newline within
	if err != nil || c.over() {
		return cmp.Or(err, errClosed)
	}
	c.trace("write: ", data)
	if _, err := c.out.Write(append(data, '\n')); err != nil {
		c.close(fmt.Errorf("writing to standard output: %w", err))
		return err
	}
	return nil
}

// signal says that a reply has gone out, or been dropped: there is room
// for another request, and the end of input has progress to wait for.
func (c *conn) signal() {
	select {
	case c.progress <- struct{}{}:
	default:
	}
}

// drain waits, once the input has ended, until every request read is
// answered, and ends the session. Once no reply has gone out for the grace
// period, the requests whose replies are not going out are abandoned, their
// replies never to be sent; a reply going out is waited for as long as its
// client takes to read it, lest its line be cut (a signal still ends the
// server).
func (c *conn) drain() {
	select {
	case <-c.progress: // before the input ended: the first period starts now
	default:
	}
	for abandoned := false; ; {
		c.mu.Lock()
		left, writing := len(c.calls), c.writing()
		c.mu.Unlock()
		if left == 0 || abandoned && !writing {
			break
		}
		var timeout <-chan time.Time
		if !abandoned {
			timeout = c.limits.after(c.opts.GracePeriod)
		}
		select {
		case <-c.progress:
		case <-c.done:
			return
		case <-timeout:
			abandoned = true
			c.abandon()
		}
	}
	c.close(nil)
}

// writing reports whether a reply is going out; mu is held.
func (c *conn) writing() bool {
	for _, cl := range c.calls {
		if cl.idFree && !cl.cancelled {
			return true
		}
	}
	return false
}

// abandon marks the requests whose replies are not going out as cancelled,
// and logs them, and the wait for a reply going out if there is one.
func (c *conn) abandon() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cl := range c.calls {
		if !cl.idFree {
			cl.cancelled, cl.idFree = true, true
			c.log.Error("abandoned a request still running when the input ended", "id", quoted(cl.id.Raw()), "method", cl.method, "grace_period", c.opts.GracePeriod)
		}
	}
	if c.writing() {
		c.log.Warn("waiting for the client to read a reply going out: stopping would cut its line; a signal stops the server")
	}
}

// maxTrace is the longest line traced, in bytes.
const maxTrace = 16 << 10

// trace writes prefix and line to opts.Trace, if set, cut at maxTrace
// bytes, with every character a terminal acts on rather than shows (C0 and
// C1 controls, bidirectional overrides and other formatting characters)
// as \xNN or \uNNNN, and invalid UTF-8 as U+FFFD, so that a client's line
// cannot rewrite the terminal that shows it.
func (c *conn) trace(prefix string, line []byte) {
	if c.opts.Trace == nil {
		return
	}
	buf := []byte(prefix)
	for _, r := range string(line[:min(len(line), maxTrace)]) {
		switch {
		case r < 0x100 && !unicode.IsPrint(r) && r != ' ':
			buf = fmt.Appendf(buf, `\x%02x`, r)
		case !unicode.IsPrint(r) && r != ' ':
			buf = fmt.Appendf(buf, `\u%04x`, r)
		default:
			buf = utf8.AppendRune(buf, r)
		}
	}
	if len(line) > maxTrace {
		buf = fmt.Appendf(buf, "… (%d bytes in all)", len(line))
	}
	_, _ = c.opts.Trace.Write(append(buf, '\n')) // best effort
}
