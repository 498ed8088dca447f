// Package logwriter writes a server's log, to its standard error, without
// ever holding the server up: see Writer.
package logwriter

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// maxBacklog is the most, in bytes, held while the destination is blocked.
const maxBacklog = 1 << 20

// A Writer is the writer for a server's log, its standard error,
// which the MCP specification lets a client ignore: never read it, so that
// a write blocks once 64 KiB wait in the pipe, or close it first (mcp-go's
// Stdio.Close does), so that a write fails. A Write to a Writer never
// blocks and never fails: lines wait in a backlog of at most 1 MiB, which
// a goroutine writes out; lines past that are dropped, and counted in a
// line of their own. Once the destination fails, everything is dropped.
type Writer struct {
	dst  io.Writer
	wake chan struct{}

	mu      sync.Mutex
	backlog []byte
	dropped int           // lines dropped since the last were written
	broken  bool          // dst failed
	drained chan struct{} // closed, and replaced, when the backlog is next written out
}

// New returns a Writer that writes to dst.
func New(dst io.Writer) *Writer {
	l := &Writer{dst: dst, wake: make(chan struct{}, 1), drained: make(chan struct{})}
	go l.run()
	return l
}

// Write queues p, whole, to be written: one Write is one log line.
func (l *Writer) Write(p []byte) (int, error) {
	l.mu.Lock()
	switch {
	case l.broken:
	case len(l.backlog)+len(p) > maxBacklog:
		l.dropped++
	default:
		l.backlog = append(l.backlog, p...)
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (l *Writer) run() {
	var out []byte
	for range l.wake {
		l.mu.Lock()
		out, l.backlog = l.backlog, out[:0]
		if l.dropped > 0 {
			out = fmt.Appendf(out, "(%d log lines dropped: standard error was not read)\n", l.dropped)
			l.dropped = 0
		}
		l.mu.Unlock()
		var err error
		if len(out) > 0 {
			_, err = l.dst.Write(out)
		}
		l.mu.Lock()
		l.broken = l.broken || err != nil
		if len(l.backlog) == 0 || l.broken { // else another wake is on its way
			close(l.drained)
			l.drained = make(chan struct{})
		}
		l.mu.Unlock()
	}
}

// Flush waits until everything written so far has gone to the destination,
// or for at most d: the destination may be blocked for ever.
func (l *Writer) Flush(d time.Duration) {
	l.mu.Lock()
	drained := l.drained
	l.mu.Unlock()
	select { // the goroutine closes drained after its next write, even of nothing
	case l.wake <- struct{}{}:
	default:
	}
	select {
	case <-drained:
	case <-time.After(d):
	}
}
