// Evaluation turns ±Inf and NaN, which IEEE arithmetic carries on with,
// into errors: JSON cannot carry them, and a model cannot act on them.

package calc

import (
	"math"
	"strconv"
)

// Eval evaluates a tree in float64 as Go computes (IEEE 754, round to
// nearest even), left operand first: math.Pow for '^'.
// The result is exact IEEE, -0 included, and 1e-400 is 0. A zero divisor,
// 0/0 included, is an *Error wrapping ErrDivisionByZero, and a number or
// result that is ±Inf or NaN (1e400, 1e308*10, 0^-1, (-8)^(1/3)) one
// wrapping ErrNotFinite, at the operator or number responsible.
//
// Eval recurses once per level of the tree. A chain such as 1+1+…+1 is as
// deep as it is long, but MaxLength holds it to 5,000 operators.
func Eval(n Node) (float64, error) {
	switch n := n.(type) {
	case *NumberNode:
		if math.IsInf(n.Value, 0) {
			return 0, errorAt(n.pos, ErrNotFinite,
				"the number %s is not finite in float64, whose limit is about 1.8e308", shorten(n.Text))
		}
		return n.Value, nil
	case *UnaryNode:
		x, err := Eval(n.X)
		if n.Op == '-' {
			x = -x
		}
		return x, err
	case *BinaryNode:
		x, err := Eval(n.Left)
		if err != nil {
			return 0, err
		}
		y, err := Eval(n.Right)
		if err != nil {
			return 0, err
		}
		return apply(n, x, y)
	}
	return 0, errorAt(0, nil, "cannot evaluate %T; pass a tree from Parse", n)
}

// Evaluate parses and evaluates an expression: Parse, then Eval. It returns
// the tree whenever Parse succeeds, even if Eval fails.
func Evaluate(expression string) (value float64, tree Node, err error) {
	tree, err = Parse(expression)
	if err != nil {
		return 0, nil, err
	}
	value, err = Eval(tree)
	return value, tree, err
}

// apply returns x n.Op y, or an error for a division by zero or a result
// that is not finite. Every operator in the table needs a case here.
func apply(n *BinaryNode, x, y float64) (float64, error) {
	var z float64
	switch n.Op {
	case '+':
		z = x + y
	case '-':
		z = x - y
	case '*':
		z = x * y
	case '/':
		if y == 0 {
			return 0, errorAt(n.pos, ErrDivisionByZero,
				"division by zero in %s / %s; a divisor must not be zero", format(x), format(y))
		}
		z = x / y
	case '^':
		z = math.Pow(x, y)
	default:
		return 0, errorAt(n.pos, nil, "unknown operator '%c'; give it a case in apply, in eval.go", n.Op)
	}
	if !math.IsInf(z, 0) && !math.IsNaN(z) {
		return z, nil
	}
	why := "float64 results must lie within about ±1.8e308"
	switch {
	case n.Op == '^' && x == 0:
		why = "zero has no negative powers"
	case n.Op == '^' && x < 0 && math.IsNaN(z):
		why = "a negative number has no real power with a fractional exponent"
	}
	return 0, errorAt(n.pos, ErrNotFinite, "the result of %s %c %s is not finite (%s); %s",
		format(x), n.Op, format(y), format(z), why)
}

// format prints a value in messages as the corpus and the MCP tool do.
func format(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
