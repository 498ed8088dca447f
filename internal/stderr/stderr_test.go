package stderr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLogWriterWrites: lines reach the destination, in order.
func TestLogWriterWrites(t *testing.T) {
	var dst syncBuffer
	l := NewLogWriter(&dst)
	for i := range 100 {
		_, err := fmt.Fprintf(l, "line %d\n", i)
		require.NoError(t, err)
	}
	l.Flush(5 * time.Second)
	lines := strings.Split(strings.TrimSuffix(dst.String(), "\n"), "\n")
	require.Len(t, lines, 100)
	assert.Equal(t, "line 99", lines[99])
}

// TestLogWriterNeverBlocks: with a destination that blocks for ever, as a
// pipe no one reads does, writes return at once; past the backlog, lines are
// dropped, and counted once the destination takes them.
func TestLogWriterNeverBlocks(t *testing.T) {
	dst := &blockedWriter{unblock: make(chan struct{})}
	l := NewLogWriter(dst)
	line := strings.Repeat("x", 1023) + "\n"
	start := time.Now()
	for range 5000 { // 5 MiB, five times the backlog
		n, err := io.WriteString(l, line)
		require.NoError(t, err)
		require.Equal(t, len(line), n)
	}
	assert.Less(t, time.Since(start), 2*time.Second, "writes to a LogWriter whose destination blocks")
	close(dst.unblock)
	l.Flush(5 * time.Second)
	// What the goroutine held when the destination blocked, then the backlog.
	assert.LessOrEqual(t, dst.buf.Len(), 2*maxBacklog+200, "more than the backlog was kept")
	assert.True(t, strings.Contains(dst.buf.String(), " log lines dropped: standard error was not read)\n"),
		"the log says how many lines were dropped")
}

// TestLogWriterBroken: once the destination fails, as a closed pipe does,
// writes still succeed, and Flush returns at once.
func TestLogWriterBroken(t *testing.T) {
	l := NewLogWriter(failingWriter{})
	_, err := io.WriteString(l, "first\n")
	require.NoError(t, err)
	time.Sleep(3 * batchDelay)
	_, err = io.WriteString(l, "second\n")
	require.NoError(t, err)
	start := time.Now()
	l.Flush(5 * time.Second)
	assert.Less(t, time.Since(start), time.Second)
}

type blockedWriter struct {
	unblock chan struct{}
	buf     bytes.Buffer
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	<-w.unblock
	return w.buf.Write(p)
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

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
