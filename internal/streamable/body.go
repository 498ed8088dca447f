package streamable

import (
	"context"
	"errors"
	"io"
)

// read reads a POST's body within its room in the bytes in flight, so
// that large bodies sent slowly keep no small one waiting. Its first
// SmallBodySize bytes are its own (a connection reads one body at a time);
// room for each next chunk is taken as the one before fills, so a body
// holds room for what it has sent (a buffer that doubled held 8 MiB for 4
// MiB and a byte). One that finds none waits for it if no other body
// waits, else gets errBusy, its room given back: bodies that waited
// together would each hold room the others need.
func (h *Handler) read(ctx context.Context, body io.Reader) (data []byte, room int64, err error) {
	var full [][]byte
	size := 0
	chunk := make([]byte, 0, SmallBodySize)
	for {
		if len(chunk) == cap(chunk) {
			full = append(full, chunk)
			more := int64(min(readChunk, MaxBodySize+1-size)) // one byte past the limit, for MaxBytesReader to say so
			if !h.inFlight.TryAcquire(more) && !h.wait(ctx, more) {
				h.inFlight.Release(room)
				return nil, 0, errBusy
			}
			room += more
			chunk = make([]byte, 0, more)
		}
		n, err := body.Read(chunk[len(chunk):cap(chunk)])
		chunk, size = chunk[:len(chunk)+n], size+n
		if err == io.EOF {
			if full == nil {
				return chunk, room, nil
			}
			// Whole, the body is held twice for as long as the copy takes.
			data = make([]byte, 0, size)
			for _, c := range append(full, chunk) {
				data = append(data, c...)
			}
			return data, room, nil
		} else if err != nil {
			return nil, room, err
		}
	}
}

// wait waits for room until ctx is done, if no other body waits.
func (h *Handler) wait(ctx context.Context, room int64) bool {
	if !h.waiting.CompareAndSwap(false, true) {
		return false
	}
	defer h.waiting.Store(false)
	return h.inFlight.Acquire(ctx, room) == nil
}

// The bounds on the bodies in flight.
const (
	SmallBodySize   = 16 << 10 // bytes of each body that need no room in MaxInFlightSize
	MaxInFlightSize = 16 << 20 // bytes of the bodies being read or served, past each one's SmallBodySize
	readChunk       = 64 << 10 // bytes of room a body takes at a time past its first SmallBodySize
)

var errBusy = errors.New("no room for the body")
