// The parser is a recursive descent, as in text/template/parse: one method
// per grammar rule, with the rule's EBNF production above it. A rule's
// operators, such as term_op, are the rows of the table in operator.go at
// its level, as doc.go says.

package calc

import (
	"fmt"
	"unicode/utf8"
)

// MaxLength is the longest expression Parse accepts, in characters (runes).
const MaxLength = 10000

// MaxDepth is how deeply Parse lets an expression nest. Each parenthesis
// pair, sign and '^' adds a level: "((1))", "--1" and "2^2^2" are two deep.
const MaxDepth = 200

// maxLength and maxDepth are variables so that tests can change them, as
// text/template/parse's tests do maxStackDepth.
var (
	maxLength = MaxLength
	maxDepth  = MaxDepth
)

// Parse parses an expression into a tree. Its errors are *Error: a syntax
// error, or one wrapping ErrTooLong or ErrTooDeep. Parse does not
// evaluate: "1/0" and "1e400" parse, and Eval reports them.
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
	if p.tok.kind == tokenEOF {
		return x, nil
	}
	want := "an operator (" + symbols() + ") or end of expression"
	if p.tok.kind == tokenRightParen {
		return nil, errorAt(p.tok.pos, nil, "expected %s, found ')' with no matching '('", want)
	}
	return nil, p.unexpected(want)
}

// checkLength fails if expression is longer than maxLength characters,
// before the lexer runs, so that an oversized input costs a pass or two.
func checkLength(expression string) error {
	n := 0 // characters before offset
	for offset := range expression {
		if n == maxLength {
			return &Error{Offset: offset, Column: n + 1, Err: ErrTooLong, Msg: fmt.Sprintf(
				"expression is %d characters long; the limit is %d", utf8.RuneCountInString(expression), maxLength)}
		}
		n++
	}
	return nil
}

// A parser holds the state of one Parse. Chains of binary operators are
// loops; every recursion passes through nested, which stops at maxDepth.
type parser struct {
	lex   lexer
	tok   token // the current token, not yet consumed
	prev  token // the token before it
	depth int   // levels of nesting entered
}

func (p *parser) next() { p.prev, p.tok = p.tok, p.lex.next() }

// expression = term { expression_op term } .
func (p *parser) expression() (Node, error) { return p.chain(expressionLevel, p.term) }

// term = unary { term_op unary } .
func (p *parser) term() (Node, error) { return p.chain(termLevel, p.unary) }

// chain parses operands joined by the operators of level, grouping them
// from the left: 2-3-4 is (2-3)-4.
func (p *parser) chain(level int, operand func() (Node, error)) (Node, error) {
	start := p.tok.pos
	x, err := operand()
	if err != nil {
		return nil, err
	}
	for p.atOperator(level) {
		op := p.tok
		p.next()
		y, err := operand()
		if err != nil {
			return nil, err
		}
		x = &binaryNode{pos: op.pos, source: source{p.since(start)}, Op: op.text[0], Left: x, Right: y}
	}
	return x, nil
}

// unary = ("+" | "-") unary | power .
func (p *parser) unary() (Node, error) {
	sign := p.tok
	if sign.text != "+" && sign.text != "-" {
		return p.power()
	}
	x, err := p.nested(sign, p.unary)
	if err != nil {
		return nil, err
	}
	return &unaryNode{pos: sign.pos, source: source{p.since(sign.pos)}, Op: sign.text[0], X: x}, nil
}

// power = operand [ power_op unary ] .
//
// The exponent is a unary, so it may be signed, 2^-1, and may hold a power,
// so '^' groups from the right: 2^3^2 is 2^(3^2). A sign before the base
// takes the whole power: -2^2 is -(2^2).
func (p *parser) power() (Node, error) {
	start := p.tok.pos
	x, err := p.operand()
	if err != nil || !p.atOperator(powerLevel) {
		return x, err
	}
	op := p.tok
	y, err := p.nested(op, p.unary)
	if err != nil {
		return nil, err
	}
	return &binaryNode{pos: op.pos, source: source{p.since(start)}, Op: op.text[0], Left: x, Right: y}, nil
}

// operand = number | "(" expression ")" .
func (p *parser) operand() (Node, error) {
	switch t := p.tok; t.kind {
	case tokenNumber:
		p.next()
		return &numberNode{pos: t.pos, source: source{t.text}}, nil
	case tokenLeftParen:
		x, err := p.nested(t, p.expression)
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokenRightParen {
			return nil, p.unexpected(fmt.Sprintf("')' to close the '(' at column %d", t.column()))
		}
		p.next()
		x.enclose(p.since(t.pos))
		return x, nil
	}
	if p.tok.text == "*" && p.prev.text == "*" {
		return nil, errorAt(p.tok.pos, nil, "expected a number or '(', found '*'; write powers with ^, as in 2^3")
	}
	return nil, p.unexpected("a number or '('")
}

// since returns the expression's text from start to the end of the token
// just read: the source of the node read from start.
func (p *parser) since(start pos) string {
	return p.lex.input[start : int(p.prev.pos)+len(p.prev.text)]
}

// atOperator reports whether the current token is an operator of level.
func (p *parser) atOperator(level int) bool {
	return p.tok.kind == tokenOperator && precedence(p.tok.text[0]) == level
}

// nested moves past t, which opens a level of nesting, and parses what it
// encloses with rule, unless that level is past maxDepth.
func (p *parser) nested(t token, rule func() (Node, error)) (Node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, errorAt(t.pos, ErrTooDeep,
			"the expression nests more than %d levels deep (each '(', sign and '^' adds one); simplify it", maxDepth)
	}
	p.next()
	return rule()
}

// unexpected reports the current token where only want is valid. A
// tokenError carries the lexer's own, more precise message.
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
