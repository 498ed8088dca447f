// The binary operators are rows of one table, read by the lexer, the parser,
// the messages and the calculate tool: adding one is a row, and its cases
// in exactly and approximately, in eval.go.

package calc

import (
	"slices"
	"strings"
)

// An Operator is a binary operator: how it is written, how tightly it binds
// and which way a chain of it groups.
type Operator struct {
	Symbol     byte // one ASCII character: '+'
	level      int  // its precedence, from 1, the loosest (+), to 3, the tightest (^)
	RightAssoc bool // whether a chain groups from the right: 2^3^2 = 2^(3^2)
}

// The precedence levels, loosest first, each named after the grammar rule
// in parse.go that takes its operators; the grammar writes them as the
// rule's name and _op: term_op is the operators of termLevel.
const (
	expressionLevel = 1
	termLevel       = 2
	powerLevel      = 3
)

// operators is the table of binary operators, loosest first, in the order
// messages list them.
var operators = []Operator{
	{Symbol: '+', level: expressionLevel},
	{Symbol: '-', level: expressionLevel},
	{Symbol: '*', level: termLevel},
	{Symbol: '/', level: termLevel},
	{Symbol: '^', level: powerLevel, RightAssoc: true},
}

// Operators returns the binary operators, loosest first.
func Operators() []Operator { return slices.Clone(operators) }

// precedence returns the precedence of the operator c, or 0 if c is none.
func precedence(c byte) int {
	for _, op := range operators {
		if op.Symbol == c {
			return op.level
		}
	}
	return 0
}

// symbols returns the operators as messages list them: "+ - * / ^".
func symbols() string {
	list := make([]string, len(operators))
	for i, op := range operators {
		list[i] = string(op.Symbol)
	}
	return strings.Join(list, " ")
}
