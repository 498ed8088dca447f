package stdio

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

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

// limits are the limits of a session that only tests change, and the
// clock and the kernel's count they stand in for.
type limits struct {
	maxInFlight, maxInFlightSize int
	after                        func(time.Duration) <-chan time.Time // the timer of a grace or run period, or of a look
	unreadOf                     func(io.Writer) func() (int, bool)   // unread_linux.go's
}

// Serve serves server over opts.In and opts.Out until the input has ended
// and each request read is answered or abandoned (GracePeriod, RunPeriod:
// see the package doc), a reply going out written whole, or, at once,
// until a write fails, whose error it returns, or ctx is done. Once it
// returns, handlers still running are left to end with the process.
func Serve(ctx context.Context, server *mcp.Server, opts Options) error {
	return serve(ctx, server, opts, limits{maxInFlight, maxInFlightSize, time.After, unreadOf})
}

func serve(ctx context.Context, server *mcp.Server, opts Options, lim limits) error {
	opts.MaxLine = cmp.Or(opts.MaxLine, MaxLine)
	opts.GracePeriod = cmp.Or(opts.GracePeriod, GracePeriod)
	opts.RunPeriod = cmp.Or(opts.RunPeriod, RunPeriod)
	c := &conn{opts: opts, limits: lim, log: cmp.Or(opts.Logger, slog.New(slog.DiscardHandler)),
		in: bufio.NewReaderSize(opts.In, 64<<10), out: opts.Out, unread: lim.unreadOf(opts.Out),
		calls: map[int64]*call{}, progress: make(chan struct{}, 1), read: make(chan struct{}, 1)}
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
	initialized    bool // initialize admitted
	notified       bool // its notifications/initialized passed on: once

	mu       sync.Mutex      // guards calls and lastID
	calls    map[int64]*call // the requests in flight, until their replies are out or dropped
	lastID   int64
	progress chan struct{} // a call has changed: its reply is going out, out, or dropped
	read     chan struct{} // the client has accepted a part of a reply

	outMu sync.Mutex // held from the check that a reply is wanted until it is out

	ctx  context.Context         // done once the conn is over
	stop context.CancelCauseFunc // ends the conn: errWrite if a write failed
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
// maxLine, read to its end but never held whole; the last line even
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
		c.cancel(msg.Cancels, msg.Reason)
	case req.Method == "notifications/initialized" && c.initialized && !c.notified:
		c.notified = true
		c.legacy.hand(req)
	default: // of no use here: a flood of them must not queue up in go-sdk
	}
}

// request hands a request admitted, under an id of the conn's own, to the
// session of its revision, once it is in flight.
func (c *conn) request(msg protocol.Message, size int) {
	req, s := msg.Request, c.legacy
	if msg.Modern {
		s = c.modern
	}
	id, err := c.enter(req, size, s)
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

// enter records a request as in flight, and returns the id go-sdk will
// know it by. While the calls in flight are at a limit, it waits for a
// reply: nothing reads the input, the pipe fills, the client's writes
// block. A request that reuses the id of one in flight is refused.
func (c *conn) enter(req *jsonrpc.Request, size int, s *session) (int64, error) {
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
		case <-c.ctx.Done():
		}
		c.mu.Lock()
		if c.ctx.Err() != nil {
			return 0, errClosed
		}
	}
	if c.find(req.ID) != nil {
		return 0, protocol.InUse(req.ID)
	}
	c.lastID++
	c.calls[c.lastID] = &call{id: req.ID, method: req.Method, size: size, session: s}
	return c.lastID, nil
}

// cancel marks the request in flight with the client's id, but initialize
// (MCP, "Cancellation"), as cancelled, its id free and its reply to be
// dropped, and hands the cancellation, under the id go-sdk knows, to its
// session; it ignores any other.
func (c *conn) cancel(id jsonrpc.ID, reason string) {
	if !id.IsValid() { // a bad one names no request
		return
	}
	c.mu.Lock()
	var cancelled *jsonrpc.Request
	var s *session
	for n, cl := range c.calls {
		if cl.id == id && !cl.idFree && cl.method != "initialize" {
			cl.cancelled, cl.idFree = true, true
			c.log.Info("request cancelled by the client; its reply will not be sent", "id", quoted(id.Raw()), "method", cl.method, "reason", quoted(reason))
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
	defer func() {
		c.mu.Lock()
		delete(c.calls, n)
		c.mu.Unlock()
		c.signal()
	}()
	c.mu.Lock()
	cl := c.calls[n]
	c.mu.Unlock()
	if cl == nil { // which cannot be: go-sdk answers each request it is handed once
		return nil
	}
	// Encoding a reply of megabytes takes seconds on a busy machine: it is
	// the handler's work, done before the reply waits for the output. The
	// client's id is never null: go-sdk's encoder will do.
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: cl.id, Result: resp.Result, Error: resp.Error})
	if err != nil {
		return err
	}
	c.mu.Lock()
	cl.ready = true
	c.mu.Unlock()
	if !c.outMu.TryLock() {
		c.log.Debug("a reply waits for the output", "id", quoted(cl.id.Raw()), "method", cl.method)
		c.outMu.Lock()
	}
	defer c.outMu.Unlock()
	c.mu.Lock()
	dropped := cl.cancelled
	cl.idFree = true // the client may reuse it as soon as it reads the reply
	c.mu.Unlock()
	if dropped {
		c.log.Info("dropped a reply to a request cancelled or abandoned", "id", quoted(cl.id.Raw()), "method", cl.method)
		return nil
	}
	c.signal() // a reply is going out: the client is to read it
	return c.send(data)
}

