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
	GracePeriod     = 5 * time.Second // after the input ends, the wait for a reply to move
	maxInFlight     = 64              // requests waiting for replies; one is always read
	maxInFlightSize = 16 << 20        // bytes of their lines
	writeChunk      = 4 << 10         // bytes a write, a page of a Linux pipe, which frees room a page at a time
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

	maxInFlight, maxInFlightSize, writeChunk int                                  // 0: the constants'
	after                                    func(time.Duration) <-chan time.Time // nil: time.After
	waiting                                  func()                               // nil: nothing; admit calls it as it waits
}

// Serve serves server over opts.In and opts.Out until the input has ended
// and each request read is answered or abandoned (GracePeriod), a reply
// going out written whole, or, at once, until a write fails, whose error
// it returns, or ctx is done. Once it returns, handlers still running are
// left to end with the process.
func Serve(ctx context.Context, server *mcp.Server, opts Options) error {
	protocol.LimitMemory()
	opts.Logger = cmp.Or(opts.Logger, slog.New(slog.DiscardHandler))
	opts.MaxLine = cmp.Or(opts.MaxLine, MaxLine)
	opts.GracePeriod = cmp.Or(opts.GracePeriod, GracePeriod)
	opts.maxInFlight = cmp.Or(opts.maxInFlight, maxInFlight)
	opts.maxInFlightSize = cmp.Or(opts.maxInFlightSize, maxInFlightSize)
	opts.writeChunk = cmp.Or(opts.writeChunk, writeChunk)
	if opts.after == nil {
		opts.after = time.After
	}
	if opts.waiting == nil {
		opts.waiting = func() {}
	}
	c := &conn{opts: opts, log: opts.Logger, in: bufio.NewReaderSize(cmp.Or[io.Reader](opts.In, os.Stdin), 64<<10),
		out: cmp.Or[io.Writer](opts.Out, os.Stdout), modern: make(chan jsonrpc.Message), calls: map[int64]*call{},
		progress: make(chan struct{}, 1), done: make(chan struct{})}
	for _, s := range []*session{{c, false}, {c, true}} {
		if _, err := server.Connect(ctx, s, nil); err != nil {
			return err
		}
	}
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		c.close(nil)
		return nil
	}
}

// A session is the transport of the legacy session or the modern one.
type session struct {
	c      *conn
	modern bool
}

func (s *session) Connect(context.Context) (mcp.Connection, error)  { return s, nil }
func (s *session) Write(_ context.Context, m jsonrpc.Message) error { return s.c.write(m) }
func (s *session) Close() error                                     { return nil }
func (s *session) SessionID() string                                { return "" }

// Read returns the session's next message: the legacy session reads the
// input itself, and hands the modern session its own.
func (s *session) Read(context.Context) (jsonrpc.Message, error) {
	if !s.modern {
		return s.c.next()
	}
	select {
	case msg := <-s.c.modern:
		return msg, nil
	case <-s.c.done:
		return nil, io.EOF
	}
}

// A conn reads lines, answers those go-sdk must not see, passes the others
// on under ids of its own, and writes replies under the client's ids.
type conn struct {
	opts        Options
	log         *slog.Logger
	in          *bufio.Reader
	long        []byte // a line longer than in's buffer, being read
	out         io.Writer
	modern      chan jsonrpc.Message
	initialized int // initialize read: 1; its notifications/initialized passed on: 2

	mu       sync.Mutex      // guards calls and lastID
	calls    map[int64]*call // the requests in flight, until their replies are out or dropped
	lastID   int64
	progress chan struct{} // a reply has moved

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
	modern    bool
	cancelled bool // its reply is to be dropped
	idFree    bool // cancelled, or its reply is going out: the client may reuse the id
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

// next reads lines until one holds a message for the legacy session,
// answering or handing on the others; at the end of input it drains.
func (c *conn) next() (jsonrpc.Message, error) {
	for !c.over() {
		line, err := c.readLine()
		var msg jsonrpc.Message
		switch {
		case errors.Is(err, errTooLong):
			err = protocol.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: message too large: a line may hold at most %d bytes", c.opts.MaxLine)
		case err != nil:
			c.drain()
			return nil, io.EOF
		default:
			msg, err = protocol.Decode(line)
		}
		var refusal *protocol.Refusal
		req, _ := msg.(*jsonrpc.Request)
		modern := false
		switch {
		case errors.As(err, &refusal):
			c.reply(refusal.ID, refusal.Err)
		case err != nil:
			c.reply(jsonrpc.ID{}, err)
		case req == nil:
			c.log.Warn("ignored a response: this server sends no requests", "id", msg.(*jsonrpc.Response).ID.Raw())
		case req.IsCall():
			req, modern = c.request(req, len(line))
		case req.Method == "notifications/cancelled":
			req, modern = c.cancel(req.Params)
		case req.Method == "notifications/initialized" && c.initialized == 1:
			c.initialized = 2
		default:
			req = nil // of no use here: a flood of them must not queue up in go-sdk
		}
		switch {
		case req == nil:
		case !modern:
			return req, nil
		default:
			select {
			case c.modern <- req:
			case <-c.done:
			}
		}
	}
	return nil, io.EOF
}

// request checks a request and returns it under an id of its own, with
// its era, or answers it and returns nil.
func (c *conn) request(req *jsonrpc.Request, size int) (*jsonrpc.Request, bool) {
	modern, err := c.opts.Methods.Check(req, "")
	switch {
	case err != nil || modern:
	case req.Method == "initialize" && c.initialized > 0: // go-sdk: code 0 (go-sdk#976)
		err = protocol.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: this session is initialized already; send initialize once, at the start")
	case req.Method == "initialize":
		c.initialized = 1
		req.Params = protocol.KeptOfInitialize(req.Params)
	case c.initialized == 0 && req.Method != "ping": // go-sdk: code 0 (go-sdk#976)
		err = protocol.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %q before initialize: send initialize first, "+
			`or, in MCP %s, give each request its protocol version in "_meta"`, req.Method, protocol.ModernVersion)
	}
	if err != nil {
		c.reply(req.ID, err)
		return nil, false
	}
	id, err := c.admit(req, size, modern)
	if err != nil {
		c.reply(jsonrpc.ID{}, err) // "id": null, lest it be taken for the answer to the request in flight
		return nil, false
	}
	sdkID, _ := jsonrpc.MakeID(float64(id))
	return &jsonrpc.Request{ID: sdkID, Method: req.Method, Params: req.Params}, modern
}

