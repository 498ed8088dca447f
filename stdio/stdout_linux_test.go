package stdio

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pollConnect connects over a pipe written as standard output is, through
// openPolled, and returns the connection, the pipe's descriptor, and the
// id of the request it has read.
func pollConnect(t *testing.T, w *os.File) (*conn, int, jsonrpc.ID) {
	fd := int(w.Fd()) // blocking mode, as a pipe inherited as standard output is
	f, closeFile := openPolled(fd, "pipe")
	require.NotNil(t, f, "openPolled(pipe)")
	mc := connect(t, &Transport{Reader: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"), Writer: f})
	c := mc.(*conn)
	c.closeOut = closeFile
	msg, err := c.Read(context.Background())
	require.NoError(t, err)
	return c, fd, msg.(*jsonrpc.Request).ID
}

// TestCloseInterruptsWrite: a reply to a client that does not read its
// pipe blocks, and closing the connection makes the write return at once,
// and puts the pipe back in blocking mode.
func TestCloseInterruptsWrite(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer func() { _ = r.Close() }()
	defer func() { _ = w.Close() }()
	c, fd, id := pollConnect(t, w)

	big := json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`) // more than a pipe holds
	done := make(chan error, 1)
	go func() { done <- c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: big}) }()
	time.Sleep(50 * time.Millisecond)
	require.Empty(t, done, "Write returned, though no one reads the pipe")
	require.NoError(t, c.Close())
	select {
	case err := <-done:
		assert.ErrorIs(t, err, io.EOF, "Write after Close")
	case <-time.After(5 * time.Second):
		t.Fatal("Write still blocked after Close")
	}

	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	require.Zero(t, errno, "fcntl(F_GETFL)")
	assert.Zero(t, flags&syscall.O_NONBLOCK, "the pipe is still non-blocking after Close")
}

// TestBrokenPipeEndsSession: a write to a pipe whose reader is gone fails
// with EPIPE (no SIGPIPE: the descriptor is not 1 or 2), which ends the
// session as the end of input does.
func TestBrokenPipeEndsSession(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer func() { _ = w.Close() }()
	c, _, id := pollConnect(t, w)
	require.NoError(t, r.Close())

	err = c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)})
	assert.ErrorIs(t, err, syscall.EPIPE, "Write to a closed pipe")
	assert.ErrorIs(t, err, io.EOF, "Write to a closed pipe")
	_, err = c.Read(context.Background())
	assert.ErrorIs(t, err, io.EOF, "Read after a broken pipe")
}
