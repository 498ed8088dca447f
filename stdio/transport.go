package stdio

import (
	"context"
	"io"
	"log/slog"
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
// ended, for the next of the requests already read to be answered, when
// Transport.GracePeriod is 0. The wait starts again with every reply, so
// any number of requests may be answered, as long as one is every 5
// seconds; when none has been for that long, those still running are
// abandoned: logged, and left unanswered, and the connection closes.
const DefaultGracePeriod = 5 * time.Second

// DefaultMaxInFlight is how many requests a connection has read and not yet
// answered, at most, when Transport.MaxInFlight is 0. With that many, it
// reads no more of its input until one is answered.
const DefaultMaxInFlight = 64

// DefaultMaxInFlightSize is the total length of the lines of the requests a
// connection has read and not yet answered, in bytes, beyond which it reads
// no more of its input, when Transport.MaxInFlightSize is 0: 16 MiB. A
// request is always read when none is unanswered, whatever its length (up
// to the MaxMessageSize), so with the default sizes two of the longest
// requests can run at once.
const DefaultMaxInFlightSize = 16 << 20

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
	// nil means standard output. Closing the connection does not close it,
	// but when it is standard output, a pipe or a socket, a write in
	// progress is interrupted.
	Writer io.Writer

	// MaxMessageSize is the longest line accepted, in bytes, without its
	// newline. 0 means DefaultMaxMessageSize.
	MaxMessageSize int
	// GracePeriod bounds the wait for replies once the input has ended:
	// requests still unanswered are abandoned when none has been answered
	// for this long. 0 means DefaultGracePeriod.
	GracePeriod time.Duration
	// MaxInFlight and MaxInFlightSize bound the requests read and not yet
	// answered, in number and in total line length (bytes). At either
	// limit the connection stops reading its input until a reply is out,
	// so a client that sends faster than it reads replies is made to wait,
	// not left to fill the server's memory. 0 means DefaultMaxInFlight and
	// DefaultMaxInFlightSize.
	//
	// The server's handlers must not wait on a request of their own to the
	// client (sampling, elicitation, roots/list) while the limit holds: the
	// client's response would not be read. This server makes none.
	MaxInFlight     int
	MaxInFlightSize int

	// Trace, if not nil, receives a line for every message read ("read: "
	// and the line as it arrived) and written ("write: " and the line).
	// Lines longer than 16 KiB are cut short.
	Trace io.Writer
	// Logger, if not nil, receives what the peer cannot be told: requests
	// abandoned at the end of input, malformed responses, replies dropped
	// because their request was already answered or was cancelled.
	Logger *slog.Logger
}

// Connect implements [mcp.Transport]. When ctx is done, the connection
// closes: a read or a write in progress is interrupted, where it can be.
// The SDK's Server.Run waits, on cancellation, for every request in flight
// to be answered before it closes the connection; but a reply to a client
// that has stopped reading can wait for ever, so a signal that cancels ctx
// would not end the process.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c := &conn{
		out:             t.Writer,
		maxSize:         t.MaxMessageSize,
		grace:           t.GracePeriod,
		maxInFlight:     t.MaxInFlight,
		maxInFlightSize: t.MaxInFlightSize,
		trace:           t.Trace,
		log:             t.Logger,
		closed:          make(chan struct{}),
		settled:         make(chan struct{}, 1),
		pending:         make(map[jsonrpc.ID]request),
		cancelled:       make(map[jsonrpc.ID]string),
	}
	in := t.Reader
	if in == nil {
		in, c.closeIn = openStdin()
	} else if cl, ok := in.(io.Closer); ok {
		c.closeIn = cl.Close
	}
	if c.out == nil {
		c.out, c.closeOut = openStdout()
	}
	if c.maxSize <= 0 {
		c.maxSize = DefaultMaxMessageSize
	}
	if c.grace <= 0 {
		c.grace = DefaultGracePeriod
	}
	if c.maxInFlight <= 0 {
		c.maxInFlight = DefaultMaxInFlight
	}
	if c.maxInFlightSize <= 0 {
		c.maxInFlightSize = DefaultMaxInFlightSize
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.lines = newLineReader(in, c.maxSize)
	if c.closeIn == nil {
		c.incoming = make(chan readResult)
		go c.readLoop()
	}
	go c.closeWhenDone(ctx)
	return c, nil
}
