package stdio

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/internal/protocol"
)

// The defaults of Options.
const (
	// DefaultMaxMessageSize is the longest line accepted, in bytes: room
	// for a million characters sent as six-byte \uXXXX escapes. A longer
	// line is answered with -32600 and skipped, never held whole.
	DefaultMaxMessageSize = 8 << 20
	// A request is always read when none is unanswered, whatever its size.
	DefaultMaxInFlight     = 64
	DefaultMaxInFlightSize = 16 << 20
	// Once the input has ended, the requests left are abandoned when no
	// reply has gone out for this long.
	DefaultGracePeriod = 5 * time.Second
)

// closeWait bounds the wait for the SDK's sessions to end after the input
// has: a handler may be blocked writing to a client that stopped reading.
const closeWait = time.Second

// Options configure Serve. The zero Options answer no method.
type Options struct {
	In  io.Reader // where messages are read; nil means os.Stdin
	Out io.Writer // where they are written, a line at a time; nil means os.Stdout

	Methods protocol.Methods // the methods answered (see protocol.Served); others get -32601
	// Logger receives what the client cannot be told: requests abandoned,
	// replies dropped, responses ignored. nil: none.
	Logger *slog.Logger
	// Trace, if not nil, receives each line read and written, after "read: "
	// or "write: ", cut at 16 KiB. It must be safe for concurrent use.
	Trace io.Writer

	MaxMessageSize  int           // 0 means DefaultMaxMessageSize
	MaxInFlight     int           // 0 means DefaultMaxInFlight
	MaxInFlightSize int           // 0 means DefaultMaxInFlightSize
	GracePeriod     time.Duration // 0 means DefaultGracePeriod
}

// Serve serves server over opts.In and opts.Out until the input has ended
// and every request read is answered (or abandoned: DefaultGracePeriod),
// the client has closed the output, or, at once, ctx is done. The server
// has two sessions: one for requests with their protocol version in _meta,
// one for the initialize handshake and what follows it.
func Serve(ctx context.Context, server *mcp.Server, opts Options) error {
	c := newConn(opts)
	for _, s := range c.sessions {
		var err error
		if s.ss, err = server.Connect(ctx, s, nil); err != nil {
			c.close()
			return err
		}
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		// The legacy session may be in a read of the input that nothing
		// interrupts: do not wait for it.
		c.close()
		return nil
	}
	ended := make(chan struct{})
	go func() {
		for _, s := range c.sessions {
			_ = s.ss.Wait() // the session's errors are the end of input, which is no error here
		}
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(closeWait):
		c.log.Warn("stopped without waiting for handlers still writing", "after", closeWait)
	}
	return nil
}

// A sessionConn is the mcp.Transport, and mcp.Connection, of one of the
// two sessions: the messages of its era, read by the conn, and its replies.
type sessionConn struct {
	c   *conn
	era protocol.Era
	ss  *mcp.ServerSession
}

func (s *sessionConn) Connect(context.Context) (mcp.Connection, error) { return s, nil }

// Read returns the next message for the session, or io.EOF once it is
// over. The legacy session reads the input itself (conn.next), which hands
// the modern session its messages.
func (s *sessionConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if s.era == protocol.Legacy {
		return s.c.next()
	}
	select {
	case msg := <-s.c.modern:
		return msg, nil
	case <-s.c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *sessionConn) Write(_ context.Context, msg jsonrpc.Message) error { return s.c.write(msg) }
func (s *sessionConn) Close() error                                       { return nil }
func (s *sessionConn) SessionID() string                                  { return "" }

// A conn reads the client's lines, answers those the SDK must not see,
// hands the rest to the session of their era, and writes the replies under
// the ids the client gave.
type conn struct {
	opts     Options
	in       *bufio.Reader
	long     []byte // a line longer than in's buffer, being read
	log      *slog.Logger
	sessions []*sessionConn
	modern   chan jsonrpc.Message // to the modern session

	outMu sync.Mutex // held while a line is written, so that lines never interleave

	// calls are the requests in flight by the id the SDK knows them by,
	// never reused; ids maps the client's ids of those not cancelled to it.
	// unanswered and unansweredBytes count them and their lines until each
	// is answered or cancelled, which signals progress.
	mu              sync.Mutex
	calls           map[int64]*call
	ids             map[string]int64
	lastID          int64
	unanswered      int
	unansweredBytes int
	progress        chan struct{}
	initialized     bool // notifications/initialized has gone to the legacy session

	done      chan struct{} // closed when the session is over
	closeOnce sync.Once
}

// A call is a request in flight.
type call struct {
	id        json.RawMessage // the client's id, as the reply carries it
	method    string
	size      int // the length of its line, in bytes
	era       protocol.Era
	cancelled bool
}

func newConn(opts Options) *conn {
	opts.In = cmp.Or[io.Reader](opts.In, os.Stdin)
	opts.Out = cmp.Or[io.Writer](opts.Out, os.Stdout)
	opts.Logger = cmp.Or(opts.Logger, slog.New(slog.DiscardHandler))
	opts.MaxMessageSize = cmp.Or(opts.MaxMessageSize, DefaultMaxMessageSize)
	opts.MaxInFlight = cmp.Or(opts.MaxInFlight, DefaultMaxInFlight)
	opts.MaxInFlightSize = cmp.Or(opts.MaxInFlightSize, DefaultMaxInFlightSize)
	opts.GracePeriod = cmp.Or(opts.GracePeriod, DefaultGracePeriod)
	c := &conn{
		opts:     opts,
		in:       bufio.NewReaderSize(opts.In, 64<<10),
		log:      opts.Logger,
		calls:    map[int64]*call{},
		ids:      map[string]int64{},
		progress: make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	c.modern = make(chan jsonrpc.Message)
	c.sessions = []*sessionConn{{c: c, era: protocol.Legacy}, {c: c, era: protocol.Modern}}
	return c
}

// close ends the session: the sessions' Read returns io.EOF, and nothing
// more is written.
func (c *conn) close() { c.closeOnce.Do(func() { close(c.done) }) }
