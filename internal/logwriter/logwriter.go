// Package logwriter writes a server's log, to its standard error, without
// ever holding the server up: see Writer.
package logwriter

import (
	"bytes"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// maxBacklog is the most, in bytes, held while the destination is blocked.
const maxBacklog = 1 << 20

// A Writer is the writer for a server's log, its standard error, which the
// MCP specification lets a client ignore: never read it, so that a write
// blocks once 64 KiB wait in the pipe, or close it first (mcp-go's
// Stdio.Close does), so that a write fails. A Write to a Writer never
// blocks and never fails: lines wait in a backlog of at most 1 MiB, which
// a goroutine writes out; lines past that are dropped, and counted in a
// line of their own. Once the destination fails, everything is dropped.
type Writer struct {
	queue   chan entry   // what to write
	held    atomic.Int64 // bytes in queue
	dropped atomic.Int64 // lines dropped since the last written
}

// An entry of the queue is a line, or a Flush's turn: flushed, closed once
// the lines before it are written. Each Flush has a channel of its own, so
// that the turn of one that gave up cannot end another's wait.
type entry struct {
	line    []byte
	flushed chan struct{}
}

// New returns a Writer that writes to dst.
func New(dst io.Writer) *Writer {
	w := &Writer{queue: make(chan entry, 4096)}
	go w.run(dst)
	return w
}

// Write queues p, whole, to be written: one Write is one log line.
func (w *Writer) Write(p []byte) (int, error) {
	n := int64(len(p))
	if w.held.Add(n) <= maxBacklog {
		select {
		case w.queue <- entry{line: bytes.Clone(p)}:
			return len(p), nil
		default:
		}
	}
	w.held.Add(-n)
	w.dropped.Add(1)
	return len(p), nil
}

func (w *Writer) run(dst io.Writer) {
	broken := false
	for e := range w.queue {
		line := e.line
		w.held.Add(-int64(len(line)))
		if n := w.dropped.Swap(0); n > 0 {
			line = append(fmt.Appendf(nil, "(%d log lines dropped: standard error was not read)\n", n), line...)
		}
		if !broken && len(line) > 0 {
			_, err := dst.Write(line)
			broken = err != nil
		}
		if e.flushed != nil {
			close(e.flushed)
		}
	}
}

// Flush waits until everything written so far has gone to the destination,
// or for at most d: the destination may be blocked for ever.
func (w *Writer) Flush(d time.Duration) {
	timeout := time.After(d)
	flushed := make(chan struct{})
	select {
	case w.queue <- entry{flushed: flushed}:
	case <-timeout:
		return
	}
	select {
	case <-flushed:
	case <-timeout:
	}
}
