package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/internal/protocol"
)

// The way in: readLoop reads a line (readLine), and handle hands its
// message forward, decoded and checked (package protocol), admitted, to
// the session of its revision.

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
		c.refuse(refusal.ID, refusal.Err)
	case err != nil:
		c.reply(jsonrpc.ID{}, err)
	case req == nil:
		c.log.Warn("ignored a response: this server sends no requests", "id", quoted(msg.(*jsonrpc.Response).ID.Raw()))
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
		c.refuse(req.ID, err)
		return
	}
	s := c.legacy
	if modern {
		s = c.modern
	} else if req.Method == "initialize" {
		req.Params = protocol.KeptOfInitialize(req.Params)
	}
	id, err := c.admit(req, size, s)
	if err != nil {
		c.refuse(req.ID, err)
		return
	}
	if !modern && req.Method == "initialize" {
		c.initialized = 1 // only once admitted: one refused leaves the client free to send it again
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
	key := protocol.CancelledID(params) // a bad one names no request
	if !key.IsValid() {
		return
	}
	var p struct {
		Reason any `json:"reason"` // for the log alone
	}
	_ = json.Unmarshal(params, &p)
	c.mu.Lock()
	var cancelled *jsonrpc.Request
	var s *session
	for n, cl := range c.calls {
		if cl.id == key && !cl.idFree && cl.method != "initialize" {
			cl.cancelled, cl.idFree = true, true
			c.log.Info("request cancelled by the client; its reply will not be sent", "id", quoted(key.Raw()), "method", cl.method, "reason", quoted(p.Reason))
			params, _ := json.Marshal(mcp.CancelledParams{RequestID: n})
			cancelled, s = &jsonrpc.Request{Method: "notifications/cancelled", Params: params}, cl.session
		}
	}
	c.mu.Unlock()
	if cancelled != nil {
		s.hand(cancelled)
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

// quoted returns v, something a client sent, as a log line quotes it: cut
// to protocol.MaxQuote bytes.
func quoted(v any) string { return protocol.Cut(fmt.Sprint(v), protocol.MaxQuote) }
