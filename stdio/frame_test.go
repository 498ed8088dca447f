package stdio

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readLines reads input with a lineReader of the given limit, chunk bytes
// at a time, and returns each line, "<N bytes>" for one of more than 100
// bytes, or "<too large>" for one over the limit, until the end.
func readLines(t *testing.T, input string, maxLen int, chunk int) []string {
	lr := newLineReader(&chunkReader{s: input, n: chunk}, maxLen)
	var lines []string
	for {
		line, err := lr.next()
		switch {
		case errors.Is(err, errTooLarge):
			lines = append(lines, "<too large>")
		case errors.Is(err, io.EOF):
			return lines
		case err != nil:
			t.Fatalf("next() error: %v", err)
		case len(line) > 100:
			lines = append(lines, fmt.Sprintf("<%d bytes>", len(line)))
		default:
			lines = append(lines, string(line))
		}
	}
}

// chunkReader returns s at most n bytes per Read, as a pipe might.
type chunkReader struct {
	s string
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.n)], r.s)
	r.s = r.s[n:]
	return n, nil
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // longer than the bufio buffer
	tests := []struct {
		name  string
		input string
		max   int
		want  []string
	}{
		{"one line", "abc\n", 10, []string{"abc"}},
		{"no final newline", "abc\ndef", 10, []string{"abc", "def"}},
		{"crlf", "abc\r\ndef\r\n", 10, []string{"abc", "def"}},
		{"lone cr kept inside", "a\rb\n", 10, []string{"a\rb"}},
		{"empty lines", "\n\nabc\n\n", 10, []string{"", "", "abc", ""}},
		{"exactly the limit", "0123456789\n", 10, []string{"0123456789"}},
		{"exactly the limit, crlf", "0123456789\r\n", 10, []string{"0123456789"}},
		{"one over the limit", "0123456789a\nok\n", 10, []string{"<too large>", "ok"}},
		{"over the limit at the end", "ok\n0123456789a", 10, []string{"ok", "<too large>"}},
		{"long line within the limit", long + "\nok\n", 200 << 10, []string{"<102400 bytes>", "ok"}},
		{"long line over the limit", long + "\nok\n", 1 << 10, []string{"<too large>", "ok"}},
		{"long line over the limit at the end", "ok\n" + long, 1 << 10, []string{"ok", "<too large>"}},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 7, 1 << 20} {
			got := readLines(t, tt.input, tt.max, chunk)
			assert.Equal(t, tt.want, got, "%s: lines of %.40q (limit %d, read %d bytes at a time)", tt.name, tt.input, tt.max, chunk)
		}
	}
}

// TestLineReaderMemory checks that a line far over the limit is not kept:
// the reader's buffers stay near the limit.
func TestLineReaderMemory(t *testing.T) {
	const limit = 1 << 20
	input := strings.Repeat("y", 50<<20) + "\nok\n"
	lr := newLineReader(strings.NewReader(input), limit)
	_, err := lr.next()
	require.ErrorIs(t, err, errTooLarge)
	line, err := lr.next()
	require.NoError(t, err)
	assert.Equal(t, "ok", string(line))
	assert.LessOrEqual(t, cap(lr.long), 2*limit, "buffer kept for long lines")
}
