package stdio

import (
	"bufio"
	"cmp"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/internal/protocol"
)

// The limits of a session; exported, those that docs/limits.md states, for
// its test.
const (
	MaxLine         = 8 << 20         // bytes in a line: a million characters as \uXXXX; longer lines are skipped
	GracePeriod     = 5 * time.Second // after the input ends, the longest a client may make no progress reading a reply going out
	MinReadRate     = 1 << 10         // bytes a second: a reply goes out in parts of MinReadRate×GracePeriod bytes
	RunPeriod       = time.Minute     // after the input ends, the longest a request is waited for to be computed
	maxInFlight     = 64              // requests waiting for replies; one is always read
	maxInFlightSize = 16 << 20        // bytes of their lines
)

// Options configure Serve. The zero Options answer no method.
type Options struct {
	In      io.Reader        // standard input, as a rule
	Out     io.Writer        // standard output, as a rule
	Methods protocol.Methods // see protocol.Served
	Logger  *slog.Logger     // what the client cannot be told; nil: nothing
	Trace   io.Writer        // if not nil, each line read and written, after "read: " or "write: "

	MaxLine     int           // 0: MaxLine
	GracePeriod time.Duration // 0: GracePeriod
	RunPeriod   time.Duration // 0: RunPeriod
}

// limits are the limits of a session that only tests change.
type limits struct {
	maxInFlight, maxInFlightSize int
	after                        func(time.Duration) <-chan time.Time // the timer of a grace or run period
}

// Serve serves server over opts.In and opts.Out until the input has ended
// and each request read is answered or abandoned (GracePeriod, RunPeriod:
// see the package doc), a reply going out written whole, or, at once,
// until a write fails, whose error it returns, or ctx is done. Once it
// returns, handlers still running are left to end with the process.
func Serve(ctx context.Context, server *mcp.Server, opts Options) error {
	return serve(ctx, server, opts, limits{maxInFlight, maxInFlightSize, time.After})
}

func serve(ctx context.Context, server *mcp.Server, opts Options, lim limits) error {
	opts.MaxLine = cmp.Or(opts.MaxLine, MaxLine)
	opts.GracePeriod = cmp.Or(opts.GracePeriod, GracePeriod)
	opts.RunPeriod = cmp.Or(opts.RunPeriod, RunPeriod)
	c := &conn{opts: opts, limits: lim, log: cmp.Or(opts.Logger, slog.New(slog.DiscardHandler)),
		in: bufio.NewReaderSize(opts.In, 64<<10), out: opts.Out, unread: unreadOf(opts.Out),
		calls: map[int64]*call{}, progress: make(chan struct{}, 1), read: make(chan struct{}, 1), done: make(chan struct{})}
	c.legacy, c.modern = &session{c, make(chan jsonrpc.Message)}, &session{c, make(chan jsonrpc.Message)}
	for _, s := range []*session{c.legacy, c.modern} {
		if _, err := server.Connect(ctx, s, nil); err != nil {
			return err
		}
	}
	go c.readLoop()
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		c.close(nil)
		return nil
	}
}

// A conn reads lines and pushes each message forward: a request to the
// session of its revision, under an id of the conn's own, or, for what
// go-sdk must not see, to its reply. It writes replies under the client's
// ids.
type conn struct {
	opts           Options
	limits         limits
	log            *slog.Logger
	in             *bufio.Reader
	long           []byte // a line longer than in's buffer, being read
	out            io.Writer
	unread         func() (int, bool) // what the client has not read of out, if the kernel tells (unread_linux.go)
	legacy, modern *session
	initialized    int // initialize admitted: 1; its notifications/initialized passed on: 2

	mu       sync.Mutex      // guards calls and lastID
	calls    map[int64]*call // the requests in flight, until their replies are out or dropped
	lastID   int64
	progress chan struct{} // a call has changed: its reply is going out, out, or dropped
	read     chan struct{} // the client has accepted a part of a reply

	outMu     sync.Mutex // held from the check that a reply is wanted until it is out
	done      chan struct{}
	closeOnce sync.Once
	err       error // why, if a write failed; set before done is closed
}

// A call is a request in flight, by the id go-sdk knows it by.
type call struct {
	id        jsonrpc.ID // the client's
	method    string
	size      int
	session   *session
	cancelled bool // its reply is to be dropped
	ready     bool // its reply is computed: waiting for the output, or going out
	idFree    bool // cancelled, or its reply is going out: the client may reuse the id
}

// A session is the transport of one of go-sdk's two sessions, legacy and
// modern: it reads what the conn hands it, and writes through the conn.
type session struct {
	c    *conn
	read chan jsonrpc.Message
}

// hand gives the session a message to read, unless the conn is over.
func (s *session) hand(msg jsonrpc.Message) {
	select {
	case s.read <- msg:
	case <-s.c.done:
	}
}

func (s *session) Connect(context.Context) (mcp.Connection, error)  { return s, nil }
func (s *session) Write(_ context.Context, m jsonrpc.Message) error { return s.c.write(m) }
func (s *session) Close() error                                     { return nil }
func (s *session) SessionID() string                                { return "" }

func (s *session) Read(context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-s.read:
		return msg, nil
	case <-s.c.done:
		return nil, io.EOF
	}
}

func (c *conn) close(err error) {
	c.closeOnce.Do(func() { c.err = err; close(c.done) })
}

func (c *conn) over() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}
