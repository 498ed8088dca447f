package stdio

import (
	"context"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStdinBlockingRestored runs a connection on a real standard input, a
// pipe, in a child process (the test binary again, running
// TestStdinChild), and checks that the pipe is back in blocking mode once
// the child has closed the connection: another process reading the same
// pipe afterwards must not see EAGAIN.
func TestStdinBlockingRestored(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer func() { _ = r.Close() }()
	defer func() { _ = w.Close() }()

	cmd := exec.Command(os.Args[0], "-test.run=^TestStdinChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "STDIO_TEST_STDIN_CHILD=1")
	cmd.Stdin = r // os/exec puts r in blocking mode for the child
	_, err = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	require.NoError(t, err)
	out, err := cmd.CombinedOutput() // w stays open: the child's second read waits until Close
	require.NoError(t, err, "child:\n%s", out)

	// Not r.Fd(): it would put the pipe in blocking mode itself.
	raw, err := r.SyscallConn()
	require.NoError(t, err)
	var flags uintptr
	var errno syscall.Errno
	require.NoError(t, raw.Control(func(fd uintptr) {
		flags, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	}))
	require.Zero(t, errno, "fcntl(F_GETFL)")
	assert.Zero(t, flags&syscall.O_NONBLOCK, "stdin is still non-blocking after the connection closed")
}

// TestStdinChild is the child process of TestStdinBlockingRestored: it reads
// one message from standard input, then closes the connection while a
// second read waits, and checks that the read is interrupted.
func TestStdinChild(t *testing.T) {
	if os.Getenv("STDIO_TEST_STDIN_CHILD") != "1" {
		t.Skip("run by TestStdinBlockingRestored")
	}
	c, err := (&Transport{Writer: io.Discard}).Connect(context.Background())
	require.NoError(t, err)
	_, err = c.Read(context.Background())
	require.NoError(t, err)

	done := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the read wait in the poller
	require.NoError(t, c.Close())
	select {
	case err := <-done:
		require.ErrorIs(t, err, io.EOF)
	case <-time.After(5 * time.Second):
		t.Fatal("Read still blocked after Close")
	}
	require.NoError(t, c.Close(), "a second Close")
}
