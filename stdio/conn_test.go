package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestDecode(t *testing.T) {
	tests := []struct {
		line    string
		code    int64  // 0: a message
		id      string // of the error reply, "" for null
		message string // part of the error message
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, "", ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, "", ""},
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, 0, "", ""},
		{`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, 0, "", ""},
		{`{oops`, -32700, "", "parse error at column 2"},
		{`{"jsonrpc":"2.0"} x`, -32700, "", "parse error at column 19"},
		{`[]`, -32600, "", "found an array (JSON-RPC batches"},
		{`3`, -32600, "", "found a number"},
		{`null`, -32600, "", "found null"},
		{`true`, -32600, "", "found a boolean"},
		{`{"id":1,"method":"ping"}`, -32600, "1", `missing "jsonrpc"`},
		{`{"jsonrpc":2,"id":1,"method":"ping"}`, -32600, "1", `"jsonrpc" must be "2.0", found 2`},
		{`{"jsonrpc":"2.0","id":"x"}`, -32600, `"x"`, `missing "method"`},
		{`{"jsonrpc":"2.0","id":1,"method":null}`, -32600, "1", `"method" must be a string`},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "", `found null`},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "", `found true`},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "", `found 1.5`},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, "", `2^53`},
	}
	for _, tt := range tests {
		msg, bad := decode([]byte(tt.line))
		if tt.code == 0 {
			assert.Nil(t, bad, "decode(%s)", tt.line)
			assert.NotNil(t, msg, "decode(%s)", tt.line)
			continue
		}
		require.NotNil(t, bad, "decode(%s) = %v, want an error", tt.line, msg)
		assert.Equal(t, tt.code, bad.Code, "decode(%s) code", tt.line)
		assert.Equal(t, tt.id, string(bad.ID), "decode(%s) id", tt.line)
		assert.Contains(t, bad.Message, tt.message, "decode(%s) message", tt.line)
		assert.False(t, bad.IsResponse, "decode(%s) is a response", tt.line)
	}
}

func TestDecodeMalformedResponse(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"error":"x"}`,
		`{"id":1,"result":{}}`,
	} {
		_, bad := decode([]byte(line))
		require.NotNil(t, bad, "decode(%s)", line)
		assert.True(t, bad.IsResponse, "decode(%s) is a response: never answered", line)
	}
}

// connect connects a Transport over the given input, with a fresh
// connection the test reads and writes as the SDK would.
func connect(t *testing.T, tr *Transport) mcp.Connection {
	c, err := tr.Connect(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestCloseInterruptsRead(t *testing.T) {
	inR, _ := io.Pipe()
	c := connect(t, &Transport{Reader: inR, Writer: io.Discard})
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, c.Close())
	requireReadEOF(t, done)
}

// TestCloseUnblocksUninterruptibleRead: a Reader that cannot be closed, like
// a terminal, still lets Read return when the connection closes.
func TestCloseUnblocksUninterruptibleRead(t *testing.T) {
	inR, inW := io.Pipe()
	defer func() { _ = inW.Close() }()
	c := connect(t, &Transport{Reader: struct{ io.Reader }{inR}, Writer: io.Discard})
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		done <- err
	}()
	require.NoError(t, c.Close())
	requireReadEOF(t, done)
}

// TestEndOfInputWaitsForReplies: Read reports the end of input only once
// the requests read have been answered, or the grace period is over.
func TestEndOfInputWaitsForReplies(t *testing.T) {
	var logs syncBuffer
	input := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"two","method":"ping"}` + "\n"
	var out syncBuffer
	c := connect(t, &Transport{Reader: strings.NewReader(input), Writer: &out,
		GracePeriod: 300 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx := context.Background()
	var reqs []*jsonrpc.Request
	for range 2 {
		msg, err := c.Read(ctx)
		require.NoError(t, err)
		reqs = append(reqs, msg.(*jsonrpc.Request))
	}

	eof := make(chan time.Time, 1)
	go func() {
		_, err := c.Read(ctx)
		assert.ErrorIs(t, err, io.EOF)
		eof <- time.Now()
	}()
	time.Sleep(50 * time.Millisecond)
	require.Empty(t, eof, "Read returned with a request unanswered")
	require.NoError(t, c.Write(ctx, &jsonrpc.Response{ID: reqs[0].ID, Result: json.RawMessage(`{}`)}))
	// The second request is never answered: abandoned after the grace period.
	start := time.Now()
	select {
	case end := <-eof:
		assert.InDelta(t, 300*time.Millisecond, end.Sub(start), float64(200*time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Fatal("Read did not return after the grace period")
	}
	assert.Contains(t, logs.String(), `abandoned a request still running when the input ended`)
	assert.Contains(t, logs.String(), `id="\"two\""`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n", out.String())
}

// TestOneReplyPerRequest: a second reply to a request, or a reply to no
// request, is dropped.
func TestOneReplyPerRequest(t *testing.T) {
	var out syncBuffer
	c := connect(t, &Transport{Reader: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"), Writer: &out})
	ctx := context.Background()
	msg, err := c.Read(ctx)
	require.NoError(t, err)
	id := msg.(*jsonrpc.Request).ID
	require.NoError(t, c.Write(ctx, &jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)}))
	require.NoError(t, c.Write(ctx, &jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)}))
	other, err := jsonrpc.MakeID("other")
	require.NoError(t, err)
	require.NoError(t, c.Write(ctx, &jsonrpc.Response{ID: other, Result: json.RawMessage(`{}`)}))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n", out.String())
}

func TestTrace(t *testing.T) {
	var trace, out syncBuffer
	c := connect(t, &Transport{Reader: strings.NewReader("{oops\x1b[2J\rforged\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"), Writer: &out, Trace: &trace})
	ctx := context.Background()
	msg, err := c.Read(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Write(ctx, &jsonrpc.Response{ID: msg.(*jsonrpc.Request).ID, Result: json.RawMessage(`{}`)}))
	want := `read: {oops\x1b[2J\x0dforged` + "\n" + // control characters shown, not obeyed
		`write: {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error at column 2: invalid character 'o' looking for beginning of object key string"}}` + "\n" +
		`read: {"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" +
		`write: {"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	assert.Equal(t, want, trace.String())
}

// requireReadEOF checks that the Read whose result done carries returns
// io.EOF once the connection is closed.
func requireReadEOF(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, io.EOF)
	case <-time.After(5 * time.Second):
		t.Fatal("Read still blocked after Close")
	}
}
