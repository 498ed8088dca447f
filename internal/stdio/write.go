package stdio

import (
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"mcp-hello-tools/internal/protocol"
)

// The way out: a session's reply goes out through write, under the
// client's id, in parts (send); reply answers what go-sdk never saw; at
// the end of input, drain waits for the replies still to come.

// write writes a session's reply under the client's id, unless the request
// was cancelled, or abandoned, before the reply took the output.
func (c *conn) write(msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok { // no tool here notifies, and go-sdk sends no request unless asked to (KeepAlive)
		return fmt.Errorf("stdio: this transport sends replies only, not a %T", msg)
	}
	n, _ := resp.ID.Raw().(int64)
	defer func() {
		c.mu.Lock()
		delete(c.calls, n)
		c.mu.Unlock()
		c.signal()
	}()
	c.mu.Lock()
	cl := c.calls[n]
	c.mu.Unlock()
	if cl == nil { // which cannot be: go-sdk answers each request it is handed once
		return nil
	}
	// Encoding a reply of megabytes takes seconds on a busy machine: it is
	// the handler's work, done before the reply waits for the output.
	data, err := protocol.Encode(&jsonrpc.Response{ID: cl.id, Result: resp.Result, Error: resp.Error})
	if err != nil {
		return err
	}
	c.mu.Lock()
	cl.ready = true
	c.mu.Unlock()
	if !c.outMu.TryLock() {
		c.log.Debug("a reply waits for the output", "id", quoted(cl.id.Raw()), "method", cl.method)
		c.outMu.Lock()
	}
	defer c.outMu.Unlock()
	c.mu.Lock()
	dropped := cl.cancelled
	cl.idFree = true // the client may reuse it as soon as it reads the reply
	c.mu.Unlock()
	if dropped {
		c.log.Info("dropped a reply to a request cancelled or abandoned", "id", quoted(cl.id.Raw()), "method", cl.method)
		return nil
	}
	c.signal() // a reply is going out: the client is to read it
	return c.send(data)
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
func (c *conn) reply(id jsonrpc.ID, refusal error) {
	data, err := protocol.Encode(&jsonrpc.Response{ID: id, Error: refusal})
	if err != nil {
		return
	}
	c.outMu.Lock()
	defer c.outMu.Unlock()
	_ = c.send(data) // a failed write ends the session
}

var errClosed = errors.New("stdio: the session is over")

// send writes data, one message, as a line, in parts of
// MinReadRate×GracePeriod bytes, each part the client accepts signalled
// on read; a failed write (EPIPE: the client closed standard output) ends
// the session. outMu is held.
func (c *conn) send(data []byte) error {
	if c.over() {
		return errClosed
	}
	c.trace("write: ", data)
	part := max(1, int(MinReadRate*c.opts.GracePeriod.Seconds()))
	for data = append(data, '\n'); len(data) > 0; {
		n := min(part, len(data))
		if _, err := c.out.Write(data[:n]); err != nil {
			c.close(fmt.Errorf("writing to standard output: %w", err))
			return err
		}
		data = data[n:]
		select {
		case c.read <- struct{}{}:
		default:
		}
	}
	return nil
}

// signal says that a call has changed: its reply is going out, out, or
// dropped. There may be room for another request, and the end of input
// has progress to wait for.
func (c *conn) signal() {
	select {
	case c.progress <- struct{}{}:
	default:
	}
}

// drain waits, once the input has ended, until every request read is
// answered or abandoned, and ends the session (the rules are in the
// package doc). While a reply is going out, a GracePeriod in which the
// client makes no progress abandons the requests behind it: no part of the
// reply is accepted, and, where the kernel tells (unreadOf), what the
// client has not read does not go down, looked at every GracePeriod/5.
// The reply itself is waited for as long as the client takes, lest its
// line be cut (a signal still ends the server). Apart from that, a request
// still running RunPeriod after the end of input is abandoned.
func (c *conn) drain() {
	select {
	case <-c.read: // a part read before the input ended
	default:
	}
	runOut := c.limits.after(c.opts.RunPeriod)
	var stall <-chan time.Time // while a reply goes out: the client has made no progress for a grace period
	var look <-chan time.Time  // while a reply goes out: the next look at what the client has not read
	stalled := false
	unread := -1             // at the last look; -1: not known
	reading := func() bool { // whether the client has read some since the last look
		if c.unread == nil {
			return false
		}
		n, ok := c.unread()
		if !ok {
			return false
		}
		down := unread >= 0 && n < unread
		unread = n
		return down
	}
	for {
		c.mu.Lock()
		live, writing := c.count()
		c.mu.Unlock()
		if live == 0 {
			break
		}
		if !writing || stalled {
			stall, look = nil, nil
		} else {
			if stall == nil {
				stall = c.limits.after(c.opts.GracePeriod)
			}
			if look == nil && c.unread != nil {
				look = time.After(c.opts.GracePeriod / 5)
			}
		}
		select {
		case <-c.read:
			stall = nil // a part was read: the period starts anew
		case <-look:
			look = nil
			if reading() {
				stall = nil
			}
		case <-c.progress:
		case <-c.done:
			return
		case <-stall:
			if reading() {
				stall = nil
				continue
			}
			stalled = true
			c.abandon(func(cl *call) string {
				if cl.ready {
					return "abandoned a reply: the client made no progress reading the reply going out for the grace period"
				}
				return "abandoned a request still running: the client made no progress reading the reply going out for the grace period"
			})
			c.log.Warn("waiting for the client to read a reply going out: stopping would cut its line; a signal stops the server")
		case <-runOut:
			runOut = nil
			c.log.Debug("the run period after the end of input is over", "run_period", c.opts.RunPeriod)
			c.abandon(func(cl *call) string {
				if cl.ready {
					return "" // computed: it waits for the client to read
				}
				return "abandoned a request not yet answered a run period after the input ended"
			})
		}
	}
	c.close(nil)
}

// count returns how many requests are neither answered nor dropped, and
// whether a reply is going out; mu is held.
func (c *conn) count() (live int, writing bool) {
	for _, cl := range c.calls {
		if !cl.cancelled {
			live++
			writing = writing || cl.idFree
		}
	}
	return live, writing
}

// abandon marks each request whose reply is not going out, and for which
// why gives a reason, as cancelled, and logs it with the reason.
func (c *conn) abandon(why func(*call) string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cl := range c.calls {
		if reason := why(cl); !cl.idFree && reason != "" {
			cl.cancelled, cl.idFree = true, true
			c.log.Error(reason, "id", quoted(cl.id.Raw()), "method", cl.method, "grace_period", c.opts.GracePeriod, "run_period", c.opts.RunPeriod)
		}
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
