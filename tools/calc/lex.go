// The lexer splits an expression into tokens, as text/template/parse's
// does. Only it sees characters the language lacks, so it explains them.

package calc

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

type tokenKind int

const (
	tokenError      tokenKind = iota // text the language lacks; the token's text is the message
	tokenEOF                         // end of the expression
	tokenNumber                      // 12, 3.5, .5, 5., 1e3, 2.5E-3
	tokenOperator                    // a row of the table in operator.go, or a sign
	tokenLeftParen                   // (
	tokenRightParen                  // )
)

// A token is one lexical element of an expression.
type token struct {
	kind tokenKind
	pos         // where the token begins
	text string // the token as written, or the message of a tokenError
}

// A lexer hands out the tokens of an expression, one per call of next.
type lexer struct {
	input  string
	offset int // of the next unread byte
}

// next returns the next token, or tokenEOF at the end. The parser stops at
// a tokenError.
func (l *lexer) next() token {
	for l.offset < len(l.input) && isSpace(l.input[l.offset]) {
		l.offset++
	}
	if l.offset == len(l.input) {
		return l.token(tokenEOF, 0)
	}
	switch c := l.input[l.offset]; {
	case c == '(':
		return l.token(tokenLeftParen, 1)
	case c == ')':
		return l.token(tokenRightParen, 1)
	case precedence(c) > 0:
		return l.token(tokenOperator, 1)
	case isDigit(c) || c == '.':
		return l.number()
	}
	return l.unexpected()
}

// token makes a token of kind from the next n bytes and moves past them.
func (l *lexer) token(kind tokenKind, n int) token {
	t := token{kind: kind, pos: pos(l.offset), text: l.input[l.offset : l.offset+n]}
	l.offset += n
	return t
}

// errorf makes a tokenError at the next unread byte.
func (l *lexer) errorf(format string, args ...any) token {
	return token{kind: tokenError, pos: pos(l.offset), text: fmt.Sprintf(format, args...)}
}

// number scans a number of the grammar in doc.go. 0x10, 1_000, 2pi and
// 1.2.3 are each reported whole, as one malformed number.
func (l *lexer) number() token {
	s := l.input[l.offset:]
	n := digits(s, 0)
	ok := n > 0
	if n < len(s) && s[n] == '.' {
		frac := digits(s, n+1)
		ok = ok || frac > n+1
		n = frac
	}
	if ok && n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		exp := n + 1
		if exp < len(s) && (s[exp] == '+' || s[exp] == '-') {
			exp++
		}
		end := digits(s, exp)
		ok = end > exp
		n = end
	}
	if !ok || n < len(s) && isWordByte(s[n]) {
		for n < len(s) && isWordByte(s[n]) {
			n++
		}
		return l.errorf("malformed number %s; numbers are decimal, like 12, 3.5, .5 or 2.5e-3", quote(s[:n]))
	}
	return l.token(tokenNumber, n)
}

// unexpected reports the character at the next unread byte, which begins
// no token: a word whole ('sqrt', not 's'), with hints for look-alikes.
func (l *lexer) unexpected() token {
	r, size := utf8.DecodeRuneInString(l.input[l.offset:])
	accepted := "the calculator accepts numbers, " + symbols() + " and parentheses"
	switch {
	case r == utf8.RuneError && size == 1:
		return l.errorf("unexpected byte 0x%02x, which is not UTF-8 text; %s", l.input[l.offset], accepted)
	case unicode.IsLetter(r):
		word := l.input[l.offset:]
		for i, r := range word {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
				word = word[:i]
				break
			}
		}
		return l.errorf("unexpected %s; %s (there are no names or functions)", quote(word), accepted)
	}
	switch r {
	case ',':
		return l.errorf("unexpected ','; write decimals with '.' and no thousands separators, as in 1234.5")
	case '×', '·', '∗', '⋅':
		return l.errorf("unexpected %s; write multiplication as *", strconv.QuoteRune(r))
	case '÷', '∕':
		return l.errorf("unexpected %s; write division as /", strconv.QuoteRune(r))
	case '−', '–', '—':
		return l.errorf("unexpected %s; write minus as the ASCII '-'", strconv.QuoteRune(r))
	}
	return l.errorf("unexpected %s; %s", strconv.QuoteRune(r), accepted)
}

// digits returns the offset of the first non-digit from i in s.
func digits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isWordByte reports whether c may not follow a number directly.
func isWordByte(c byte) bool {
	return isDigit(c) || c == '.' || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