// refuse writes the error reply to a message refused before go-sdk saw
// it: under its id, but under null if a request in flight has that id
// (the message reused it), lest the client take the refusal for that
// request's answer.
func (c *conn) refuse(id jsonrpc.ID, err error) {
	c.mu.Lock()
	if c.find(id) != nil {
		id = jsonrpc.ID{}
	}
	c.mu.Unlock()
	c.reply(id, err)
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
// on read; a failed write (EPIPE: the client closed standard output) ends
// the session. outMu is held.
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

// signal says that a call has changed: its reply is going out, out, or
// dropped. There may be room for another request, and the end of input
// has progress to wait for.
func (c *conn) signal() {
	select {
	case c.progress <- struct{}{}:
	default:
	}
}

// drain waits, once the input has ended, until every request read is
// answered or abandoned, and ends the session (the rules are in the
// package doc). While a reply is going out, a GracePeriod in which the
// client makes no progress abandons the requests behind it: no part of the
// reply is accepted, and, where the kernel tells (unreadOf), what the
// client has not read does not go down, looked at every GracePeriod/5.
// The reply itself is waited for as long as the client takes, lest its
// line be cut (a signal still ends the server). Apart from that, a request
// still running RunPeriod after the end of input is abandoned.
func (c *conn) drain() {
	select {
	case <-c.read: // a part read before the input ended
	default:
	}
	runOut := c.limits.after(c.opts.RunPeriod)
	var stall <-chan time.Time // while a reply goes out: the client has made no progress for a grace period
	var look <-chan time.Time  // while a reply goes out: the next look at what the client has not read
	stalled := false
	unread := -1             // at the last look; -1: not known
	reading := func() bool { // whether the client has read some since the last look
		if c.unread == nil {
			return false
		}
		n, ok := c.unread()
		if !ok {
			return false
		}
		down := unread >= 0 && n < unread
		unread = n
		return down
	}
	for {
		c.mu.Lock()
		live, writing := c.count()
		c.mu.Unlock()
		if live == 0 {
			break
		}
		if !writing || stalled {
			stall, look = nil, nil
		} else {
			if stall == nil {
				stall = c.limits.after(c.opts.GracePeriod)
			}
			if look == nil && c.unread != nil {
				look = c.limits.after(c.opts.GracePeriod / 5)
			}
		}
		select {
		case <-c.read:
			stall = nil // a part was read: the period starts anew
		case <-look:
			look = nil
			if reading() {
				stall = nil
			}
		case <-c.progress:
		case <-c.ctx.Done():
			return
		case <-stall:
			if reading() {
				stall = nil
				continue
			}
			stalled = true
			c.abandon(func(cl *call) string {
				if cl.ready {
					return "abandoned a reply: the client made no progress reading the reply going out for the grace period"
				}
				return "abandoned a request still running: the client made no progress reading the reply going out for the grace period"
			})
			c.log.Warn("waiting for the client to read a reply going out: stopping would cut its line; a signal stops the server")
		case <-runOut:
			runOut = nil
			c.log.Debug("the run period after the end of input is over", "run_period", c.opts.RunPeriod)
			c.abandon(func(cl *call) string {
				if cl.ready {
					return "" // computed: it waits for the client to read
				}
				return "abandoned a request not yet answered a run period after the input ended"
			})
		}
	}
	c.stop(nil)
}

// count returns how many requests are neither answered nor dropped, and
// whether a reply is going out; mu is held.
func (c *conn) count() (live int, writing bool) {
	for _, cl := range c.calls {
		if !cl.cancelled {
			live++
			writing = writing || cl.idFree
		}
	}
	return live, writing
}

// abandon marks each request whose reply is not going out, and for which
// why gives a reason, as cancelled, and logs it with the reason.
func (c *conn) abandon(why func(*call) string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cl := range c.calls {
		if reason := why(cl); !cl.idFree && reason != "" {
			cl.cancelled, cl.idFree = true, true
			c.log.Error(reason, "id", quoted(cl.id.Raw()), "method", cl.method, "grace_period", c.opts.GracePeriod, "run_period", c.opts.RunPeriod)
		}
	}
}

// maxTrace is the longest line traced, in bytes.
const maxTrace = 16 << 10

// trace writes prefix and line to opts.Trace, if set, cut at maxTrace
// bytes, with every character a terminal acts on rather than shows (C0 and
// C1 controls, bidirectional overrides and other formatting characters)
// as \xNN or \uNNNN, and invalid UTF-8 as U+FFFD, so that a client's line
// cannot rewrite the terminal that shows it.
func (c *conn) trace(prefix string, line []byte) {
	if c.opts.Trace == nil {
		return
	}
	buf := []byte(prefix)
	for _, r := range string(line[:min(len(line), maxTrace)]) {
		switch {
		case r < 0x100 && !unicode.IsPrint(r) && r != ' ':
			buf = fmt.Appendf(buf, `\x%02x`, r)
		case !unicode.IsPrint(r) && r != ' ':
			buf = fmt.Appendf(buf, `\u%04x`, r)
		default:
			buf = utf8.AppendRune(buf, r)
		}
	}
	if len(line) > maxTrace {
		buf = fmt.Appendf(buf, "… (%d bytes in all)", len(line))
	}
	_, _ = c.opts.Trace.Write(append(buf, '\n')) // best effort
}

// quoted returns v, something a client sent, as a log line quotes it: cut
// to protocol.MaxQuote bytes.
func quoted(v any) string { return protocol.Cut(fmt.Sprint(v), protocol.MaxQuote) }
