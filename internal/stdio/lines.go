package stdio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

var errTooLong = errors.New("line too long")

// readLine returns the next line that is not blank, without its "\n" or
// "\r\n", valid until the next call; errTooLong for a line longer than
// maxLine, read to its end but never held whole; the last line even
// without "\n"; then the error that ended the input.
func (c *conn) readLine() ([]byte, error) {
	for c.long = c.long[:0]; ; {
		frag, err := c.in.ReadSlice('\n')
		if len(c.long)+len(frag) > c.opts.MaxLine+len("\r\n") { // never held whole
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = c.in.ReadSlice('\n')
			}
			return nil, c.tooLong()
		}
		line := frag
		if len(c.long) > 0 || errors.Is(err, bufio.ErrBufferFull) {
			c.long = append(c.long, frag...)
			line = c.long
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && len(line) == 0:
			return nil, err
		}
		c.long = c.long[:0]
		switch line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")); {
		case len(line) > c.opts.MaxLine: // by a byte or two
			return nil, c.tooLong()
		case len(bytes.Trim(line, " \t\r")) > 0:
			c.trace("read: ", line)
			return line, nil
		}
	}
}

func (c *conn) tooLong() error {
	c.trace("read: ", fmt.Appendf(nil, "(a line of more than %d bytes, skipped)", c.opts.MaxLine))
	return errTooLong
}

// maxTrace is the longest line traced, in bytes.
const maxTrace = 16 << 10

// trace writes prefix and line to opts.Trace, if set, cut at maxTrace
// bytes, with every character a terminal acts on rather than shows (C0 and
// C1 controls, bidirectional overrides and other formatting characters)
// as \xNN or \uNNNN, and invalid UTF-8 as U+FFFD, so that a client's line
// cannot rewrite the terminal that shows it.
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
