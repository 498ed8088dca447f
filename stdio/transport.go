package stdio

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessageSize is the longest line, in bytes without its newline,
// that a connection accepts when Transport.MaxMessageSize is 0: 8 MiB, room
// for a tools/call of a million characters even if every one of them is
// sent as a six-byte \uXXXX escape. A longer line is answered with -32600
// and skipped as it is read, so it never sits in memory whole.
const DefaultMaxMessageSize = 8 << 20

// DefaultGracePeriod is how long a connection waits, once its input has
// ended, for the requests already read to be answered, when
// Transport.GracePeriod is 0. A request still running after it is
// abandoned: logged, and left unanswered.
const DefaultGracePeriod = 5 * time.Second

// A Transport is an [mcp.Transport] that carries JSON-RPC 2.0 messages over
// a pair of byte streams, one message per line, as the MCP stdio transport
// specifies. The zero Transport reads standard input and writes standard
// output.
//
// A Transport is used for one connection.
type Transport struct {
	// Reader is where messages are read from; nil means standard input.
	// If it is an io.Closer, closing the connection closes it, which is
	// how a pending read is interrupted.
	Reader io.Reader
	// Writer is where messages are written, one Write call per message;
	// nil means standard output. Closing the connection does not close it.
	Writer io.Writer

	// MaxMessageSize is the longest line accepted, in bytes, without its
	// newline. 0 means DefaultMaxMessageSize.
	MaxMessageSize int
	// GracePeriod bounds the wait for replies once the input has ended.
	// 0 means DefaultGracePeriod.
	GracePeriod time.Duration

	// Trace, if not nil, receives a line for every message read ("read: "
	// and the line as it arrived) and written ("write: " and the line).
	// Lines longer than 16 KiB are cut short.
	Trace io.Writer
	// Logger, if not nil, receives what the peer cannot be told: requests
	// abandoned at the end of input, malformed responses, replies dropped
	// because their request was already answered or was cancelled.
	Logger *slog.Logger
}

// Connect implements [mcp.Transport].
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	c := &conn{
		out:       t.Writer,
		maxSize:   t.MaxMessageSize,
		grace:     t.GracePeriod,
		trace:     t.Trace,
		log:       t.Logger,
		closed:    make(chan struct{}),
		pending:   make(map[jsonrpc.ID]string),
		cancelled: make(map[jsonrpc.ID]string),
	}
	in := t.Reader
	if in == nil {
		in, c.closeIn = openStdin()
	} else if cl, ok := in.(io.Closer); ok {
		c.closeIn = cl.Close
	}
	if c.out == nil {
		c.out = os.Stdout
	}
	if c.maxSize <= 0 {
		c.maxSize = DefaultMaxMessageSize
	}
	if c.grace <= 0 {
		c.grace = DefaultGracePeriod
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.lines = newLineReader(in, c.maxSize)
	if c.closeIn == nil {
		c.incoming = make(chan readResult)
		go c.readLoop()
	}
	return c, nil
}
