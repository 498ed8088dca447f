package stdio

// The transport: Serve, the read loop, go-sdk's two sessions, and the
// write. A line is read, admitted, entered in flight, handed to the
// session of its revision; its reply comes back through write.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
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

// limits are what only tests change: the limits in flight, and the clock
// and the kernel's count they stand in for.
type limits struct {
	maxInFlight, maxInFlightSize int
	after                        func(time.Duration) <-chan time.Time // the timer of a grace or run period, or of a look
	unreadOf                     func(io.Writer) func() (int, bool)   // unread_linux.go's
}

// Serve serves server over opts.In and opts.Out until the input has ended
// and each request read is answered or abandoned (see drain.go),
// or, at once, until a write fails, whose error it returns, or ctx is
// done. Handlers still running are left to end with the process.
func Serve(ctx context.Context, server *mcp.Server, opts Options) error {
	return serve(ctx, server, opts, limits{maxInFlight, maxInFlightSize, time.After, unreadOf})
}

func serve(ctx context.Context, server *mcp.Server, opts Options, lim limits) error {
	opts.MaxLine = cmp.Or(opts.MaxLine, MaxLine)
	opts.GracePeriod = cmp.Or(opts.GracePeriod, GracePeriod)
	opts.RunPeriod = cmp.Or(opts.RunPeriod, RunPeriod)
	c := &conn{opts: opts, limits: lim, log: cmp.Or(opts.Logger, slog.New(slog.DiscardHandler)),
		in: bufio.NewReaderSize(opts.In, 64<<10), out: opts.Out, unread: lim.unreadOf(opts.Out), read: make(chan struct{}, 1)}
	c.flight = newFlight(lim, c.log)
	c.ctx, c.stop = context.WithCancelCause(ctx)
	c.legacy, c.modern = &session{c, make(chan jsonrpc.Message)}, &session{c, make(chan jsonrpc.Message)}
	for _, s := range []*session{c.legacy, c.modern} {
		if _, err := server.Connect(ctx, s, nil); err != nil {
			c.stop(err)
			return err
		}
	}
	go c.readLoop()
	<-c.ctx.Done()
	if err := context.Cause(c.ctx); errors.Is(err, errWrite) {
		return err
	}
	return nil // ctx is done, or every request is answered or abandoned
}

// A conn reads lines and hands each message on: a request to the session
// of its revision, under an id of the flight's; what go-sdk must not see,
// to its reply. It writes replies under the client's ids.
type conn struct {
	opts           Options
	limits         limits
	log            *slog.Logger
	in             *bufio.Reader
	long           []byte // a line longer than in's buffer, being read
	legacy, modern *session
	initialized    bool // initialize admitted
	notified       bool // its notifications/initialized passed on: once
	flight         *flight

	outMu  sync.Mutex // held from the check that a reply is wanted until it is out
	out    io.Writer
	read   chan struct{}      // the client has accepted a part of a reply
	unread func() (int, bool) // what the client has not read of out, if the kernel tells

	ctx  context.Context         // done once the conn is over
	stop context.CancelCauseFunc // ends the conn: errWrite if a write failed
}

// readLoop reads the input a line at a time, and hands each message on.
// At the end of input it drains.
func (c *conn) readLoop() {
	for c.ctx.Err() == nil {
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

var errTooLong = errors.New("line too long")

// readLine returns the next line that is not blank, without its "\n" or
// "\r\n", valid until the next call; errTooLong for a line longer than
// MaxLine, read to its end but never held whole; the last line even
// without "\n"; then the error that ended the input.
func (c *conn) readLine() ([]byte, error) {
	for c.long = c.long[:0]; ; {
		frag, err := c.in.ReadSlice('\n')
		if len(c.long)+len(frag) > c.opts.MaxLine+len("\r\n") { // never held whole
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = c.in.ReadSlice('\n')
			}
			return nil, c.tooLong()
		}
		line := frag
		if len(c.long) > 0 || errors.Is(err, bufio.ErrBufferFull) {
			c.long = append(c.long, frag...)
			line = c.long
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && len(line) == 0:
			return nil, err
		}
		c.long = c.long[:0]
		switch line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")); {
		case len(line) > c.opts.MaxLine: // by a byte or two
			return nil, c.tooLong()
		case len(bytes.Trim(line, " \t\r")) > 0:
			c.trace("read: ", line)
			return line, nil
		}
	}
}

