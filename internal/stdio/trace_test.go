package stdio

// The tests of trace.go: what a client sent, shown inert and cut short.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"mcp-hello-tools/internal/protocol"
)

// TestTrace: every line read and written goes to the trace, control and
// formatting characters as \xNN and \uNNNN: C0, DEL, C1 (U+009B is CSI),
// bidirectional overrides; a line past maxTrace bytes is cut, and its
// length said.
func TestTrace(t *testing.T) {
	c := start(t, Options{}, limits{})
	traced := func() string {
		t.Helper()
		return receive(t, c.trace, "a line traced")
	}
	c.send("\x1b[2J\x7f\u009b2J\u009d0;x\u202enot json\u00a0é")
	c.recv()
	assert.Equal(t, "read: \\x1b[2J\\x7f\\x9b2J\\x9d0;x\\u202enot json\\xa0é\n", traced())
	assert.Contains(t, traced(), `write: {"jsonrpc":"2.0","id":null,"error":{"code":-32700`)
	long := strings.Repeat("x", maxTrace+100)
	c.send(long)
	c.recv()
	assert.Equal(t, "read: "+long[:maxTrace]+fmt.Sprintf("… (%d bytes in all)\n", len(long)), traced())
	assert.Contains(t, traced(), `write: {"jsonrpc":"2.0","id":null,"error":{"code":-32700`)
}

// TestLogQuotesCut: what a client sent is quoted in the log cut to
// protocol.MaxQuote bytes: the id of a response it sent, the id and reason
// of a cancellation.
func TestLogQuotesCut(t *testing.T) {
	c := start(t, Options{}, limits{})
	c.send(initialize, initialized)
	c.recv()
	long := strings.Repeat("i", 300_000)
	c.send(`{"jsonrpc":"2.0","id":"`+long+`","result":{}}`, callLine(long, "hold", `{"message":"a"}`))
	c.heldNow()
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + long + `","reason":"` + long + `"}}`)
	for _, text := range []string{"ignored a response", "request cancelled by the client"} {
		line := c.logged(text)
		assert.Less(t, len(line), 4*protocol.MaxQuote, "the log line %q… quotes too much", line[:min(len(line), 80)])
	}
}
