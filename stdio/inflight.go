package stdio

import (
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// This file keeps the account of the requests in flight: how many there
// are and how many bytes their lines hold (backpressure on the input), and
// what happens to them when the input ends (the grace period).

// admit records req as pending and reports true, or reports false if a
// request with its id is in flight, pending or cancelled. size is the
// length of its line.
//
// Before that, admit waits while the requests unanswered are at the limit
// in number or in bytes; the first is always admitted, however long. This
// is the backpressure of a stdio server: while admit waits, nothing reads
// the input, the pipe fills, and the client's writes block until replies
// are out. Replies, cancellations and Close end the wait; Close with an
// error, as the connection has no more to read.
func (c *conn) admit(req *jsonrpc.Request, size int) (bool, error) {
	for {
		c.mu.Lock()
		if c.unanswered == 0 || (c.unanswered < c.maxInFlight && c.unansweredBytes+size <= c.maxInFlightSize) {
			break
		}
		c.mu.Unlock()
		select {
		case <-c.settled:
		case <-c.closed:
			return false, io.EOF
		}
	}
	defer c.mu.Unlock()
	if _, ok := c.pending[req.ID]; ok {
		return false, nil
	}
	if _, ok := c.cancelled[req.ID]; ok {
		return false, nil
	}
	c.pending[req.ID] = request{method: req.Method, size: size}
	c.unanswered++
	c.unansweredBytes += size
	return true, nil
}

// settleLocked counts r as answered (or cancelled), once it has left
// pending, and tells admit and drain. The caller holds mu.
func (c *conn) settleLocked(r request) {
	c.unanswered--
	c.unansweredBytes -= r.size
	select {
	case c.settled <- struct{}{}:
	default:
	}
	if c.unanswered == 0 && c.drained != nil {
		close(c.drained)
		c.drained = nil
	}
}

// drain waits until no request is unanswered, or the connection is closed,
// or no request has been answered for the grace period: the grace period
// bounds a lack of progress, not the whole wait, so that a long queue of
// quick requests is answered in full. Then it abandons the rest.
func (c *conn) drain() {
	c.mu.Lock()
	if c.unanswered == 0 {
		c.mu.Unlock()
		return
	}
	c.drained = make(chan struct{})
	drained := c.drained
	c.mu.Unlock()

	timer := time.NewTimer(c.grace)
	defer timer.Stop()
	for {
		select {
		case <-drained:
			return
		case <-c.closed:
			return
		case <-c.settled:
			timer.Reset(c.grace)
		case <-timer.C:
			c.abandon()
			return
		}
	}
}

// abandon logs the requests still pending and closes the connection, so
// that a reply stuck in a write to a client that no longer reads returns,
// and no abandoned request is answered after all: Write writes nothing
// once the connection is closed. A reply being written when the
// connection closes is logged by Write if it is cut short.
func (c *conn) abandon() {
	c.mu.Lock()
	for id, r := range c.pending {
		c.log.Error("abandoned a request still running when the input ended",
			"id", jsonID(id), "method", r.method, "grace_period", c.grace)
	}
	err := c.Close() // under mu, so that Write takes no entry of pending meanwhile
	c.mu.Unlock()
	if err != nil {
		c.log.Error("could not close the connection", "error", err)
	}
}
