package stdio

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// errTooLarge reports a line longer than the limit. The line has been
// discarded up to and including its newline.
var errTooLarge = errors.New("message too large")

// A lineReader splits a byte stream into lines, the stdio transport's framing:
// each message is one line ending in "\n" (a "\r" before it is dropped too).
//
// It reads through a bufio.Reader and hands out slices of its own buffers,
// valid only until the next call to next, so reading a line costs no
// allocation once the buffers have grown to the size of the longest line.
type lineReader struct {
	r    *bufio.Reader
	max  int    // longest line accepted, in bytes, without its "\n"
	long []byte // reused for lines that do not fit in r's buffer
	err  error  // sticky read error, returned once the last line is out
}

func newLineReader(r io.Reader, maxLen int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: maxLen}
}

// next returns the next line without its terminator. At the end of the
// input it returns the last, unterminated line if there is one, then
// io.EOF (or the read error that ended the input).
//
// A line longer than the limit is skipped as it is read, never held in
// memory: next returns errTooLarge for it and carries on with the following
// line on the next call.
func (lr *lineReader) next() ([]byte, error) {
	if lr.err != nil {
		return nil, lr.err
	}
	lr.long = lr.long[:0]
	for {
		frag, err := lr.r.ReadSlice('\n')
		line := frag // the common case: the whole line is in r's buffer
		if len(lr.long) > 0 || errors.Is(err, bufio.ErrBufferFull) {
			lr.long = append(lr.long, frag...)
			line = lr.long
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(line) > lr.max+1 { // +1: the line may yet end in "\r\n"
				return nil, lr.skipLine()
			}
			continue
		}
		if err != nil {
			lr.err = err
			if len(line) == 0 {
				return nil, err
			}
		}
		if line = trimEOL(line); len(line) > lr.max {
			return nil, errTooLarge
		}
		return line, nil
	}
}

// skipLine reads and drops the rest of an over-long line, up to and
// including its newline, and returns errTooLarge.
func (lr *lineReader) skipLine() error {
	lr.long = lr.long[:0]
	for {
		_, err := lr.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			lr.err = err
		}
		return errTooLarge
	}
}

// trimEOL removes a trailing "\n" or "\r\n".
func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}
