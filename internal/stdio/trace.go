package stdio

// What a client sent, shown to a person: each line in the trace, and a
// value in the log, cut short and unable to act on the terminal.

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"mcp-hello-tools/internal/protocol"
)

// maxTrace is the longest line traced, in bytes.
const maxTrace = 16 << 10

// trace writes prefix and line to opts.Trace, if set, cut at maxTrace
// bytes, with each character a terminal acts on rather than shows (C0 and
// C1 controls, bidirectional overrides, other formatting characters) as
// \xNN or \uNNNN, and invalid UTF-8 as U+FFFD.
func (c *conn) trace(prefix string, line []byte) {
	if c.opts.Trace == nil {
		return
	}
	buf := []byte(prefix)
	for _, r := range string(line[:min(len(line), maxTrace)]) {
		switch {
		case r < 0x100 && !unicode.IsPrint(r) && r != ' ':
			buf = fmt.Appendf(buf, `\x%02x`, r)
		case !unicode.IsPrint(r) && r != ' ':
			buf = fmt.Appendf(buf, `\u%04x`, r)
		default:
			buf = utf8.AppendRune(buf, r)
		}
	}
	if len(line) > maxTrace {
		buf = fmt.Appendf(buf, "… (%d bytes in all)", len(line))
	}
	_, _ = c.opts.Trace.Write(append(buf, '\n')) // best effort
}

// quoted returns v, something a client sent, as a log line quotes it: cut
// to protocol.MaxQuote bytes.
func quoted(v any) string { return protocol.Cut(fmt.Sprint(v), protocol.MaxQuote) }
