package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A conn is the [mcp.Connection] a Transport makes.
//
// Read reads the input line by line, answering itself the lines that are
// not messages, and returns the messages to the SDK. The SDK calls Write
// from many goroutines, one per request in flight; writeMu keeps each
// message one whole line.
type conn struct {
	lines   *lineReader
	maxSize int
	closeIn func() error // interrupts a read in progress; nil if nothing can

	writeMu sync.Mutex
	out     io.Writer

	grace   time.Duration
	traceMu sync.Mutex
	trace   io.Writer
	log     *slog.Logger

	incoming chan readResult // from readLoop to Read; nil if Read reads

	// pending holds the requests read and not yet answered, id → method,
	// so that each is answered once and the end of input can wait for them.
	// cancelled holds the requests the client cancelled while they ran:
	// their replies are dropped, and the end of input does not wait for
	// them (see cancel).
	mu        sync.Mutex
	pending   map[jsonrpc.ID]string
	cancelled map[jsonrpc.ID]string
	drained   chan struct{} // closed when pending empties after the input ended

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// readResult is a message, or the error that ended the input.
type readResult struct {
	msg jsonrpc.Message
	err error
}

// next reads lines until one holds a message for the SDK, and returns it,
// or the error that ended the input. It answers the lines that are not
// messages itself.
func (c *conn) next() (jsonrpc.Message, error) {
	for {
		line, err := c.lines.next()
		switch {
		case errors.Is(err, errTooLarge):
			c.traceLine("read: ", fmt.Appendf(nil, "(a line of more than %d bytes, skipped)", c.maxSize))
			c.answer(&badMessage{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
				"invalid request: message too large: a line may hold at most %d bytes", c.maxSize)})
			continue
		case err != nil:
			return nil, err
		case isBlank(line):
			continue
		}
		c.traceLine("read: ", line)
		msg, bad := decode(line)
		if req, ok := msg.(*jsonrpc.Request); ok {
			switch {
			case req.IsCall() && !c.track(req):
				bad = &badMessage{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
					"invalid request: id %s is already in use by a request in flight", jsonID(req.ID))}
			case !req.IsCall() && req.Method == methodCancelled && !c.cancel(req):
				continue // the SDK need not know of it
			}
		}
		switch {
		case bad != nil && bad.IsResponse:
			c.log.Warn("ignored a malformed response", "error", bad.Message)
		case bad != nil:
			c.answer(bad)
		default:
			return msg, nil
		}
	}
}

// readLoop calls next on a goroutine of its own and hands what it returns
// to Read, for an input whose reads Close cannot interrupt.
func (c *conn) readLoop() {
	for {
		msg, err := c.next()
		select {
		case c.incoming <- readResult{msg, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read implements [mcp.Connection]. When the input ends it waits, for the
// grace period at most, until every request read has been answered, and
// then returns io.EOF: the SDK writes nothing after Read fails.
//
// Read reads the input itself when Close can interrupt it (a pipe or a
// socket read through the runtime's poller, or an io.Closer). Otherwise
// readLoop reads it, and Read waits for readLoop or for Close, whichever
// comes first.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	var (
		msg jsonrpc.Message
		err error
	)
	if c.incoming == nil {
		msg, err = c.next()
	} else {
		select {
		case r := <-c.incoming:
			msg, err = r.msg, r.err
		case <-c.closed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	select {
	case <-c.closed:
		return nil, io.EOF
	default:
	}
	if err != nil {
		c.drain()
		return nil, err
	}
	return msg, nil
}

// drain waits until no request is pending, the grace period is over, or the
// connection is closed.
func (c *conn) drain() {
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		return
	}
	c.drained = make(chan struct{})
	drained := c.drained
	c.mu.Unlock()

	timer := time.NewTimer(c.grace)
	defer timer.Stop()
	select {
	case <-drained:
	case <-c.closed:
	case <-timer.C:
		c.mu.Lock()
		for id, method := range c.pending {
			c.log.Error("abandoned a request still running when the input ended",
				"id", jsonID(id), "method", method, "grace_period", c.grace)
		}
		c.mu.Unlock()
	}
}

// track records req as pending, unless a request with its id is in flight,
// pending or cancelled.
func (c *conn) track(req *jsonrpc.Request) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[req.ID]; ok {
		return false
	}
	if _, ok := c.cancelled[req.ID]; ok {
		return false
	}
	c.pending[req.ID] = req.Method
	return true
}

// settleLocked removes id from pending and, if none is left after the input
// ended, tells drain. The caller holds mu.
func (c *conn) settleLocked(id jsonrpc.ID) {
	delete(c.pending, id)
	if len(c.pending) == 0 && c.drained != nil {
		close(c.drained)
		c.drained = nil
	}
}

// Close implements [mcp.Connection]. It closes the input, if it can be
// closed, so that a read in progress returns, and makes Read return io.EOF.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if c.closeIn != nil {
			c.closeErr = c.closeIn()
		}
	})
	return c.closeErr
}

// SessionID implements [mcp.Connection]: a stdio connection is one session,
// and has no id.
func (c *conn) SessionID() string { return "" }

// isBlank reports whether line holds only spaces and tabs: an empty line,
// which is ignored.
func isBlank(line []byte) bool {
	for _, b := range line {
		if b != ' ' && b != '\t' {
			return false
		}
	}
	return true
}

// jsonID formats an id as it appears on the wire: 7 or "seven".
func jsonID(id jsonrpc.ID) string {
	data, err := json.Marshal(id.Raw())
	if err != nil {
		return fmt.Sprint(id.Raw())
	}
	return string(data)
}
