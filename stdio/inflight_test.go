package stdio

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pings returns n ping requests, ids 1 to n, one per line; the message of
// each is padded to pad bytes.
func pings(n, pad int) string {
	var b strings.Builder
	for id := 1; id <= n; id++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"pad":%q}}}`+"\n", id, strings.Repeat("p", pad))
	}
	return b.String()
}

// readAsync calls Read on a goroutine and returns what it returns.
func readAsync(c mcp.Connection) <-chan readResult {
	done := make(chan readResult, 1)
	go func() {
		msg, err := c.Read(context.Background())
		done <- readResult{msg, err}
	}()
	return done
}

func reply(t *testing.T, c mcp.Connection, msg jsonrpc.Message) {
	t.Helper()
	require.NoError(t, c.Write(context.Background(), &jsonrpc.Response{ID: msg.(*jsonrpc.Request).ID, Result: json.RawMessage(`{}`)}))
}

// TestBackpressure: with as many requests unanswered as the limits allow,
// Read reads no further until one is answered or cancelled, or the
// connection is closed. The first request is read whatever its length.
func TestBackpressure(t *testing.T) {
	tests := []struct {
		name  string
		tr    Transport
		input string
		free  func(t *testing.T, c mcp.Connection, first jsonrpc.Message)
		want  error // from the blocked Read once freed
	}{
		{"count: a reply frees room", Transport{MaxInFlight: 2}, pings(3, 0),
			func(t *testing.T, c mcp.Connection, first jsonrpc.Message) { reply(t, c, first) }, nil},
		{"bytes: a reply frees room", Transport{MaxInFlightSize: 250}, pings(3, 40),
			func(t *testing.T, c mcp.Connection, first jsonrpc.Message) { reply(t, c, first) }, nil},
		{"count: Close ends the wait", Transport{MaxInFlight: 2}, pings(3, 0),
			func(t *testing.T, c mcp.Connection, _ jsonrpc.Message) { require.NoError(t, c.Close()) }, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.tr.Reader, tt.tr.Writer = strings.NewReader(tt.input), io.Discard
			c := connect(t, &tt.tr)
			var first jsonrpc.Message
			for i := range 2 {
				r := <-readAsync(c)
				require.NoError(t, r.err, "Read %d", i+1)
				if first == nil {
					first = r.msg
				}
			}
			third := readAsync(c)
			time.Sleep(50 * time.Millisecond)
			require.Empty(t, third, "Read returned a third request with two unanswered")
			tt.free(t, c, first)
			select {
			case r := <-third:
				if tt.want != nil {
					assert.ErrorIs(t, r.err, tt.want)
				} else {
					require.NoError(t, r.err)
					assert.Equal(t, int64(3), r.msg.(*jsonrpc.Request).ID.Raw())
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Read still blocked")
			}
		})
	}
}

// TestBackpressureCancel: a cancelled request frees its room.
func TestBackpressureCancel(t *testing.T) {
	input := call(1) + "\n" + cancelOf("1") + "\n" + call(2) + "\n"
	c := connect(t, &Transport{Reader: strings.NewReader(input), Writer: io.Discard, MaxInFlight: 1})
	for _, want := range []string{"tools/call", methodCancelled, "tools/call"} {
		select {
		case r := <-readAsync(c):
			require.NoError(t, r.err)
			assert.Equal(t, want, r.msg.(*jsonrpc.Request).Method)
		case <-time.After(5 * time.Second):
			t.Fatalf("Read blocked, waiting for %s", want)
		}
	}
}

// TestBackpressureLongLine: one request is read, however long its line,
// when no other is unanswered.
func TestBackpressureLongLine(t *testing.T) {
	c := connect(t, &Transport{Reader: strings.NewReader(pings(1, 1000)), Writer: io.Discard, MaxInFlightSize: 100})
	r := <-readAsync(c)
	require.NoError(t, r.err)
}

// TestGracePeriodCountsIdleTime: after the end of input, replies that come
// more slowly than the grace period in all, but each within it of the last,
// are all written.
func TestGracePeriodCountsIdleTime(t *testing.T) {
	var logs, out syncBuffer
	const n = 8
	c := connect(t, &Transport{Reader: strings.NewReader(pings(n, 0)), Writer: &out,
		GracePeriod: 200 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	var reqs []jsonrpc.Message
	for range n {
		r := <-readAsync(c)
		require.NoError(t, r.err)
		reqs = append(reqs, r.msg)
	}
	eof := readAsync(c)
	for _, req := range reqs { // 8 × 50 ms: twice the grace period
		time.Sleep(50 * time.Millisecond)
		require.Empty(t, eof, "Read returned with requests unanswered")
		reply(t, c, req)
	}
	select {
	case r := <-eof:
		assert.ErrorIs(t, r.err, io.EOF)
	case <-time.After(5 * time.Second):
		t.Fatal("Read did not return once every request was answered")
	}
	assert.Equal(t, n, strings.Count(out.String(), "\n"), "replies written")
	assert.NotContains(t, logs.String(), "abandoned")
}
