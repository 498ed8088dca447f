package stdio

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/internal/protocol"
)

// The limits of a session.
const (
	MaxLine         = 8 << 20         // bytes in a line: a million characters as \uXXXX; longer lines are skipped
	GracePeriod     = 5 * time.Second // after the input ends, the wait for a reply to go out
	maxInFlight     = 64              // requests waiting for replies; one is always read
	maxInFlightSize = 16 << 20        // bytes of their lines
)

// Options configure Serve. The zero Options answer no method.
type Options struct {
	In      io.Reader        // nil: os.Stdin
	Out     io.Writer        // nil: os.Stdout
	Methods protocol.Methods // see protocol.Served
	Logger  *slog.Logger     // what the client cannot be told; nil: nothing
	Trace   io.Writer        // if not nil, each line read and written, after "read: " or "write: "

	MaxLine     int           // 0: MaxLine
	GracePeriod time.Duration // 0: GracePeriod
}

// limits are the limits of a session that only tests change.
type limits struct {
	maxInFlight, maxInFlightSize int
	after                        func(time.Duration) <-chan time.Time // the grace period's timer
}

// Serve serves server over opts.In and opts.Out until the input has ended
// and each request read is answered or abandoned (GracePeriod), a reply
// going out written whole, or, at once, until a write fails, whose error
// it returns, or ctx is done. Once it returns, handlers still running are
// left to end with the process.
func Serve(ctx context.Context, server *mcp.Server, opts Options) error {
	return serve(ctx, server, opts, limits{maxInFlight, maxInFlightSize, time.After})
}

func serve(ctx context.Context, server *mcp.Server, opts Options, lim limits) error {
	opts.MaxLine = cmp.Or(opts.MaxLine, MaxLine)
	opts.GracePeriod = cmp.Or(opts.GracePeriod, GracePeriod)
	c := &conn{opts: opts, limits: lim, log: cmp.Or(opts.Logger, slog.New(slog.DiscardHandler)),
		in: bufio.NewReaderSize(cmp.Or[io.Reader](opts.In, os.Stdin), 64<<10), out: cmp.Or[io.Writer](opts.Out, os.Stdout),
		calls: map[int64]*call{}, progress: make(chan struct{}, 1), done: make(chan struct{})}
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
	legacy, modern *session
	initialized    int // initialize read: 1; its notifications/initialized passed on: 2

	mu       sync.Mutex      // guards calls and lastID
	calls    map[int64]*call // the requests in flight, until their replies are out or dropped
	lastID   int64
	progress chan struct{} // a reply has gone out, or been dropped

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
	idFree    bool // cancelled, or its reply is going out: the client may reuse the id
}

// readLoop reads the input a line at a time, and hands each message on.
// At the end of input it drains.
func (c *conn) readLoop() {
	for !c.over() {
		line, err := c.readLine()
		switch {
		case errors.Is(err, errTooLong):
			c.reply(jsonrpc.ID{}, protocol.Errorf(jsonrpc.CodeInvalidRequest,
				"invalid request: message too large: a line may hold at most %d bytes", c.opts.MaxLine))
		case err != nil:
			c.drain()
			return
		default:
			c.handle(line)
		}
	}
}

// handle decodes a line and hands its message on: a request, checked, to
// its session; a cancellation, to the session of the request it cancels;
// what go-sdk must not see, to its reply, or to nowhere.
func (c *conn) handle(line []byte) {
	msg, err := protocol.Decode(line)
	var refusal *protocol.Refusal
	switch req, _ := msg.(*jsonrpc.Request); {
	case errors.As(err, &refusal):
		c.reply(refusal.ID, refusal.Err)
	case err != nil:
		c.reply(jsonrpc.ID{}, err)
	case req == nil:
		c.log.Warn("ignored a response: this server sends no requests", "id", msg.(*jsonrpc.Response).ID.Raw())
	case req.IsCall():
		c.request(req, len(line))
	case req.Method == "notifications/cancelled":
		c.cancel(req.Params)
	case req.Method == "notifications/initialized" && c.initialized == 1:
		c.initialized = 2
		c.legacy.hand(req)
	default: // of no use here: a flood of them must not queue up in go-sdk
	}
}

