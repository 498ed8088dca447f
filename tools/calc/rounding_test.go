package calc

import (
	"math"
	"strconv"
	"strings"
)

// A rounded value is what a float64 evaluation of a tree computes, as expr
// computes it, with a bound on how far that is from the exact value:
// running error analysis, as in Higham, Accuracy and Stability of
// Numerical Algorithms, section 3.3. The oracle needs the bound because
// float64 can lose every digit: to expr, 1e16 + 1 - 1e16 is 0.
type rounded struct {
	value float64
	bound float64 // |value - exact| ≤ bound; +Inf when nothing is known
	exact bool    // every value on the way is an integer below 2^53, so value is exact
}

const (
	unit = 0x1p-53   // the unit roundoff: a rounding moves a value by at most |v|·unit
	tiny = 0x1p-1074 // …plus half this, below the normal range
)

// rounding evaluates a tree in float64 as expr does: literals by
// strconv.ParseFloat, + - * / in IEEE arithmetic, ^ by math.Pow.
func rounding(n Node) rounded {
	switch n := n.(type) {
	case *numberNode:
		v, _ := strconv.ParseFloat(n.Text(), 64)
		digits := strings.Trim(n.Text(), "0123456789") == ""
		return rounded{v, roundoff(v), digits && math.Abs(v) < 1<<53}
	case *unaryNode:
		x := rounding(n.X)
		if n.Op == '-' {
			x.value = -x.value
		}
		return x
	case *binaryNode:
		return combineRounded(n.Op, rounding(n.Left), rounding(n.Right))
	}
	panic("rounding: not a tree from Parse")
}

// roundoff bounds the error of rounding a result to v, with a factor of 2
// to spare.
func roundoff(v float64) float64 { return 2 * (math.Abs(v)*unit + tiny) }

// exprArithmetic returns x op y as expr computes it: in IEEE 754
// arithmetic, and '^' by math.Pow.
func exprArithmetic(op byte, x, y float64) float64 {
	if op == '^' {
		return math.Pow(x, y)
	}
	return approximately(op, x, y)
}

// combineRounded returns x op y and its bound, from the bounds of x and y.
func combineRounded(op byte, x, y rounded) rounded {
	v := exprArithmetic(op, x.value, y.value)
	ax, ay, ex, ey := math.Abs(x.value), math.Abs(y.value), x.bound, y.bound
	var e float64
	switch op {
	case '+', '-':
		e = ex + ey
	case '*':
		e = ax*ey + ay*ex + ex*ey
	case '/':
		e = math.Inf(1)
		if ey < ay {
			e = (ax*ey + ay*ex) / (ay * (ay - ey))
		}
	case '^':
		e = math.Abs(v) * powError(x, y)
	}
	r := rounded{value: v, bound: e + roundoff(v)}
	if math.IsInf(v, 0) || math.IsNaN(v) || math.IsNaN(r.bound) {
		r.bound = math.Inf(1)
	}
	integer := v == math.Trunc(v) && math.Abs(v) < 1<<53
	r.exact = x.exact && y.exact && integer && (op != '^' || y.value >= 0)
	if r.exact {
		r.bound = 0
	}
	return r
}

// powError bounds the relative error of math.Pow(x, y): its own, which
// grows with |y| as its squarings do and with the logarithm it takes for
// a fraction, and what the errors of x and y become. +Inf when x may be 0
// or change sign, or y may stop being an integer under a negative x.
func powError(x, y rounded) float64 {
	ax, ay := math.Abs(x.value), math.Abs(y.value)
	own := (2*ay + 512) * unit
	switch {
	case x.bound == 0 && y.bound == 0:
		return own
	case x.bound >= ax, x.value < 0 && y.bound > 0:
		return math.Inf(1)
	}
	delta := x.bound / ax
	r := (ay+y.bound)*delta/(1-delta) + math.Abs(math.Log(ax))*y.bound
	return math.Expm1(r) + own*(1+math.Expm1(r))
}
