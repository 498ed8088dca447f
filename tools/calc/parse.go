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
	p := &parser{lex: newLexer(expression)}
	p.next()
	if p.tok.kind == tokenEOF {
		return nil, p.errorf(p.tok, nil, "the expression is empty; write one such as 2 * (3 + 4)")
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
// characters. It runs before lexing, so an oversized input costs one pass
// over its bytes and nothing more.
func checkLength(expression string) error {
	if len(expression) <= maxLength { // no more runes than bytes
		return nil
	}
	n := utf8.RuneCountInString(expression)
	if n <= maxLength {
		return nil
	}
	offset := 0 // of the first character past the limit
	for i := 0; i < maxLength; i++ {
		_, size := utf8.DecodeRuneInString(expression[offset:])
		offset += size
	}
	return &Error{
		Offset: offset,
		Column: maxLength + 1,
		Msg:    fmt.Sprintf("expression is %d characters long; the limit is %d", n, maxLength),
		Err:    ErrTooLong,
	}
}

// A parser builds the tree by recursive descent, one method per grammar
// rule. Chains of binary operators are loops, and every recursion (into
// parentheses, signs and exponents) passes through enter, which stops at
// maxDepth: so the Go stack stays small whatever the input.
type parser struct {
	lex   lexer
	tok   token     // the current token, not yet consumed
	prev  tokenKind // the kind of the token before it
	depth int       // levels of nesting entered so far
}

// next moves to the next token.
func (p *parser) next() {
	p.prev = p.tok.kind
	p.tok = p.lex.next()
}

// expression = term { ("+" | "-") term } .
func (p *parser) expression() (Node, error) {
	x, err := p.term()
	for err == nil && (p.tok.kind == tokenPlus || p.tok.kind == tokenMinus) {
		op := p.tok
		p.next()
		var y Node
		if y, err = p.term(); err == nil {
			x = p.binary(op, x, y)
		}
	}
	return x, err
}

// term = unary { ("*" | "/") unary } .
func (p *parser) term() (Node, error) {
	x, err := p.unary()
	for err == nil && (p.tok.kind == tokenStar || p.tok.kind == tokenSlash) {
		op := p.tok
		p.next()
		var y Node
		if y, err = p.unary(); err == nil {
			x = p.binary(op, x, y)
		}
	}
	return x, err
}

// unary = ("+" | "-") unary | power .
func (p *parser) unary() (Node, error) {
	if p.tok.kind != tokenPlus && p.tok.kind != tokenMinus {
		return p.power()
	}
	sign := p.tok
	if err := p.enter(sign); err != nil {
		return nil, err
	}
	p.next()
	x, err := p.unary()
	p.depth--
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
	if err != nil || p.tok.kind != tokenCaret {
		return x, err
	}
	op := p.tok
	if err := p.enter(op); err != nil {
		return nil, err
	}
	p.next()
	y, err := p.unary()
	p.depth--
	if err != nil {
		return nil, err
	}
	return p.binary(op, x, y), nil
}

// operand = number | "(" expression ")" .
func (p *parser) operand() (Node, error) {
	switch t := p.tok; t.kind {
	case tokenNumber:
		p.next()
		return p.number(t), nil
	case tokenLeftParen:
		if err := p.enter(t); err != nil {
			return nil, err
		}
		p.next()
		x, err := p.expression()
		p.depth--
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokenRightParen {
			return nil, p.unexpected(fmt.Sprintf("')' to close the '(' at column %d", t.column))
		}
		p.next()
		return x, nil
	}
	if p.tok.kind == tokenStar && p.prev == tokenStar {
		return nil, p.errorf(p.tok, nil, "expected a number or '(', found '*'; write powers with ^, as in 2^3")
	}
	return nil, p.unexpected("a number or '('")
}

// enter records that the parser is entering one more level of nesting at t.
// It fails, before any deeper recursion, when that level is past maxDepth.
func (p *parser) enter(t token) error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf(t, ErrTooDeep,
			"the expression nests more than %d levels deep (each '(', sign and '^' adds one); simplify it", maxDepth)
	}
	return nil
}

// unexpected reports that the current token is not what the grammar wants at
// this point. A tokenError carries the lexer's own, more precise message.
func (p *parser) unexpected(want string) error {
	if p.tok.kind == tokenError {
		return p.errorf(p.tok, nil, "%s", p.tok.text)
	}
	return p.errorf(p.tok, nil, "expected %s, found %s", want, describe(p.tok))
}

// unexpectedAfterOperand reports the token after a complete expression,
// where only an operator or the end may come.
func (p *parser) unexpectedAfterOperand() error {
	if p.tok.kind == tokenRightParen {
		return p.errorf(p.tok, nil, "expected an operator (+ - * / ^) or end of expression, found ')' with no matching '('")
	}
	return p.unexpected("an operator (+ - * / ^) or end of expression")
}

// errorf returns an *Error at token t.
func (p *parser) errorf(t token, sentinel error, format string, args ...any) error {
	return errorAt(t.pos, sentinel, format, args...)
}

// describe names a token in a message: "')'", "'2.5'" or "end of expression".
func describe(t token) string {
	if t.kind == tokenEOF {
		return "end of expression"
	}
	return quote(t.text)
}

// binary makes the node for the operator op applied to x and y.
func (p *parser) binary(op token, x, y Node) *BinaryNode {
	return &BinaryNode{pos: op.pos, Op: op.text[0], Left: x, Right: y}
}

// number makes the node for a number token. The lexer has checked the
// syntax, so ParseFloat can fail only with a range error, for which it
// returns ±Inf: Eval reports that.
func (p *parser) number(t token) *NumberNode {
	v, _ := strconv.ParseFloat(t.text, 64)
	return &NumberNode{pos: t.pos, Text: t.text, Value: v}
}
