// Evaluation is exact where arithmetic is exact, and the nearest float64
// where it cannot be; it turns ±Inf and NaN, which IEEE arithmetic carries
// on with, into errors: JSON cannot carry them, and a model cannot act on
// them.

package calc

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// Eval evaluates a tree, left operand first, exactly where it can:
//
//   - A number is the exact value it writes (0.1 is 1/10), and the
//     operations that keep values rational are exact, with math/big.Rat:
//     signs, '+', '-', '*', '/', and '^' when the power is a fraction:
//     with an integer exponent, or with p/q in lowest terms when the
//     base's numerator and denominator are q-th powers. So 0.1 + 0.2 is
//     0.3, 2^64 is 18446744073709551616, 16^0.75 is 8, and (-8)^(1/3) is
//     -2: a negative base has the real root when q is odd, and no power
//     when q is even.
//   - Any other value is approximate, a float64, and so is everything
//     computed from it: an irrational power (2^0.5), a number with more
//     than MaxBits/3 significant digits, and a value whose numerator or
//     denominator would need more than MaxBits bits ((5/6)^2047). Each is
//     the float64 nearest to the exact result of its operation on its
//     operands as they are, an exact operand being its fraction and an
//     approximate one its float64, halfway cases to even: '+', '-', '*'
//     and '/' are computed exactly and rounded once, as IEEE 754 rounds
//     them, and an irrational power, or one too large for MaxBits
//     ((1+1e-9)^1e9), is computed to as many bits as its rounding needs
//     (explog.go). So 2^(1/3) is the float64 nearest to the cube root of
//     2, and (2^0.5)^2 is 2.0000000000000004, the float64 nearest to the
//     square of 2^0.5's float64: each step is rounded, not the expression
//     as a whole.
//   - Exact arithmetic on values of thousands of bits costs time; once it
//     has done a bounded amount of work in its products, divisions and
//     gcds, and in rounding powers (maxWork, about 2 ms), the next number
//     or operator is refused, an *Error wrapping ErrTooCostly: an answer
//     is never made approximate, or less accurate, to save work. No
//     expression a person writes comes near that; a few hundred sums of
//     1,000-bit fractions, or a thousand irrational powers, do. A power
//     whose rounding 1,536 bits do not settle is refused so too: one within
//     about 2^-1500 of halfway between two float64s, such as
//     ((1+2^-53)^2+2^-1530)^0.5.
//
// Exact values are bounded by exact arithmetic's own limits, not by
// float64's range: MaxBits, above and below the line, so that 1e400 and
// 1e-400 are exact alike, and MaxDigits, to be written. Approximate values
// are float64s, and must be finite: a number or result past about
// ±1.8e308 (1e2000, 2^100000, 2^0.5 * 1e308 * 10), 0^-1 and (-8)^0.5 are
// each an *Error wrapping ErrNotFinite, and a zero divisor, 0/0 included,
// one wrapping ErrDivisionByZero, at the number or operator responsible.
// An approximate value is never 0 unless it is 0: a number or result that
// float64 would round to 0 is an *Error wrapping ErrUnderflow (1e-2000,
// (2/3)^3000, 2^0.5 * 1e-324), lest a later division by it report a
// division by zero, or a product with a large value be 0.
//
// An exact result that String cannot write, its expansion not ending
// within MaxDigits, is written as its nearest float64; if that is 0 or
// ±Inf (1e-400/3, 10^400/3, 2^1024), the result is refused, an *Error
// wrapping ErrUnderflow or ErrNotFinite alike, rather than written as a
// value it is not. Errors quote the expression as written, never an
// operand rounded to float64.
//
// Eval recurses once per level of the tree. A chain such as 1+1+…+1 is as
// deep as it is long, but MaxLength holds it to 5,000 operators.
func Eval(n Node) (*Value, error) {
	var e evaluator
	v := new(Value)
	if err := e.eval(v, n); err != nil {
		return nil, err
	}
	if _, written := v.decimal(); !written && v.exact {
		if f := v.float64(); f == 0 || math.IsInf(f, 0) {
			return nil, unwritable(n, v, f)
		}
	}
	return v, nil
}

// Evaluate parses and evaluates an expression: Parse, then Eval. It returns
// the tree whenever Parse succeeds, even if Eval fails.
func Evaluate(expression string) (value *Value, tree Node, err error) {
	tree, err = Parse(expression)
	if err != nil {
		return nil, nil, err
	}
	value, err = Eval(tree)
	return value, tree, err
}

