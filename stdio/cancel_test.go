package stdio

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func call(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep"}}`, id)
}

func cancelOf(requestID string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + requestID + `}}`
}

func result(id int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id) }

// TestCancel runs a connection as the SDK would, one step at a time. A step
// is "read X", where X is the id or the method of the message Read must
// return, or EOF; or "reply ID", which writes a result for that request.
// The input ends after the last line; the grace period is 10 s, so "read
// EOF", which must return within 2 s, fails if the end of input waits for
// a cancelled request.
func TestCancel(t *testing.T) {
	tests := []struct {
		name  string
		input []string
		steps []string
		out   []string // the lines written
		log   string   // in the log
	}{{
		name:  "a cancelled request gets no reply",
		input: []string{call(1), cancelOf("1"), call(2)},
		steps: []string{"read 1", "read notifications/cancelled", "read 2", "reply 1", "reply 2", "read EOF"},
		out:   []string{result(2)},
		log:   `msg="dropped the reply to a cancelled request" id=1 method=tools/call`,
	}, {
		name:  "the end of input does not wait for a cancelled request",
		input: []string{call(1), cancelOf("1")},
		steps: []string{"read 1", "read notifications/cancelled", "read EOF", "reply 1"},
		out:   nil,
		log:   `msg="request cancelled by the client; its reply will not be sent" id=1 method=tools/call`,
	}, {
		name:  "a cancellation of a request not yet sent is ignored",
		input: []string{cancelOf("1"), call(1)},
		steps: []string{"read 1", "reply 1", "read EOF"},
		out:   []string{result(1)},
		log:   `msg="ignored a cancellation of no request in flight" id=1`,
	}, {
		name:  "a cancellation of an answered request is ignored",
		input: []string{call(1), cancelOf("1"), call(2)},
		steps: []string{"read 1", "reply 1", "read 2", "reply 2", "read EOF"},
		out:   []string{result(1), result(2)},
	}, {
		name: "initialize cannot be cancelled",
		input: []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
			cancelOf("1"), call(2)},
		steps: []string{"read 1", "read 2", "reply 1", "reply 2", "read EOF"},
		out:   []string{result(1), result(2)},
		log:   "ignored a cancellation of initialize",
	}, {
		name:  "a string id",
		input: []string{`{"jsonrpc":"2.0","id":"a","method":"ping"}`, cancelOf(`"a"`), call(2)},
		steps: []string{`read "a"`, "read notifications/cancelled", "read 2", `reply "a"`, "reply 2", "read EOF"},
		out:   []string{result(2)},
	}, {
		name: "cancellations naming no request are ignored",
		input: []string{call(1), cancelOf("null"), cancelOf(`"1"`), cancelOf("1.5"),
			`{"jsonrpc":"2.0","method":"notifications/cancelled"}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}`, call(2)},
		steps: []string{"read 1", "read 2", "reply 1", "reply 2", "read EOF"},
		out:   []string{result(1), result(2)},
	}, {
		name:  "the id of a cancelled request is in use until the SDK replies",
		input: []string{call(1), cancelOf("1"), call(1)},
		steps: []string{"read 1", "read notifications/cancelled", "read EOF", "reply 1"},
		out: []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,` +
			`"message":"invalid request: id 1 is already in use by a request in flight"}}`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, logs syncBuffer
			input := io.NopCloser(strings.NewReader(strings.Join(tt.input, "\n") + "\n"))
			c := connect(t, &Transport{Reader: input, Writer: &out, GracePeriod: 10 * time.Second,
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			for _, step := range tt.steps {
				verb, arg, _ := strings.Cut(step, " ")
				switch verb {
				case "read":
					msg, err := readWithin(t, c, 2*time.Second)
					if arg == "EOF" {
						require.ErrorIs(t, err, io.EOF, "%s: Read", step)
						continue
					}
					require.NoError(t, err, "%s: Read", step)
					req, ok := msg.(*jsonrpc.Request)
					require.True(t, ok, "%s: Read = %v, want a request", step, msg)
					if strings.Contains(arg, "/") {
						assert.Equal(t, arg, req.Method, "%s: Read", step)
					} else {
						assert.Equal(t, arg, jsonID(req.ID), "%s: Read", step)
					}
				case "reply":
					id, err := makeID(json.RawMessage(arg))
					require.NoError(t, err, step)
					require.NoError(t, c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)}), step)
				default:
					t.Fatalf("bad step %q", step)
				}
			}
			assert.Equal(t, tt.out, nonEmptyLines(out.String()), "the lines written")
			assert.Contains(t, logs.String(), tt.log, "the log")
			assert.NotContains(t, logs.String(), "abandoned", "the log")
		})
	}
}

// readWithin calls c.Read, and fails the test if it does not return within d.
func readWithin(t *testing.T, c mcp.Connection, d time.Duration) (jsonrpc.Message, error) {
	t.Helper()
	type read struct {
		msg jsonrpc.Message
		err error
	}
	done := make(chan read, 1)
	go func() {
		msg, err := c.Read(context.Background())
		done <- read{msg, err}
	}()
	select {
	case r := <-done:
		return r.msg, r.err
	case <-time.After(d):
		t.Fatalf("Read did not return within %v", d)
		return nil, nil
	}
}

func nonEmptyLines(s string) []string {
	var lines []string
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// TestCancelRacesReply: a cancellation read while the reply to its request
// is being written either comes first, and the reply is dropped, or comes
// too late, and the reply is written whole; in both cases the end of input
// does not wait for the request.
func TestCancelRacesReply(t *testing.T) {
	for range 200 {
		var out syncBuffer
		input := io.NopCloser(strings.NewReader(call(1) + "\n" + cancelOf("1") + "\n"))
		c := connect(t, &Transport{Reader: input, Writer: &out, GracePeriod: 10 * time.Second})
		ctx := context.Background()
		msg, err := c.Read(ctx)
		require.NoError(t, err)
		var wg sync.WaitGroup
		wg.Go(func() {
			assert.NoError(t, c.Write(ctx, &jsonrpc.Response{ID: msg.(*jsonrpc.Request).ID, Result: json.RawMessage(`{}`)}))
		})
		for {
			// The notification, if it came first, then EOF.
			if _, err := readWithin(t, c, 2*time.Second); err != nil {
				require.ErrorIs(t, err, io.EOF)
				break
			}
		}
		wg.Wait()
		if got := out.String(); got != "" {
			require.Equal(t, result(1)+"\n", got)
		}
	}
}
