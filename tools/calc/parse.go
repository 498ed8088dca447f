// The parser is a recursive descent: one method per grammar rule, with the
// rule's EBNF production above it, as in text/template/parse. It builds
// the tree; Eval, in eval.go, computes with it.

package calc

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxLength is the longest expression Parse accepts, in characters (runes).
const MaxLength = 10000

// MaxDepth is how deeply Parse lets an expression nest. Each parenthesis
// pair, each sign and each '^' adds a level to what it encloses: "((1))",
// "--1" and "2^2^2" are each two levels deep.
const MaxDepth = 200

// maxLength and maxDepth are the limits Parse enforces: MaxLength and
// MaxDepth, as variables so that tests can change them, as text/template/parse
// does with maxStackDepth.
var (
	maxLength = MaxLength
	maxDepth  = MaxDepth
)

// Parse parses an expression into a tree; see the package documentation for
// the grammar. Errors are *Error: a syntax error, or one wrapping ErrTooLong
// or ErrTooDeep. Parse does not evaluate, so "1/0" and "1e400" parse; Eval
// reports them.
func Parse(expression string) (Node, error) {
	if err := checkLength(expression); err != nil {
		return nil, err
	}
	p := &parser{lex: lexer{input: expression}}
	p.next()
	if p.tok.kind == tokenEOF {
		return nil, errorAt(p.tok.pos, nil, "the expression is empty; write one such as 2 * (3 + 4)")
	}
	x, err := p.expression()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokenEOF {
		return nil, p.unexpectedAfterOperand()
	}
	return x, nil
}

// checkLength returns an error if expression is longer than maxLength
// characters. It runs before lexing, so an oversized input costs a pass or
// two over its bytes and nothing more.
func checkLength(expression string) error {
	n := 0 // characters before offset
	for offset := range expression {
		if n == maxLength {
			return &Error{
				Offset: offset,
				Column: n + 1,
				Msg:    fmt.Sprintf("expression is %d characters long; the limit is %d", utf8.RuneCountInString(expression), maxLength),
				Err:    ErrTooLong,
			}
		}
		n++
	}
	return nil
}

// A parser holds the state of one Parse. Chains of binary operators are
// loops, and every recursion (into parentheses, signs and exponents) passes
// through enter, which stops at maxDepth.
type parser struct {
	lex   lexer
	tok   token // the current token, not yet consumed
	prev  token // the token before it
	depth int   // levels of nesting entered so far
}

// next moves to the next token.
func (p *parser) next() {
	p.prev = p.tok
	p.tok = p.lex.next()
}

// expression = term { ("+" | "-") term } .
func (p *parser) expression() (Node, error) {
	x, err := p.term()
	if err != nil {
		return nil, err
	}
	for p.atOperator(expressionLevel) {
		op := p.tok
		p.next()
		y, err := p.term()
		if err != nil {
			return nil, err
		}
		x = &BinaryNode{pos: op.pos, Op: op.text[0], Left: x, Right: y}
	}
	return x, nil
}

// term = unary { ("*" | "/") unary } .
func (p *parser) term() (Node, error) {
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.atOperator(termLevel) {
		op := p.tok
		p.next()
		y, err := p.unary()
		if err != nil {
			return nil, err
		}
		x = &BinaryNode{pos: op.pos, Op: op.text[0], Left: x, Right: y}
	}
	return x, nil
}

// unary = ("+" | "-") unary | power .
func (p *parser) unary() (Node, error) {
	sign := p.tok
	if sign.text != "+" && sign.text != "-" {
		return p.power()
	}
	if err := p.enter(sign); err != nil {
		return nil, err
	}
	defer p.leave()
	p.next()
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	return &UnaryNode{pos: sign.pos, Op: sign.text[0], X: x}, nil
}

// power = operand [ "^" unary ] .
//
// The exponent is a unary, not an operand, so that 2^-1 is allowed, and
// since that unary may itself hold a power, 2^3^2 is 2^(3^2): '^' is
// right-associative. A sign before the base applies to the whole power:
// -2^2 is -(2^2).
func (p *parser) power() (Node, error) {
	x, err := p.operand()
	if err != nil || !p.atOperator(powerLevel) {
		return x, err
	}
	op := p.tok
	if err := p.enter(op); err != nil {
		return nil, err
	}
	defer p.leave()
	p.next()
	y, err := p.unary()
	if err != nil {
		return nil, err
	}
	return &BinaryNode{pos: op.pos, Op: op.text[0], Left: x, Right: y}, nil
}

// operand = number | "(" expression ")" .
func (p *parser) operand() (Node, error) {
	switch t := p.tok; t.kind {
	case tokenNumber:
		p.next()
		// The lexer has checked the syntax, so ParseFloat can fail only
		// with a range error, for which it returns ±Inf: Eval reports that.
		v, _ := strconv.ParseFloat(t.text, 64)
		return &NumberNode{pos: t.pos, Text: t.text, Value: v}, nil
	case tokenLeftParen:
		if err := p.enter(t); err != nil {
			return nil, err
		}
		defer p.leave()
		p.next()
		x, err := p.expression()
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokenRightParen {
			return nil, p.unexpected(fmt.Sprintf("')' to close the '(' at column %d", t.column()))
		}
		p.next()
		return x, nil
	}
	if p.tok.text == "*" && p.prev.text == "*" {
		return nil, errorAt(p.tok.pos, nil, "expected a number or '(', found '*'; write powers with ^, as in 2^3")
	}
	return nil, p.unexpected("a number or '('")
}

// atOperator reports whether the current token is a binary operator of the
// given precedence level.
func (p *parser) atOperator(level int) bool {
	return p.tok.kind == tokenOperator && precedence(p.tok.text[0]) == level
}

// enter records that the parser is entering one more level of nesting at t.
// It fails, before any deeper recursion, when that level is past maxDepth.
func (p *parser) enter(t token) error {
	p.depth++
	if p.depth > maxDepth {
		return errorAt(t.pos, ErrTooDeep,
			"the expression nests more than %d levels deep (each '(', sign and '^' adds one); simplify it", maxDepth)
	}
	return nil
}

// leave records that the parser has left a level of nesting.
func (p *parser) leave() { p.depth-- }

// unexpected reports the current token, which is not want, the only thing
// valid at this point. A tokenError carries the lexer's own, more precise
// message.
func (p *parser) unexpected(want string) error {
	if p.tok.kind == tokenError {
		return errorAt(p.tok.pos, nil, "%s", p.tok.text)
	}
	found := "end of expression"
	if p.tok.kind != tokenEOF {
		found = quote(p.tok.text)
	}
	return errorAt(p.tok.pos, nil, "expected %s, found %s", want, found)
}

// unexpectedAfterOperand reports the token after a complete expression,
// where only an operator or the end may come.
func (p *parser) unexpectedAfterOperand() error {
	want := "an operator (" + symbols() + ") or end of expression"
	if p.tok.kind == tokenRightParen {
		return errorAt(p.tok.pos, nil, "expected %s, found ')' with no matching '('", want)
	}
	return p.unexpected(want)
}
