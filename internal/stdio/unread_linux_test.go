package stdio

import (
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// socketpair returns the two ends of a Unix stream socket, as Node's
// child_process gives a child's standard output.
func socketpair(t *testing.T) (client, server *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	require.NoError(t, err)
	client, server = os.NewFile(uintptr(fds[0]), "client"), os.NewFile(uintptr(fds[1]), "server")
	t.Cleanup(func() { _, _ = client.Close(), server.Close() })
	return client, server
}

// TestSlowReaderOnSocket: a client steadily reading 32 KiB/s from a
// socket, against a grace period of 1 s, receives three replies of
// 100,000 characters whole. The kernel wakes the server's blocked write
// only once the client has read three quarters of the socket's buffer,
// more than a grace period's reading: the grace period restarts on the
// bytes it reads. The kernel's socket is the point, and a real grace
// period with it: the reader takes bytes every 10 ms, and the drain looks
// every 0.2 s, so the verdict flips only if the reader goes unscheduled
// for most of a second.
func TestSlowReaderOnSocket(t *testing.T) {
	r, w := socketpair(t)
	readSlowly(t, r, w, time.Second, 320, 3, 100_000)
}

// TestSlowReaderOnPipe: a client steadily reading 4 KiB/s from a pipe of
// one page, against a grace period of 0.5 s, receives two replies of
// 10,000 characters whole. The kernel wakes the server's blocked write
// only once the client has read the whole page, a second's reading. As
// on the socket, the kernel's pipe is the point: the reader takes bytes
// every 10 ms, the drain looks every 0.1 s, and only a reader unscheduled
// for 0.4 s flips the verdict.
func TestSlowReaderOnPipe(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = r.Close(), w.Close() })
	_, err = unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, os.Getpagesize())
	require.NoError(t, err)
	readSlowly(t, r, w, 500*time.Millisecond, 40, 2, 10_000)
}

// TestStoppedReaderOnSocket: a client that reads nothing from a socket
// has stopped, whatever the kernel's count says: the reply behind the
// one going out is abandoned after the grace period, and the one going
// out arrives whole once read. The test fires each grace period and each
// look at the kernel's count itself, as the drain starts them, once one
// reply waits behind the other: a count can only stay or grow while the
// client reads nothing. Each, not one: until the socket is full the kernel
// takes parts of the reply going out, and each part taken starts the
// period anew (CI once fired the first, and the drain waited on the next).
func TestStoppedReaderOnSocket(t *testing.T) {
	r, w := socketpair(t)
	after, grace, _, looks := lookingTimers()
	c := start(t, Options{Out: w}, limits{after: after})
	message := strings.Repeat("x", 300_000) // more than the socket holds
	c.send(initialize, initialized)
	for b := []byte{0}; b[0] != '\n'; { // initialize's reply read: a reply that waits now waits behind an echo
		_, err := r.Read(b)
		require.NoError(t, err)
	}
	c.send(callLine(1, "echo", `{"message":"`+message+`"}`), callLine(2, "echo", `{"message":"`+message+`"}`))
	c.logged("a reply waits for the output")
	require.NoError(t, c.in.Close())
	abandoned := make(chan struct{})
	defer close(abandoned)
	go func() { // every period and look, fired as made, until the test ends
		for {
			select {
			case timer := <-grace:
				timer <- time.Time{}
			case timer := <-looks:
				timer <- time.Time{}
			case <-abandoned:
				return
			}
		}
	}()
	c.logged("abandoned a reply: the client made no progress reading the reply going out for the grace period")
	lines := make(chan string, 10)
	go pacedRead(r, 64<<10, time.Millisecond, lines)
	require.NoError(t, c.served())
	require.NoError(t, w.Close()) // the reader's end of input
	var got []reply
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				require.Len(t, got, 1, "the reply to the echo going out, and no other")
				assert.Contains(t, string(got[0].Result), message, "the reply going out, whole")
				return
			}
			var rep reply
			require.NoError(t, json.Unmarshal([]byte(line), &rep), "the server wrote %.200q", line)
			got = append(got, rep)
		case <-time.After(failAfter):
			t.Fatal("the reader saw no end of output")
		}
	}
}
