// Errors are positions plus messages, as in go/scanner: a model reading one
// learns what was wrong, where, and what would be valid.

package calc

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The sentinel errors an *Error may wrap, for errors.Is. A syntax error
// wraps none.
var (
	ErrDivisionByZero = errors.New("division by zero")              // Eval: a zero divisor, 0/0 included
	ErrNotFinite      = errors.New("not finite")                    // Eval: a number or result ±Inf or NaN in float64
	ErrTooCostly      = errors.New("too costly to compute exactly") // Eval: past the bound on the work of one evaluation
	ErrUnderflow      = errors.New("too small for float64")         // Eval: an approximate number or result, not 0, that float64 rounds to 0
	ErrTooLong        = errors.New("expression too long")           // Parse: longer than MaxLength
	ErrTooDeep        = errors.New("expression nested too deeply")  // Parse: deeper than MaxDepth
)

// Error is a fault in an expression, as go/scanner.Error and
// encoding/json.SyntaxError report one. Parse and Eval return every error
// as an *Error.
type Error struct {
	Offset int    // byte offset of the fault in the expression, 0-based
	Column int    // the same place in characters (runes), 1-based, as people count
	Msg    string // what is wrong and what would be valid, without the column
	Err    error  // one of the sentinel errors above, or nil for a syntax error
}

// Error returns "column N: " and the message, on one line.
func (e *Error) Error() string { return fmt.Sprintf("column %d: %s", e.Column, e.Msg) }

// Unwrap returns e.Err, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// errorAt returns an *Error at p wrapping sentinel, with a Sprintf message.
func errorAt(p pos, sentinel error, format string, args ...any) *Error {
	return &Error{Offset: int(p), Column: p.column(), Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// caretContext is how many characters Caret shows on each side of the fault.
const caretContext = 30

// Caret returns expression on one line and a '^' under the character at
// e.Offset on the next, with no trailing newline. One column per rune:
// white space shows as ' ', anything unprintable (invalid UTF-8 too) as
// '�', and "..." cuts the line caretContext characters either side.
func (e *Error) Caret(expression string) string {
	off := min(max(e.Offset, 0), len(expression))
	before, after := []rune(expression[:off]), []rune(expression[off:]) // invalid UTF-8: one '�' a byte
	head, tail := "", ""
	if len(before) > caretContext {
		before, head = before[len(before)-caretContext:], "..."
	}
	if len(after) > caretContext {
		after, tail = after[:caretContext], "..."
	}
	line := head + visible(before) + visible(after) + tail
	return line + "\n" + strings.Repeat(" ", len(head)+len(before)) + "^"
}

// visible returns rs as a string on one line, rune for rune.
func visible(rs []rune) string {
	for i, r := range rs {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			rs[i] = ' '
		case !unicode.IsPrint(r):
			rs[i] = utf8.RuneError
		}
	}
	return string(rs)
}

// quote returns s in single quotes, as messages show source text: '2.50'.
func quote(s string) string { return "'" + shorten(s) + "'" }

// asWritten returns n's text as written, for a message: on one line, and
// shortened.
func asWritten(n Node) string {
	return shorten(strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, n.written()))
}

// shorten cuts s at 40 bytes, so that 10,000 digits cannot swamp a message.
func shorten(s string) string {
	if len(s) <= 40 {
		return s
	}
	cut := 40
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
