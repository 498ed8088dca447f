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
	lines    *lineReader
	maxSize  int
	closeIn  func() error // interrupts a read in progress; nil if nothing can
	closeOut func() error // interrupts a write in progress; nil if nothing can

	writeMu sync.Mutex
	out     io.Writer

	grace   time.Duration
	traceMu sync.Mutex
	trace   io.Writer
	log     *slog.Logger

	incoming chan readResult // from readLoop to Read; nil if Read reads

	// pending holds the requests read and not yet answered, by id: the ids
	// in use, so that each request is answered once. An entry leaves it
	// just before its reply is written, so that a client may reuse the id
	// as soon as it can read the reply. cancelled holds the requests the
	// client cancelled while they ran: their replies are dropped (see
	// cancel).
	//
	// unanswered counts the requests read whose reply is not out yet (the
	// pending ones, and the replies being written), and unansweredBytes
	// the length of their lines. The reader waits while they are at their
	// limits (see admit), and the end of input waits for them (see drain).
	// settled receives a value, if it has room, whenever one is answered or
	// cancelled; drained is closed when none is left after the input ended.
	mu              sync.Mutex
	pending         map[jsonrpc.ID]request
	cancelled       map[jsonrpc.ID]string
	unanswered      int
	unansweredBytes int
	maxInFlight     int
	maxInFlightSize int
	settled         chan struct{}
	drained         chan struct{}

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// A request is a pending request: its method, for the logs, and the length
// of its line, in bytes.
type request struct {
	method string
	size   int
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
			case req.IsCall():
				tracked, err := c.admit(req, len(line))
				if err != nil {
					return nil, err
				}
				if !tracked {
					bad = &badMessage{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
						"invalid request: id %s is already in use by a request in flight", jsonID(req.ID))}
				}
			case req.Method == methodCancelled && !c.cancel(req):
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

// Read implements [mcp.Connection]. When the input ends it waits until
// every request read has been answered, or no reply has been written for
// the grace period, and then returns io.EOF: the SDK writes nothing after
// Read fails.
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

// Close implements [mcp.Connection]. It closes the input and the output,
// if they can be closed, so that a read or a write in progress returns,
// makes Read return io.EOF, and Write write nothing more.
//
// The output is closed first: when standard input and output are one
// socket, restoring blocking mode for the input would otherwise leave a
// write waiting in the poller to go on in a blocking system call.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		var errOut, errIn error
		if c.closeOut != nil {
			errOut = c.closeOut()
		}
		if c.closeIn != nil {
			errIn = c.closeIn()
		}
		c.closeErr = errors.Join(errOut, errIn)
	})
	return c.closeErr
}

// closeWhenDone closes the connection when ctx is done (see Connect).
func (c *conn) closeWhenDone(ctx context.Context) {
	select {
	case <-ctx.Done():
		if err := c.Close(); err != nil {
			c.log.Error("could not close the connection", "error", err)
		}
	case <-c.closed:
	}
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