// An evaluator holds the values of one Eval that are not its result: right
// operands, and each operation's result before it replaces its left
// operand. They are reused, so that a chain of 5,000 operations allocates a
// few values rather than 5,000.
type evaluator struct {
	spare  []*Value // right operands not in use
	result Value
	fx, fy big.Rat // approximate operands as fractions, for exactly
	powers         // the integers of power
	fix    fixed   // the integers of nearestPower, a field: t, r and others are arith's names too
	arith
}

// eval sets v to the value of n, as big.Rat's methods set their receiver.
func (e *evaluator) eval(v *Value, n Node) error {
	switch n := n.(type) {
	case *numberNode:
		if e.spent() {
			return tooCostly(n.pos)
		}
		e.number(v, n.Text())
		if v.exact {
			return nil
		}
		// Read approximately: a number that is not 0 is never read as 0,
		// and none is ±Inf.
		unread := fmt.Sprintf("exact arithmetic does not read it (it has more than %d significant digits, "+
			"or needs more than %d bits above or below the line)", MaxBits/3, MaxBits)
		switch {
		case v.float == 0:
			return errorAt(n.pos, ErrUnderflow, "the number %s is too small: it is not 0, but %s, and float64, "+
				"whose least value is about 4.9e-324, would round it to 0", shorten(n.Text()), unread)
		case math.IsInf(v.float, 0):
			return errorAt(n.pos, ErrNotFinite, "the number %s is too large: %s, and float64 "+
				"holds nothing beyond about ±1.8e308", shorten(n.Text()), unread)
		}
		return nil
	case *unaryNode:
		err := e.eval(v, n.X)
		if n.Op == '-' {
			v.neg()
		}
		return err
	case *binaryNode:
		if err := e.eval(v, n.Left); err != nil {
			return err
		}
		y := e.get()
		defer e.put(y)
		if err := e.eval(y, n.Right); err != nil {
			return err
		}
		return e.apply(n, v, y)
	}
	return errorAt(0, nil, "cannot evaluate %T; pass a tree from Parse", n)
}

func (e *evaluator) get() *Value {
	if len(e.spare) == 0 {
		return new(Value)
	}
	v := e.spare[len(e.spare)-1]
	e.spare = e.spare[:len(e.spare)-1]
	return v
}

func (e *evaluator) put(v *Value) { e.spare = append(e.spare, v) }

// apply sets x to x n.Op y, or returns an error, leaving x as it was, for
// a division by zero or an approximate result that is ±Inf, NaN, or 0
// where the exact result is not. An exact result is not a float64, and
// float64's range does not bound it.
//
// Here, and in number for numbers, is the rule of exactness: the result is
// exact when both operands are and exactly can compute it, which it cannot
// for an irrational power or one too large for MaxBits; then
// approximatePower computes it. An exact result that needs
// more than MaxBits bits all the same is rounded to float64. Either way
// the value is approximate from then on, and so is everything computed
// from it.
//
// An approximate operand is a float64, which is a fraction too, with a
// power of two below the line: with an exact one, it is computed with
// exactly and rounded once, so that 0.1 is not rounded before it is
// added, and with another approximate one IEEE 754 arithmetic rounds the
// exact result of + - * / too. Either way the result is the float64
// nearest to the exact result of the operation on its operands as they
// are.
func (e *evaluator) apply(n *binaryNode, x, y *Value) error {
	if precedence(n.Op) == 0 {
		return errorAt(n.pos, nil, "unknown operator '%c'; give it a row in the table in operator.go", n.Op)
	}
	if e.spent() {
		return tooCostly(n.pos)
	}
	if n.Op == '/' && y.isZero() {
		return errorAt(n.pos, ErrDivisionByZero, "division by zero in %s; a divisor must not be zero", operation(n))
	}
	// An approximate result is never 0 unless it is 0, lest a later
	// division by it report a division by zero, or a product with a large
	// value be 0. IEEE 754 rounds a sum to 0 only when it is 0, float64's
	// least values being evenly spaced, but not a product or a quotient.
	z := &e.result
	a, b := fraction(x, &e.fx), fraction(y, &e.fy)
	switch {
	case !x.exact && !y.exact && n.Op != '^':
		z.setFloat(approximately(n.Op, x.float, y.float))
		if z.float == 0 && !x.isZero() && (n.Op == '/' || n.Op == '*' && !y.isZero()) {
			return underflow(n, x, y)
		}
	case !e.exactly(n.Op, z.setRat(), a, b): // a power whose value is irrational, or too large
		if err := e.approximatePower(n, z, x, y, a, b); err != nil {
			return err
		}
	case !x.exact || !y.exact || !z.fits():
		f := e.float64(z)
		if f == 0 && z.rat.Sign() != 0 {
			return underflow(n, x, y)
		}
		z.setFloat(f) // rounded once, to go on approximate
	}
	if !z.exact && (math.IsInf(z.float, 0) || math.IsNaN(z.float)) {
		return notFinite(n, x, y, z.float)
	}
	*x, *z = *z, *x // x takes the result, and the result x's memory, to reuse
	return nil
}

