package calc

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestErrorIs(t *testing.T) {
	tests := []struct {
		input string
		want  error // nil: a syntax error, which wraps no sentinel
	}{
		{"1 / 0", ErrDivisionByZero},
		{"1e400", ErrNotFinite},
		{"2 ^ 1024", ErrNotFinite},
		{strings.Repeat("1", MaxLength+1), ErrTooLong},
		{strings.Repeat("(", MaxDepth+1), ErrTooDeep},
		{"1 +", nil},
	}
	for _, tt := range tests {
		_, _, err := Evaluate(tt.input)
		var e *Error
		if !assert.ErrorAs(t, err, &e, "Evaluate(%.20q)", tt.input) {
			continue
		}
		assert.Equal(t, tt.want, e.Err, "Evaluate(%.20q): Err", tt.input)
		assert.Equal(t, tt.want, errors.Unwrap(err), "errors.Unwrap(Evaluate(%.20q))", tt.input)
		for _, sentinel := range []error{ErrDivisionByZero, ErrNotFinite, ErrTooLong, ErrTooDeep} {
			want := tt.want != nil && errors.Is(tt.want, sentinel) // the one sentinel wrapped, if any
			assert.Equal(t, want, errors.Is(err, sentinel), "errors.Is(Evaluate(%.20q), %v)", tt.input, sentinel)
		}
	}
}

func TestCaret(t *testing.T) {
	long := strings.Repeat("1+", 50)
	tests := []struct {
		name, expression string
		offset           int
		want             string
	}{
		{"start", "x", 0, "x\n^"},
		{"middle", "2 * (3 + )", 9, "2 * (3 + )\n         ^"},
		{"end of expression", "1 +", 3, "1 +\n   ^"},
		{"white space shown as spaces", "1\t+\r\n)", 5, "1 +  )\n     ^"},
		{"multi-byte characters are one column", "é × 2", 3, "é × 2\n  ^"},
		{"invalid UTF-8 shown as U+FFFD", "1\xff\xfe2", 2, "1��2\n  ^"},
		{"control characters shown as U+FFFD", "1\x002", 1, "1�2\n ^"},
		{"cut on the left", long + "x", 100, "..." + long[70:] + "x\n" + strings.Repeat(" ", 33) + "^"},
		{"cut on the right", "x" + long, 0, "x" + long[:29] + "...\n^"},
		{"cut on both sides", long + "x" + long, 100, "..." + long[70:] + "x" + long[:29] + "...\n" + strings.Repeat(" ", 33) + "^"},
		{"offset past the end is clamped", "1", 5, "1\n ^"},
		{"negative offset is clamped", "1", -1, "1\n^"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Error{Offset: tt.offset}
			assert.Equal(t, tt.want, e.Caret(tt.expression), "Error{Offset: %d}.Caret(%q)", tt.offset, tt.expression)
		})
	}
}
