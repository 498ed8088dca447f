package stdio

// The tests of drain.go: after the end of input, every request answered
// or abandoned, by the grace and run periods, on timers the tests fire.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDrain: once the input ends, the requests read are answered, and
// then Serve returns.
func TestDrain(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(initialize, initialized, callLine(1, "hold", `{"message":"a"}`))
	c.recv()
	c.heldNow()
	require.NoError(t, c.in.Close())
	close(c.unhold)
	assert.Contains(t, string(c.recv().Result), "released a")
	require.NoError(t, c.served())
}

// timers returns a timer maker for limits.after, and the timers it makes,
// in order, for the test to fire: of grace periods and of run periods.
func timers() (after func(time.Duration) <-chan time.Time, grace, run chan chan time.Time) {
	after, grace, run, _ = lookingTimers()
	return after, grace, run
}

// lookingTimers is timers, and the timers of the looks at what the client
// has left unread (GracePeriod/5), which only an output the kernel counts
// has.
func lookingTimers() (after func(time.Duration) <-chan time.Time, grace, run, looks chan chan time.Time) {
	grace, run, looks = make(chan chan time.Time, 1000), make(chan chan time.Time, 10), make(chan chan time.Time, 1000)
	return func(d time.Duration) <-chan time.Time {
		timer := make(chan time.Time, 1)
		switch d {
		case RunPeriod:
			run <- timer
		case GracePeriod / 5:
			looks <- timer
		default:
			grace <- timer
		}
		return timer
	}, grace, run, looks
}

// next returns the next timer made.
func next(t *testing.T, made chan chan time.Time) chan time.Time {
	t.Helper()
	select {
	case timer := <-made:
		return timer
	case <-time.After(failAfter):
		t.Fatal("no period started")
		return nil
	}
}

// TestAbandon: a request still running RunPeriod after the input ended is
// abandoned, and logged as such.
func TestAbandon(t *testing.T) {
	after, _, run := timers()
	c := start(t, Options{}, limits{after: after})
	c.send(initialize, initialized, callLine(1, "hold", `{"message":"a"}`))
	c.recv()
	c.heldNow()
	require.NoError(t, c.in.Close())
	next(t, run) <- time.Time{}
	line := c.logged("abandoned a request not yet answered a run period after the input ended")
	assert.Contains(t, line, "id=1")
	assert.Contains(t, line, "method=tools/call")
	require.NoError(t, c.served())
}

// TestRunAfterEnd: a request still running when the input ends is waited
// for, however long it takes within RunPeriod, as a slow machine needs:
// every grace period here is over as soon as it starts, until the
// handler returns.
func TestRunAfterEnd(t *testing.T) {
	var graceOver atomic.Bool
	graceOver.Store(true)
	run := make(chan chan time.Time, 10)
	after := func(d time.Duration) <-chan time.Time {
		timer := make(chan time.Time, 1)
		if d == RunPeriod {
			run <- timer
		} else if graceOver.Load() {
			timer <- time.Time{}
		}
		return timer
	}
	c := start(t, Options{}, limits{after: after})
	c.send(initialize, initialized, callLine(1, "hold", `{"message":"a"}`))
	c.recv()
	c.heldNow()
	require.NoError(t, c.in.Close())
	select {
	case <-run:
	case err := <-c.done:
		t.Fatalf("Serve returned (%v) with a request still running: %s", err, c.logged("abandoned"))
	case <-time.After(failAfter):
		t.Fatal("no run period started")
	}
	graceOver.Store(false)
	close(c.unhold)
	assert.Contains(t, string(c.recv().Result), "released a")
	require.NoError(t, c.served())
}

// TestDrainWaitsAnew: at the end of input, each part of a reply the client
// accepts starts the grace period anew; only once it has accepted none for
// the period are the requests behind abandoned, and logged as such.
func TestDrainWaitsAnew(t *testing.T) {
	after, grace, _ := timers()
	c := start(t, Options{}, limits{after: after})
	c.send(initialize, initialized)
	c.recv()
	c.send(callLine(1, "hold", `{"message":"a"}`))
	c.heldNow()
	c.out.held.Store(true)
	message := strings.Repeat("x", 3*MinReadRate*int(GracePeriod.Seconds())) // a reply of four parts
	c.send(callLine(2, "echo", `{"message":"`+message+`"}`))
	require.NoError(t, c.in.Close())
	first := next(t, grace) // the echo's reply is going out
	c.out.next(t)
	second := next(t, grace) // a part was accepted: the period starts anew
	first <- time.Time{}     // too late
	c.out.next(t)
	third := next(t, grace)
	second <- time.Time{}
	c.out.blockedWrite(t) // the third part, held
	third <- time.Time{}
	line := c.logged("abandoned a request still running: the client made no progress reading the reply going out for the grace period")
	assert.Contains(t, line, "id=1")
	c.logged("waiting for the client to read a reply going out")
	c.out.release()
	r := c.recv()
	assert.Equal(t, "2", string(r.ID))
	assert.Contains(t, string(r.Result), message, "the reply, whole")
	require.NoError(t, c.served())
	assert.Empty(t, c.out.lines, "no reply to the request abandoned")
}

