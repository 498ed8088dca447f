// The binary operators are listed once, in a table that the lexer, the
// parser's loops and the error messages read, and that the calculate tool
// describes, so that adding an operator is adding a row (and a case to
// apply, in eval.go, for what it computes).

package calc

import (
	"slices"
	"strings"
)

// An Operator is a binary operator: how it is written, how tightly it binds
// and which way a chain of it groups.
type Operator struct {
	Symbol     byte // one ASCII character: '+'
	Precedence int  // from 1, the loosest (+), to 3, the tightest (^)
	RightAssoc bool // whether a chain groups from the right: 2^3^2 = 2^(3^2)
}

// The precedence levels, loosest first. Each is read by the grammar rule it
// is named after, in parse.go: the rule's loop (or option, for power)
// takes every operator of its level.
const (
	expressionLevel = 1
	termLevel       = 2
	powerLevel      = 3
)

// operators is the table of binary operators, loosest first, in the order
// messages list them.
var operators = []Operator{
	{Symbol: '+', Precedence: expressionLevel},
	{Symbol: '-', Precedence: expressionLevel},
	{Symbol: '*', Precedence: termLevel},
	{Symbol: '/', Precedence: termLevel},
	{Symbol: '^', Precedence: powerLevel, RightAssoc: true},
}

// Operators returns the binary operators, loosest first.
func Operators() []Operator { return slices.Clone(operators) }

// precedence returns the precedence of the operator written c, or 0 if c
// is no operator.
func precedence(c byte) int {
	for _, op := range operators {
		if op.Symbol == c {
			return op.Precedence
		}
	}
	return 0
}

// symbols returns the operators as messages list them, such as "+ - * / ^".
func symbols() string {
	list := make([]string, len(operators))
	for i, op := range operators {
		list[i] = string(op.Symbol)
	}
	return strings.Join(list, " ")
}