// admit records a request as in flight, and returns the id go-sdk will
// know it by. While the calls in flight are at a limit, it waits for a
// reply: nothing reads the input, the pipe fills, the client's writes
// block. A request that reuses the id of one in flight is refused.
func (c *conn) admit(req *jsonrpc.Request, size int, modern bool) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for held := 0; len(c.calls) > 0; held = 0 {
		for _, cl := range c.calls {
			held += cl.size
		}
		if len(c.calls) < c.opts.maxInFlight && held+size <= c.opts.maxInFlightSize {
			break
		}
		c.mu.Unlock()
		c.opts.waiting()
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
		return 0, protocol.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: id %s is in use by a request in flight", protocol.Cut(fmt.Sprint(req.ID.Raw()), 40))
	}
	c.lastID++
	c.calls[c.lastID] = &call{id: req.ID, method: req.Method, size: size, modern: modern}
	return c.lastID, nil
}

// find returns the call in flight, not cancelled, with the client's id;
// mu is held.
func (c *conn) find(id jsonrpc.ID) (found *call) {
	for _, cl := range c.calls {
		if cl.id == id && !cl.idFree {
			found = cl
		}
	}
	return found
}

func (c *conn) signal() {
	select {
	case c.progress <- struct{}{}:
	default:
	}
}

// cancel marks a request in flight, but initialize (MCP, "Cancellation"),
// as cancelled, its id free and its reply to be dropped, and returns the
// cancellation under the id go-sdk knows; it ignores any other.
func (c *conn) cancel(params json.RawMessage) (*jsonrpc.Request, bool) {
	var p struct {
		RequestID any `json:"requestId"`
		Reason    any `json:"reason"`
	}
	_ = json.Unmarshal(params, &p) // a bad one names no request
	key, _ := jsonrpc.MakeID(p.RequestID)
	c.mu.Lock()
	defer c.mu.Unlock()
	for n, cl := range c.calls {
		if cl.id == key && !cl.idFree && cl.method != "initialize" {
			cl.cancelled, cl.idFree = true, true
			c.log.Info("request cancelled by the client; its reply will not be sent", "id", key.Raw(), "method", cl.method, "reason", p.Reason)
			params, _ = json.Marshal(mcp.CancelledParams{RequestID: n})
			return &jsonrpc.Request{Method: "notifications/cancelled", Params: params}, cl.modern
		}
	}
	return nil, false
}

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

// reply writes the error reply to a message go-sdk does not see.
func (c *conn) reply(id jsonrpc.ID, err error) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	_ = c.send(&jsonrpc.Response{ID: id, Error: err}) // a failed write ends the session
}

// drain waits, once the input has ended, until every request read is
// answered, and ends the session. Once no reply has moved for the grace
// period, the requests not answered yet are abandoned, their replies never
// to be sent; a reply going out is waited for as long as its client takes
// to read it, lest its line be cut (a signal still ends the server).
func (c *conn) drain() {
	abandoned := false
	for {
		c.mu.Lock()
		left, writing := len(c.calls), false
		for _, cl := range c.calls {
			writing = writing || cl.idFree && !cl.cancelled
		}
		c.mu.Unlock()
		if left == 0 || abandoned && !writing {
			break
		}
		var timeout <-chan time.Time
		if !abandoned {
			timeout = c.opts.after(c.opts.GracePeriod)
		}
		select {
		case <-c.progress:
			continue
		case <-c.done:
		case <-timeout:
			abandoned = true
			c.abandon()
			continue
		}
		break
	}
	c.close(nil)
}

// abandon marks the requests whose replies are not going out as cancelled,
// and logs them, and the wait for a reply going out if there is one.
func (c *conn) abandon() {
	c.mu.Lock()
	defer c.mu.Unlock()
	writing := false
	for _, cl := range c.calls {
		writing = writing || cl.idFree && !cl.cancelled
		if !cl.idFree {
			cl.cancelled, cl.idFree = true, true
			c.log.Error("abandoned a request still running when the input ended", "id", cl.id.Raw(), "method", cl.method, "grace_period", c.opts.GracePeriod)
		}
	}
	if writing {
		c.log.Warn("waiting for the client to read a reply going out: stopping would cut its line; a signal stops the server")
	}
}

var errClosed = errors.New("stdio: the session is over")

// send writes msg as one line, in chunks; a failed write (EPIPE: the client
// closed standard output) ends the session.
func (c *conn) send(msg jsonrpc.Message) error {
	data, err := protocol.Encode(msg) // compact: no newline within
	if err != nil || c.over() {
		return cmp.Or(err, errClosed)
	}
	c.trace("write: ", data)
	for data = append(data, '\n'); len(data) > 0; data = data[min(len(data), c.opts.writeChunk):] {
		if _, err := c.out.Write(data[:min(len(data), c.opts.writeChunk)]); err != nil {
			c.close(fmt.Errorf("writing to standard output: %w", err))
			return err
		}
		c.signal()
	}
	return nil
}