// TestStoppedReader: at the end of input, a client that reads nothing of
// a reply for the grace period has stopped: the reply computed behind it
// is abandoned, and logged as such; the reply going out is not cut off,
// and goes out whole when read.
func TestStoppedReader(t *testing.T) {
	after, grace, _ := timers()
	c := start(t, Options{}, limits{after: after})
	message := c.holdTwoReplies(t, 4096)
	require.NoError(t, c.in.Close())
	next(t, grace) <- time.Time{}
	c.logged("abandoned a reply: the client made no progress reading the reply going out for the grace period")
	c.logged("waiting for the client to read a reply going out")
	select {
	case err := <-c.done:
		t.Fatalf("Serve returned (%v) with the reply unread", err)
	default:
	}
	c.out.release()
	assert.Contains(t, string(c.recv().Result), message, "the reply, whole")
	require.NoError(t, c.served())
	assert.Empty(t, c.out.lines, "no reply to the request abandoned")
}

// TestStalledOnce: once a client has stopped reading and the replies
// behind the one going out are abandoned, no grace period starts again,
// though the client then takes a part: the abandon and its warning are
// not repeated every period. In a bubble of virtual time, synctest.Wait
// returns once the drain has done all it will.
func TestStalledOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		after, grace, _ := timers()
		c := start(t, Options{}, limits{after: after})
		message, _ := c.holdLongReply(t)
		c.send(callLine(2, "hold", `{"message":"b"}`)) // behind it; a reply computed would wait on a mutex, which no bubble sees as blocked
		c.heldNow()
		require.NoError(t, c.in.Close())
		next(t, grace) <- time.Time{}
		c.logged("abandoned a request still running")
		c.out.through <- struct{}{} // the client takes a part
		c.out.blockedWrite(t)       // the next, held
		synctest.Wait()
		assert.Zero(t, len(grace), "a grace period after the client stopped: it would abandon again, and warn again")
		c.out.release()
		assert.Contains(t, string(c.recv().Result), message, "the reply, whole")
		require.NoError(t, c.served())
	})
}

// lastLook holds two replies with 1000 bytes left unread in the kernel,
// ends the input, lets the drain look once, sets the count to then, and
// runs the grace period out, when the drain looks a last time. It returns
// the client, the grace periods to come and the message echoed.
func lastLook(t *testing.T, then int64) (*client, chan chan time.Time, string) {
	after, grace, _, looks := lookingTimers()
	var unread atomic.Int64
	unread.Store(1000)
	counted := func(io.Writer) func() (int, bool) { return func() (int, bool) { return int(unread.Load()), true } }
	c := start(t, Options{}, limits{after: after, unreadOf: counted})
	message := c.holdTwoReplies(t, 4096)
	require.NoError(t, c.in.Close())
	stall := next(t, grace)
	next(t, looks) <- time.Time{} // 1000 bytes unread
	next(t, looks)                // the look is taken: the next is due
	unread.Store(then)
	stall <- time.Time{}
	return c, grace, message
}

// TestLastLook: when a grace period runs out, the drain looks once more
// at what the client has left unread in the kernel: a client that has read
// some since the last look is making progress, and nothing is abandoned.
func TestLastLook(t *testing.T) {
	c, grace, _ := lastLook(t, 500) // the client reads, and the kernel has not taken a part yet
	next(t, grace)                  // not stalled: a grace period anew
	c.out.release()
	assert.ElementsMatch(t, []string{"1", "2"}, []string{string(c.recv().ID), string(c.recv().ID)}, "both replies")
	require.NoError(t, c.served())
	for len(c.logs) > 0 {
		assert.NotContains(t, <-c.logs, "abandoned")
	}
}

