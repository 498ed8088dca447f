package logwriter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failAfter bounds every wait below; it ends one only when a test fails.
const failAfter = 10 * time.Second

// within fails the test unless f returns within failAfter.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(failAfter):
		t.Fatal(what + " did not return")
	}
}

// TestWriterWrites: lines reach the destination, in order; Flush
// returns once they have (bytes.Buffer is safe to read after it).
func TestWriterWrites(t *testing.T) {
	var dst bytes.Buffer
	l := New(&dst)
	for i := range 100 {
		_, err := fmt.Fprintf(l, "line %d\n", i)
		require.NoError(t, err)
	}
	within(t, "Flush", func() { l.Flush(time.Hour) })
	lines := strings.Split(strings.TrimSuffix(dst.String(), "\n"), "\n")
	require.Len(t, lines, 100)
	assert.Equal(t, "line 99", lines[99])
}

// TestWriterNeverBlocks: with a destination that blocks, as a pipe no
// one reads does, writes return; past the backlog, lines are dropped, and
// counted once the destination takes them.
func TestWriterNeverBlocks(t *testing.T) {
	dst := &blockedWriter{blocked: make(chan struct{}), unblock: make(chan struct{})}
	l := New(dst)
	_, err := io.WriteString(l, "first\n")
	require.NoError(t, err)
	within(t, "the first write", func() { <-dst.blocked }) // the goroutine is stuck in the destination's Write
	line := strings.Repeat("x", 1023) + "\n"
	within(t, "5 MiB of writes to a blocked destination", func() {
		for range 5000 { // five times the backlog
			n, err := io.WriteString(l, line)
			assert.NoError(t, err)
			assert.Equal(t, len(line), n)
		}
	})
	close(dst.unblock)
	within(t, "Flush", func() { l.Flush(time.Hour) })
	assert.LessOrEqual(t, dst.buf.Len(), maxBacklog+200, "more than the backlog was kept")
	assert.Contains(t, dst.buf.String(), " log lines dropped: standard error was not read)\n", "the log says how many lines were dropped")
}

// TestWriterBroken: once the destination fails, as a closed pipe does,
// writes still succeed, nothing more is written to it, and Flush returns
// without waiting for its time.
func TestWriterBroken(t *testing.T) {
	dst := &failingWriter{failed: make(chan struct{})}
	l := New(dst)
	_, err := io.WriteString(l, "first\n")
	require.NoError(t, err)
	within(t, "the first write", func() { <-dst.failed })
	_, err = io.WriteString(l, "second\n")
	require.NoError(t, err)
	within(t, "Flush", func() { l.Flush(time.Hour) })
	assert.EqualValues(t, 1, dst.writes.Load(), "writes to a destination that failed")
}

// A blockedWriter says on blocked that a Write has begun, and lets it
// finish once unblock is closed.
type blockedWriter struct {
	blocked, unblock chan struct{}
	buf              bytes.Buffer
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	select {
	case <-w.blocked:
	default:
		close(w.blocked)
	}
	<-w.unblock
	return w.buf.Write(p)
}

// A failingWriter fails every Write, counts them, and says so once.
type failingWriter struct {
	failed chan struct{}
	writes atomic.Int32
}

func (w *failingWriter) Write([]byte) (int, error) {
	if w.writes.Add(1) == 1 {
		close(w.failed)
	}
	return 0, errors.New("broken pipe")
}

// TestLimitsPage: docs/limits.md states the backlog as it is.
func TestLimitsPage(t *testing.T) {
	page, err := os.ReadFile("../../docs/limits.md")
	require.NoError(t, err)
	assert.Contains(t, string(page), fmt.Sprintf("%d MiB waits for a host that does not read it", maxBacklog>>20))
}