// request checks a request and hands it, under an id of the conn's own, to
// the session of its revision, or answers it.
func (c *conn) request(req *jsonrpc.Request, size int) {
	modern, err := c.opts.Methods.Check(req, "")
	if err == nil && !modern {
		err = protocol.Handshake(req.Method, c.initialized > 0)
	}
	if err != nil {
		c.reply(req.ID, err)
		return
	}
	s := c.legacy
	if modern {
		s = c.modern
	} else if req.Method == "initialize" {
		c.initialized = 1
		req.Params = protocol.KeptOfInitialize(req.Params)
	}
	id, err := c.admit(req, size, s)
	if err != nil {
		c.reply(jsonrpc.ID{}, err) // "id": null, lest it be taken for the answer to the request in flight
		return
	}
	sdkID, _ := jsonrpc.MakeID(float64(id))
	s.hand(&jsonrpc.Request{ID: sdkID, Method: req.Method, Params: req.Params})
}

// admit records a request as in flight, and returns the id go-sdk will
// know it by. While the calls in flight are at a limit, it waits for a
// reply: nothing reads the input, the pipe fills, the client's writes
// block. A request that reuses the id of one in flight is refused.
func (c *conn) admit(req *jsonrpc.Request, size int, s *session) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for held := 0; len(c.calls) > 0; held = 0 {
		for _, cl := range c.calls {
			held += cl.size
		}
		if len(c.calls) < c.limits.maxInFlight && held+size <= c.limits.maxInFlightSize {
			break
		}
		c.log.Debug("waiting for a reply: the requests in flight are at their limit", "requests", len(c.calls), "bytes", held)
		c.mu.Unlock()
		select {
		case <-c.progress:
		case <-c.done:
		}
		c.mu.Lock()
		if c.over() {
			return 0, errClosed
		}
	}
	if c.find(req.ID) != nil {
		return 0, protocol.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: id %s is in use by a request in flight",
			protocol.Cut(fmt.Sprint(req.ID.Raw()), protocol.MaxQuote))
	}
	c.lastID++
	c.calls[c.lastID] = &call{id: req.ID, method: req.Method, size: size, session: s}
	return c.lastID, nil
}

// find returns the call in flight, not cancelled, with the client's id;
// mu is held.
func (c *conn) find(id jsonrpc.ID) *call {
	for _, cl := range c.calls {
		if cl.id == id && !cl.idFree {
			return cl
		}
	}
	return nil
}

// cancel marks a request in flight, but initialize (MCP, "Cancellation"),
// as cancelled, its id free and its reply to be dropped, and hands the
// cancellation, under the id go-sdk knows, to its session; it ignores any
// other.
func (c *conn) cancel(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
		Reason    any `json:"reason"`
	}
	_ = json.Unmarshal(params, &p) // a bad one names no request
	key, _ := jsonrpc.MakeID(p.RequestID)
	c.mu.Lock()
	var cancelled *jsonrpc.Request
	var s *session
	for n, cl := range c.calls {
		if cl.id == key && !cl.idFree && cl.method != "initialize" {
			cl.cancelled, cl.idFree = true, true
			c.log.Info("request cancelled by the client; its reply will not be sent", "id", key.Raw(), "method", cl.method, "reason", p.Reason)
			params, _ := json.Marshal(mcp.CancelledParams{RequestID: n})
			cancelled, s = &jsonrpc.Request{Method: "notifications/cancelled", Params: params}, cl.session
		}
	}
	c.mu.Unlock()
	if cancelled != nil {
		s.hand(cancelled)
	}
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