// TestGrowingCountNoProgress: a count of unread bytes that has grown since
// the last look (the kernel took more of the reply going out, and the
// client read none) is no progress: when the grace period runs out, the
// reply behind is abandoned.
func TestGrowingCountNoProgress(t *testing.T) {
	c, _, message := lastLook(t, 1500) // the kernel took more; the client read nothing
	c.logged("abandoned a reply: the client made no progress reading the reply going out for the grace period")
	c.out.release()
	assert.Contains(t, string(c.recv().Result), message, "the reply going out, whole")
	require.NoError(t, c.served())
	assert.Empty(t, c.out.lines, "no reply to the request abandoned")
}

// TestRunPeriodSparesReplies: the run period abandons requests still
// running, not replies computed and waiting for the client to read.
func TestRunPeriodSparesReplies(t *testing.T) {
	after, _, run := timers()
	c := start(t, Options{}, limits{after: after})
	c.holdTwoReplies(t, 1)
	require.NoError(t, c.in.Close())
	next(t, run) <- time.Time{}
	c.logged("the run period after the end of input is over")
	c.out.release()
	assert.ElementsMatch(t, []string{"1", "2"}, []string{string(c.recv().ID), string(c.recv().ID)})
	require.NoError(t, c.served())
	for len(c.logs) > 0 {
		assert.NotContains(t, <-c.logs, "abandoned")
	}
}

// TestSlowReaderAfterEnd: at the end of input, a client that reads slowly
// but steadily receives every reply, whole, however long they take to
// read. Scaled down from the client of issue 30 (8 KiB/s, replies of 12 s
// against a grace period of 5 s): a reader of at most 64 KiB/s, replies of
// 1.6 s against a grace period of 1 s. An io.Pipe wakes the writer as
// soon as it reads; the kernel's pipes and sockets do not
// (unread_linux_test.go). TestDrainWaitsAnew holds the rule in the test's
// own time; this holds it end to end in real time, with a margin: a part
// of 1 KiB is taken every 16 ms, against a grace period of 1 s.
func TestSlowReaderAfterEnd(t *testing.T) {
	r, w := io.Pipe()
	readSlowly(t, r, w, time.Second, 640, 3, 100_000)
}

// readSlowly serves replies through w, GracePeriod grace, to echoes of
// replies messages of size characters, sent before the input ends, and
// reads them from r at most perTick bytes every 10 ms; each is to arrive
// whole.
func readSlowly(t *testing.T, r io.Reader, w io.WriteCloser, grace time.Duration, perTick, replies, size int) {
	t.Helper()
	c := start(t, Options{Out: w, GracePeriod: grace}, limits{})
	lines := make(chan string, 10)
	go pacedRead(r, perTick, 10*time.Millisecond, lines)
	recv := func() reply {
		t.Helper()
		var rep reply
		select {
		case line := <-lines:
			require.NoError(t, json.Unmarshal([]byte(line), &rep), "the server wrote %.200q", line)
		case <-time.After(failAfter):
			t.Fatal("no reply")
		}
		return rep
	}
	c.send(initialize, initialized)
	require.Nil(t, recv().Error)
	messages := map[string]string{}
	for id := range replies {
		messages[fmt.Sprint(id)] = strings.Repeat(fmt.Sprint(id), size)
		c.send(callLine(id, "echo", `{"message":"`+messages[fmt.Sprint(id)]+`"}`))
	}
	require.NoError(t, c.in.Close())
	for range messages {
		rep := recv()
		require.Nil(t, rep.Error)
		var result mcp.CallToolResult
		require.NoError(t, json.Unmarshal(rep.Result, &result))
		require.Len(t, result.Content, 1)
		assert.True(t, result.Content[0].(*mcp.TextContent).Text == messages[string(rep.ID)], "the reply to %s, whole", rep.ID)
		delete(messages, string(rep.ID))
	}
	require.NoError(t, c.served())
	require.NoError(t, w.Close()) // the reader's end of input
}

// pacedRead reads r, at most n bytes each tick of period, and sends each
// line read to lines as soon as it is whole; it closes lines at the end
// of r.
func pacedRead(r io.Reader, n int, period time.Duration, lines chan<- string) {
	defer close(lines)
	tick := time.NewTicker(period)
	defer tick.Stop()
	buf, partial := make([]byte, n), []byte(nil)
	for range tick.C {
		for budget := n; budget > 0; {
			m, err := r.Read(buf[:budget])
			budget -= m
			partial = append(partial, buf[:m]...)
			for i := bytes.IndexByte(partial, '\n'); i >= 0; i = bytes.IndexByte(partial, '\n') {
				lines <- string(partial[:i])
				partial = partial[i+1:]
			}
			if err != nil {
				return
			}
		}
	}
}