// exactly sets z to x op y exactly, and reports whether it could: a power
// needs a rational result, and one that MaxBits bits can hold. Every
// operator in the table needs a case here and in approximately; a
// division's divisor is not zero.
func (e *evaluator) exactly(op byte, z, x, y *big.Rat) bool {
	switch op {
	case '+':
		e.add(z, x, y, false)
	case '-':
		e.add(z, x, y, true)
	case '*':
		e.mul(z, x, y)
	case '/':
		e.quo(z, x, y)
	case '^':
		return e.power(z, x, y)
	default:
		return false
	}
	return true
}

// approximately returns x op y in float64, for two approximate operands:
// IEEE 754 rounds the exact result of each of + - * / to the nearest
// float64, as apply promises. A power is never computed here, but by
// approximatePower. An operator without a case here gives NaN, reported
// as not finite.
func approximately(op byte, x, y float64) float64 {
	switch op {
	case '+':
		return x + y
	case '-':
		return x - y
	case '*':
		return x * y
	case '/':
		return x / y
	}
	return math.NaN()
}

// tooCostly returns the error for a number or operation at p that comes
// once the work of exact arithmetic is past maxWork, or for a power whose
// rounding 1,536 bits did not settle (a precise one).
func tooCostly(p pos) error {
	return errorAt(p, ErrTooCostly, "the expression is too costly to compute exactly: "+
		"the arithmetic before this point used up the work one evaluation may do (about 2 ms); "+
		"split it into smaller expressions")
}

// underflow returns the error for a result of x n.Op y that is not 0,
// but approximate, and that float64 rounds to 0.
func underflow(n *binaryNode, x, y *Value) error {
	return errorAt(n.pos, ErrUnderflow, "the result of %s is too small: it is not 0, but it is approximate (%s), "+
		"and float64, whose least value is about 4.9e-324, would round it to 0", operation(n), approximateBecause(n, x, y))
}

// notFinite returns the error for a result z of x n.Op y, approximate,
// that is ±Inf or NaN in float64.
func notFinite(n *binaryNode, x, y *Value, z float64) error {
	return errorAt(n.pos, ErrNotFinite, "the result of %s is not finite in float64 (%s): it is approximate (%s), "+
		"and float64 holds nothing beyond about ±1.8e308", operation(n), strconv.FormatFloat(z, 'g', -1, 64),
		approximateBecause(n, x, y))
}

// approximateBecause says, for a message, why the result of x n.Op y is
// approximate.
func approximateBecause(n *binaryNode, x, y *Value) string {
	switch {
	case !x.exact:
		return "as " + asWritten(n.Left) + " is"
	case !y.exact:
		return "as " + asWritten(n.Right) + " is"
	case n.Op == '^' && !y.rat.IsInt():
		return fmt.Sprintf("the power is irrational, or its numerator or denominator would need more than %d bits", MaxBits)
	}
	return fmt.Sprintf("its numerator or denominator would need more than %d bits", MaxBits)
}

// unwritable returns the error for v, Eval's result on n: exact, but its
// decimal expansion does not end within MaxDigits significant digits, and
// its nearest float64, f, which String would write instead, is 0 or ±Inf.
// It says by what power of ten to scale the expression to read its
// leading digits: about the inverse of v's magnitude, which its parts'
// lengths in bits give.
func unwritable(n Node, v *Value, f float64) error {
	sentinel, size, why := ErrUnderflow, "small", "float64, whose least value is about 4.9e-324, would round it to 0"
	if f != 0 {
		sentinel, size, why = ErrNotFinite, "large", "float64 holds nothing beyond about ±1.8e308"
	}
	magnitude := math.Round(float64(v.rat.Num().BitLen()-v.rat.Denom().BitLen()) * math.Log10(2))
	return errorAt(pos(n.offset()), sentinel, "the result is exact, but too %s to write: its decimal expansion "+
		"does not end within %d significant digits, and %s; multiply the expression by 1e%d to read its leading digits",
		size, MaxDigits, why, int(-magnitude))
}

// neg sets v to -v.
func (v *Value) neg() {
	if v.exact {
		v.rat.Neg(v.rat)
	} else {
		v.float = -v.float
	}
}

// operation writes n as written, for a message: its operands as the
// reader wrote them, about its operator: "(1+2^-1000) ^ (2^1010)".
func operation(n *binaryNode) string {
	return asWritten(n.Left) + " " + string(n.Op) + " " + asWritten(n.Right)
}
