// Evaluation walks the tree in float64 and turns the results IEEE
// arithmetic would carry on with, ±Inf and NaN, into errors at the
// operator responsible, since JSON cannot carry them and a model cannot
// act on them.

package calc

import (
	"fmt"
	"math"
	"strconv"
)

// Eval evaluates a parsed tree in float64 arithmetic (IEEE 754, round to
// nearest even), as Go computes: x+y, x-y, x*y, x/y and math.Pow(x, y) for
// x^y. Operands are evaluated left to right. The result is exact IEEE,
// negative zero included: -0 evaluates to -0.
//
// Eval stops at the first fault and returns an *Error at the operator or
// number responsible, wrapping
//   - ErrDivisionByZero for a zero divisor, 0/0 included, at the '/';
//   - ErrNotFinite for a number or a result that is ±Inf or NaN in float64,
//     such as 1e400, 1e308*10, 0^-1 or (-8)^(1/3), at the number or operator.
//
// Eval recurses once per level of the tree. A tree from Parse is at most
// about 5,000 levels deep, however it leans (see Limits in the package
// documentation).
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
		if err != nil {
			return 0, err
		}
		if n.Op == '-' {
			return -x, nil
		}
		return x, nil
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
	return 0, &Error{Column: 1, Msg: fmt.Sprintf("cannot evaluate %T; pass a tree from Parse", n)}
}

// Evaluate parses and evaluates an expression: Parse then Eval. On success
// it returns the value and the tree; the tree is also returned if Parse
// succeeded and Eval failed.
func Evaluate(expression string) (value float64, tree Node, err error) {
	tree, err = Parse(expression)
	if err != nil {
		return 0, nil, err
	}
	value, err = Eval(tree)
	return value, tree, err
}

// apply returns x n.Op y, or an error if that is a division by zero or not
// finite. Every operator in the table (operator.go) needs a case here.
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