func (c *conn) tooLong() error {
	c.trace("read: ", fmt.Appendf(nil, "(a line of more than %d bytes, skipped)", c.opts.MaxLine))
	return errTooLong
}

// handle has a line's message admitted (package protocol) and hands it
// on: a request to the session of its revision; a cancellation to the
// session of the request it cancels; what go-sdk must not see to its
// reply, or to nowhere.
func (c *conn) handle(line []byte) {
	msg, err := c.opts.Methods.Admit(line, "", c.initialized)
	var refusal *protocol.Refusal
	switch req := msg.Request; {
	case errors.As(err, &refusal) && (req == nil || req.IsCall()):
		c.refuse(refusal.ID, refusal.Err)
	case err != nil: // a notification refused: JSON-RPC answers none
	case msg.Response != nil:
		c.log.Warn("ignored a response: this server sends no requests", "id", quoted(msg.Response.ID.Raw()))
	case req.IsCall():
		c.request(msg, len(line))
	case req.Method == "notifications/cancelled":
		if cancelled, s := c.flight.cancel(msg.Cancels, msg.Reason); cancelled != nil {
			s.hand(cancelled)
		}
	case req.Method == "notifications/initialized" && c.initialized && !c.notified:
		c.notified = true
		c.legacy.hand(req)
	default: // of no use here: a flood of them must not queue up in go-sdk
	}
}

// request hands a request admitted, under the id the flight gives it, to
// the session of its revision.
func (c *conn) request(msg protocol.Message, size int) {
	req, s := msg.Request, c.legacy
	if msg.Modern {
		s = c.modern
	}
	id, err := c.flight.enter(c.ctx, req, size, s)
	if err != nil {
		c.refuse(req.ID, err)
		return
	}
	if !msg.Modern && req.Method == "initialize" {
		c.initialized = true // only once in flight: one refused leaves the client free to send it again
	}
	sdkID, _ := jsonrpc.MakeID(float64(id))
	s.hand(&jsonrpc.Request{ID: sdkID, Method: req.Method, Params: req.Params})
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
	case <-s.c.ctx.Done():
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
	case <-s.c.ctx.Done():
		return nil, io.EOF
	}
}

// write writes a session's reply under the client's id, unless the request
// was cancelled, or abandoned, before the reply took the output.
func (c *conn) write(msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok { // no tool here notifies, and go-sdk sends no request unless asked to (KeepAlive)
		return fmt.Errorf("stdio: this transport sends replies only, not a %T", msg)
	}
	n, _ := resp.ID.Raw().(int64)
	defer c.flight.leave(n)
	cl := c.flight.get(n)
	if cl == nil { // which cannot be: go-sdk answers each request it is handed once
		return nil
	}
	// Encoding a reply of megabytes takes seconds on a busy machine: it is
	// the handler's work, done before the reply waits for the output.
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: cl.id, Result: resp.Result, Error: resp.Error})
	if err != nil {
		return err
	}
	c.flight.computed(cl)
	if !c.outMu.TryLock() {
		c.log.Debug("a reply waits for the output", "id", quoted(cl.id.Raw()), "method", cl.method)
		c.outMu.Lock()
	}
	defer c.outMu.Unlock()
	if !c.flight.goOut(cl) {
		c.log.Info("dropped a reply to a request cancelled or abandoned", "id", quoted(cl.id.Raw()), "method", cl.method)
		return nil
	}
	return c.send(data)
}

// refuse writes the error reply to a message refused before go-sdk saw
// it: under its id, but under null if a request in flight has that id,
// lest the client take the refusal for that request's answer.
func (c *conn) refuse(id jsonrpc.ID, err error) {
	if c.flight.inUse(id) {
		id = jsonrpc.ID{}
	}
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

var (
	errClosed = errors.New("stdio: the session is over")
	errWrite  = errors.New("writing to standard output")
)

// send writes data, one message, as a line, in parts of
// MinReadRate×GracePeriod bytes, each part the client accepts signalled
// on read, for the drain; a failed write (EPIPE: the client closed
// standard output) ends the session. outMu is held.
func (c *conn) send(data []byte) error {
	if c.ctx.Err() != nil {
		return errClosed
	}
	c.trace("write: ", data)
	part := max(1, int(MinReadRate*c.opts.GracePeriod.Seconds()))
	for data = append(data, '\n'); len(data) > 0; {
		n := min(part, len(data))
		if _, err := c.out.Write(data[:n]); err != nil {
			c.stop(fmt.Errorf("%w: %w", errWrite, err))
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
