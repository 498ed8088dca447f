package stdio

// The requests in flight: each under an id of the transport's own, from
// the line read until its reply is out or dropped. go-sdk looks a
// cancellation up on a goroutine of its own, so under the client's ids it
// could cancel a later request that reuses the id; under ids it never
// sees twice, it cannot.

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/internal/protocol"
)

// A flight is the table of requests in flight, by the id go-sdk knows
// each by, within maxCalls requests and maxSize bytes of their lines.
type flight struct {
	maxCalls, maxSize int
	log               *slog.Logger
	progress          chan struct{} // a call has changed state, or left

	mu     sync.Mutex
	calls  map[int64]*call
	lastID int64
}

func newFlight(lim limits, log *slog.Logger) *flight {
	return &flight{maxCalls: lim.maxInFlight, maxSize: lim.maxInFlightSize, log: log,
		progress: make(chan struct{}, 1), calls: map[int64]*call{}}
}

// A call is a request in flight.
type call struct {
	id      jsonrpc.ID // the client's
	method  string
	size    int
	session *session
	state   state
}

// A state is where a call is on its way; it only moves forward.
type state int

const (
	running  state = iota // its handler computes the reply
	computed              // the reply waits for the output
	sending               // the reply is going out: the client may reuse the id once it reads it
	dropped               // cancelled or abandoned: its reply is not sent
)

// idFree reports whether the client may send the call's id again.
func (cl *call) idFree() bool { return cl.state >= sending }

// enter records a request as in flight, and returns the id go-sdk will
// know it by. At the limits it waits for a reply: nothing reads the
// input, the pipe fills, the client's writes block. A request that reuses
// the id of one in flight is refused.
func (f *flight) enter(ctx context.Context, req *jsonrpc.Request, size int, s *session) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for held := 0; len(f.calls) > 0; held = 0 {
		for _, cl := range f.calls {
			held += cl.size
		}
		if len(f.calls) < f.maxCalls && held+size <= f.maxSize {
			break
		}
		f.log.Debug("waiting for a reply: the requests in flight are at their limit", "requests", len(f.calls), "bytes", held)
		f.mu.Unlock()
		select {
		case <-f.progress:
		case <-ctx.Done():
		}
		f.mu.Lock()
		if ctx.Err() != nil {
			return 0, errClosed
		}
	}
	if f.find(req.ID) != nil {
		return 0, protocol.InUse(req.ID)
	}
	f.lastID++
	f.calls[f.lastID] = &call{id: req.ID, method: req.Method, size: size, session: s}
	return f.lastID, nil
}

// cancel drops the reply to the call with the client's id, unless it is
// initialize (MCP, "Cancellation"), and returns the cancellation to hand
// its session, under the id go-sdk knows; nil if no call is cancelled.
func (f *flight) cancel(id jsonrpc.ID, reason string) (*jsonrpc.Request, *session) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for n, cl := range f.calls {
		if cl.id == id && !cl.idFree() && cl.method != "initialize" {
			cl.state = dropped
			f.log.Info("request cancelled by the client; its reply will not be sent", "id", quoted(id.Raw()), "method", cl.method, "reason", quoted(reason))
			params, _ := json.Marshal(mcp.CancelledParams{RequestID: n})
			return &jsonrpc.Request{Method: "notifications/cancelled", Params: params}, cl.session
		}
	}
	return nil, nil
}

// inUse reports whether a call in flight holds the client's id.
func (f *flight) inUse(id jsonrpc.ID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.find(id) != nil
}

// find returns the call whose id the client may not reuse yet; mu is held.
func (f *flight) find(id jsonrpc.ID) *call {
	for _, cl := range f.calls {
		if cl.id == id && !cl.idFree() {
			return cl
		}
	}
	return nil
}

// get returns the call go-sdk knows by n, nil if none.
func (f *flight) get(n int64) *call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[n]
}

// computed says the call's reply is computed, and waits for the output.
func (f *flight) computed(cl *call) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cl.state == running {
		cl.state = computed
	}
}

// goOut moves the call's reply to going out, and reports whether it goes:
// not if it was dropped.
func (f *flight) goOut(cl *call) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cl.state == dropped {
		return false
	}
	cl.state = sending
	f.signal() // the end of input is to wait for the client to read it
	return true
}

// leave takes the call go-sdk knows by n off the table.
func (f *flight) leave(n int64) {
	f.mu.Lock()
	delete(f.calls, n)
	f.mu.Unlock()
	f.signal()
}

// signal wakes what waits for a call to change: a request waiting for
// room, or the end of input.
func (f *flight) signal() {
	select {
	case f.progress <- struct{}{}:
	default:
	}
}

// count returns how many calls are not dropped, and whether a reply is
// going out.
func (f *flight) count() (live int, writing bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, cl := range f.calls {
		if cl.state != dropped {
			live++
			writing = writing || cl.state == sending
		}
	}
	return live, writing
}

// abandon drops each call whose reply is not going out and for which why
// gives a reason, and logs it with the reason and attrs.
func (f *flight) abandon(why func(*call) string, attrs ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, cl := range f.calls {
		if reason := why(cl); !cl.idFree() && reason != "" {
			cl.state = dropped
			f.log.Error(reason, append([]any{"id", quoted(cl.id.Raw()), "method", cl.method}, attrs...)...)
		}
	}
}
