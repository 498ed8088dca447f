package stdio

// After the end of input: every request read is answered before Serve
// returns, while the client keeps reading, however long its replies take
// to read. Two bounds end the wait, and each request abandoned is logged,
// with which bound:
//
//   - A client that stops reading: once it has made no progress for
//     GracePeriod (5 s), the replies behind the one going out are
//     abandoned, and requests still running too; the one going out is
//     waited for whole, lest its line be cut (a signal stops the server).
//     A reply goes out in parts of MinReadRate×GracePeriod bytes (5 KiB);
//     progress is a part taken or, on Linux with standard output a pipe
//     or a socket, less of the output left unread than at the last look
//     (every GracePeriod/5). There the kernel takes a part long after the
//     client has read as much (unread_linux.go), and a client reading
//     MinReadRate (1 KiB/s) or more keeps its replies; elsewhere, one
//     whose kernel takes a part every GracePeriod does.
//   - A handler that never returns: a request still running RunPeriod (a
//     minute) after the end of input is abandoned. Work slowed by a busy
//     machine ends well within it: go-sdk spends about 0.3 s of CPU a
//     megabyte of "<" in an echo (escaped as \u003c, then decoded again),
//     and a line holds at most MaxLine bytes.

import "time"

// drain waits until every call is answered or abandoned, by the bounds
// above, then ends the session.
func (c *conn) drain() {
	select {
	case <-c.read: // a part read before the input ended
	default:
	}
	k := kernel{unread: c.unread, last: -1}
	periods := []any{"grace_period", c.opts.GracePeriod, "run_period", c.opts.RunPeriod}
	runOut := c.limits.after(c.opts.RunPeriod)
	var stall <-chan time.Time // while a reply goes out: a grace period with no progress
	var look <-chan time.Time  // while a reply goes out: the next look at the kernel's count
	stalled := false           // the calls behind are abandoned: no grace period again
	for {
		live, writing := c.flight.count()
		if live == 0 {
			break
		}
		if !writing || stalled {
			stall, look = nil, nil
		} else {
			if stall == nil {
				stall = c.limits.after(c.opts.GracePeriod)
			}
			if look == nil && k.unread != nil {
				look = c.limits.after(c.opts.GracePeriod / 5)
			}
		}
		select {
		case <-c.read:
			stall = nil // a part was taken: the period starts anew
		case <-look:
			look = nil
			if k.reading() {
				stall = nil
			}
		case <-c.flight.progress:
		case <-c.ctx.Done():
			return
		case <-stall:
			if k.reading() { // a last look: the kernel takes a part late
				stall = nil
				continue
			}
			stalled = true
			c.flight.abandon(stopped, periods...)
			c.log.Warn("waiting for the client to read a reply going out: stopping would cut its line; a signal stops the server")
		case <-runOut:
			runOut = nil
			c.log.Debug("the run period after the end of input is over", "run_period", c.opts.RunPeriod)
			c.flight.abandon(ranOut, periods...)
		}
	}
	c.stop(nil)
}

// stopped is why a call is abandoned when the client stops reading.
func stopped(cl *call) string {
	if cl.state == computed {
		return "abandoned a reply: the client made no progress reading the reply going out for the grace period"
	}
	return "abandoned a request still running: the client made no progress reading the reply going out for the grace period"
}

// ranOut is why a call is abandoned at the end of the run period: not
// for a reply computed, which waits for the client to read.
func ranOut(cl *call) string {
	if cl.state == computed {
		return ""
	}
	return "abandoned a request not yet answered a run period after the input ended"
}

// A kernel is the kernel's count of what the client has not read of the
// output (unread_linux.go), nil where it cannot tell.
type kernel struct {
	unread func() (int, bool)
	last   int // at the last look; -1: not known
}

// reading reports whether the client has read some since the last look.
func (k *kernel) reading() bool {
	if k.unread == nil {
		return false
	}
	n, ok := k.unread()
	if !ok {
		return false
	}
	down := k.last >= 0 && n < k.last
	k.last = n
	return down
}
