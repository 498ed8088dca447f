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
		{"1e2000", ErrNotFinite},
		{"2 ^ 0.5 * 1e308 * 10", ErrNotFinite},
		{"10 ^ 400 / 3", ErrNotFinite},
		{"1e-2000", ErrUnderflow},
		{"1e-400 / 3", ErrUnderflow},
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
		for _, sentinel := range []error{ErrDivisionByZero, ErrNotFinite, ErrUnderflow, ErrTooCostly, ErrTooLong, ErrTooDeep} {
			want := tt.want != nil && errors.Is(tt.want, sentinel) // the one sentinel wrapped, if any
			assert.Equal(t, want, errors.Is(err, sentinel), "errors.Is(Evaluate(%.20q), %v)", tt.input, sentinel)
		}
	}
}

// TestErrorsQuoteOperandsAsWritten checks that an error of Eval quotes
// the operands of the operation at fault as written, parentheses and all,
// never their values rounded to float64 (issue 30, R12: it quoted
// (1+2^-1000)^(2^1010) as "1 ^ 1.0972248137587377e+304"), and that the
// quote is on one line and short, however the operand is written.
func TestErrorsQuoteOperandsAsWritten(t *testing.T) {
	tests := []struct {
		input, quote string
		rounded      string // what the float64s of the operands would show
	}{
		{"(1+2^-1000)^(2^1010)", "(1+2^-1000) ^ (2^1010)", "1.0972248137587377e+304"},
		{"((1 + 2^-53)^2 + 2^-1530) ^ 0.5", "((1 + 2^-53)^2 + 2^-1530) ^ 0.5", "1.0000000000000002"},
		{"(2/3) ^ 2585 * 1", "(2/3) ^ 2585", "0.6666666666666666"},
		{"(1 + 2^-1000) / (1/3 - 1/3)", "(1 + 2^-1000) / (1/3 - 1/3)", "1 / 0"},
		{"(10^400 + 1/3) * 2^0.5", "(10^400 + 1/3) * 2^0.5", "+Inf * "},
		{"(-8) ^ (1/2)", "(-8) ^ (1/2)", "-8 ^ 0.5"},
		{"(1 +\n\t2) / 0", "(1 +  2) / 0", "3 / 0"},
		{"(" + strings.Repeat("1+", 30) + "1) / 0", "(1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1... / 0", "31 / 0"},
	}
	for _, tt := range tests {
		_, _, err := Evaluate(tt.input)
		var e *Error
		if !assert.ErrorAs(t, err, &e, "Evaluate(%q)", tt.input) {
			continue
		}
		assert.Contains(t, e.Msg, tt.quote, "Evaluate(%q): the operation as written", tt.input)
		assert.NotContains(t, e.Msg, tt.rounded, "Evaluate(%q): operands rounded", tt.input)
		assert.NotContains(t, e.Msg, "\n", "Evaluate(%q): a message is one line", tt.input)
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
