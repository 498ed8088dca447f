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

// Sentinel errors. An *Error wraps one of these (or nil, for a plain syntax
// error), so callers can tell the kinds apart with errors.Is:
//
//	if errors.Is(err, calc.ErrDivisionByZero) { … }
var (
	// ErrDivisionByZero is wrapped by Eval when a divisor is zero (0/0 included).
	ErrDivisionByZero = errors.New("division by zero")
	// ErrNotFinite is wrapped by Eval when a number or a result is ±Inf or NaN
	// in float64, such as 1e400, 1e308*10, 0^-1 or (-8)^(1/3).
	ErrNotFinite = errors.New("not finite")
	// ErrTooLong is wrapped by Parse when an expression exceeds MaxLength.
	ErrTooLong = errors.New("expression too long")
	// ErrTooDeep is wrapped by Parse when an expression nests deeper than MaxDepth.
	ErrTooDeep = errors.New("expression nested too deeply")
)

// Error is a fault in an expression: where it is and what is wrong, in the
// manner of go/scanner.Error and encoding/json.SyntaxError. Parse and Eval
// return every error as an *Error.
type Error struct {
	Offset int    // byte offset of the fault in the expression, 0-based
	Column int    // the same place in characters (runes), 1-based, as people count
	Msg    string // what is wrong and what would be valid, without the column
	Err    error  // ErrDivisionByZero, ErrNotFinite, ErrTooLong, ErrTooDeep, or nil for a syntax error
}

// Error returns the error on one line, such as
// "column 7: expected a number or '(', found ')'".
func (e *Error) Error() string {
	return fmt.Sprintf("column %d: %s", e.Column, e.Msg)
}

// Unwrap returns e.Err, so that errors.Is(err, ErrDivisionByZero) works.
func (e *Error) Unwrap() error { return e.Err }

// errorAt returns an *Error at p, wrapping sentinel, with a message made as
// fmt.Sprintf makes it.
func errorAt(p pos, sentinel error, format string, args ...any) *Error {
	return &Error{Offset: int(p), Column: p.column(), Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// caretContext is how many characters Caret shows on each side of the fault.
const caretContext = 30

// Caret returns expression on one line and, on the next, a '^' under the
// character at e.Offset:
//
//	2 * (3 + )
//	         ^
//
// Characters are aligned one column per rune. Tabs and line breaks are shown
// as spaces and other unprintable characters (invalid UTF-8 too) as '�', so the
// text stays on one line. Only 30 characters (caretContext) on either side of the
// fault are shown, with "..." where the expression is cut, so a 10,000-character
// expression still gives a short line. The result has no trailing newline.
func (e *Error) Caret(expression string) string {
	off := min(max(e.Offset, 0), len(expression))
	start := off
	for n := 0; n < caretContext && start > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(expression[:start])
		start -= size
	}
	end := off
	for n := 0; n < caretContext && end < len(expression); n++ {
		_, size := utf8.DecodeRuneInString(expression[end:])
		end += size
	}

	var line strings.Builder
	if start > 0 {
		line.WriteString("...")
	}
	writeVisible(&line, expression[start:off])
	indent := utf8.RuneCountInString(line.String())
	writeVisible(&line, expression[off:end])
	if end < len(expression) {
		line.WriteString("...")
	}
	return line.String() + "\n" + strings.Repeat(" ", indent) + "^"
}

// writeVisible writes s to b one rune per character: white space as ' ' and
// anything unprintable as '�'.
func writeVisible(b *strings.Builder, s string) {
	for _, r := range s { // invalid UTF-8 arrives as utf8.RuneError, one per byte
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case !unicode.IsPrint(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
}

// quote returns s in single quotes, as messages show source text: '2.50'.
func quote(s string) string { return "'" + shorten(s) + "'" }

// shorten cuts text longer than 40 bytes short with "...", so that a run of
// 10,000 letters or digits cannot swamp a message.
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
