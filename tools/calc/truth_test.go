package calc

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The truth of an expression is its value as the package documentation
// defines it, computed here apart from Eval, with math/big's own
// arithmetic and algorithms unlike Eval's: a value is exact, a fraction,
// while both operands are and the result is a fraction of at most MaxBits
// bits a part, whatever its size in float64; otherwise it is approximate,
// the float64 nearest to the exact result of its operation on its
// operands as they are (an exact operand being its fraction, an
// approximate one its float64), or an error if that is ±Inf, or 0 where
// the exact result is not. That exact result is kept, as a fraction where
// it is one and otherwise in big.Float to some 300 bits, so that Eval's
// float64 can be checked to lie within half an ulp of it.
type truth struct {
	exact bool
	rat   *big.Rat   // the value, when exact
	float float64    // the value, when approximate
	near  *big.Float // when approximate, the exact result it rounds, or nil if unknown
	err   error      // the sentinel error Eval must return, or nil
}

// truthOf evaluates a tree as truth describes. A number is read by Eval,
// whose rules for reading one exactly TestCorpus checks; its float64, when
// approximate, is checked against the number's value all the same.
func truthOf(n Node) truth {
	switch n := n.(type) {
	case *numberNode:
		v, err := Eval(n)
		if err != nil {
			return truth{err: sentinel(err)}
		}
		if v.exact {
			return truth{exact: true, rat: v.rat}
		}
		tr := truth{float: v.float}
		if r, ok := new(big.Rat).SetString(n.Text()); ok {
			tr.near = new(big.Float).SetPrec(2048).SetRat(r)
		}
		return tr
	case *unaryNode:
		x := truthOf(n.X)
		if n.Op == '-' && x.err == nil {
			if x.exact {
				x.rat = new(big.Rat).Neg(x.rat)
			} else {
				x.float = -x.float
				if x.near != nil {
					x.near = new(big.Float).Neg(x.near)
				}
			}
		}
		return x
	case *binaryNode:
		x := truthOf(n.Left)
		if x.err != nil {
			return x
		}
		y := truthOf(n.Right)
		if y.err != nil {
			return y
		}
		return combineTruth(n.Op, x, y)
	}
	panic("truthOf: not a tree from Parse")
}

// sentinel returns the sentinel error err wraps.
func sentinel(err error) error {
	for _, s := range []error{ErrDivisionByZero, ErrNotFinite, ErrUnderflow, ErrTooCostly, ErrTooLong, ErrTooDeep} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}

// fractionOf returns x's value as a fraction.
func (x truth) fractionOf() *big.Rat {
	if x.exact {
		return x.rat
	}
	return new(big.Rat).SetFloat64(x.float)
}

// combineTruth returns x op y.
func combineTruth(op byte, x, y truth) truth {
	a, b := x.fractionOf(), y.fractionOf()
	if op == '/' && b.Sign() == 0 {
		return truth{err: ErrDivisionByZero}
	}
	var r *big.Rat // the exact result, if it is a fraction small enough to compute
	switch op {
	case '+':
		r = new(big.Rat).Add(a, b)
	case '-':
		r = new(big.Rat).Sub(a, b)
	case '*':
		r = new(big.Rat).Mul(a, b)
	case '/':
		r = new(big.Rat).Quo(a, b)
	case '^':
		switch {
		case a.Sign() == 0 && b.Sign() < 0, a.Sign() < 0 && b.Denom().Bit(0) == 0:
			return truth{err: ErrNotFinite}
		}
		var near *big.Float
		r, near = powerTruth(a, b)
		if r == nil {
			return nearestTruth(near, nil)
		}
	default:
		panic(fmt.Sprintf("combineTruth has no case for '%c'", op))
	}
	if x.exact && y.exact && r.Num().BitLen() <= MaxBits && r.Denom().BitLen() <= MaxBits {
		return truth{exact: true, rat: r} // beyond float64's range or not
	}
	return nearestTruth(new(big.Float).SetPrec(2048).SetRat(r), r)
}

// nearestTruth returns the approximate value nearest to near, which is r
// exactly when r is not nil: an error if that is ±Inf, or 0 when near is
// not.
func nearestTruth(near *big.Float, r *big.Rat) truth {
	var f float64
	if r != nil {
		f, _ = r.Float64() // rounds correctly, halfway cases to even
	} else {
		f, _ = near.Float64()
	}
	switch {
	case math.IsInf(f, 0):
		return truth{err: ErrNotFinite}
	case f == 0 && near.Sign() != 0:
		return truth{err: ErrUnderflow}
	}
	return truth{float: f, near: near}
}

// powerTruth returns a^b exactly when it is a fraction whose parts would
// have at most 4·MaxBits bits, and otherwise nil and a^b in big.Float. a is
// not 0 with b negative, nor negative with b's denominator even.
func powerTruth(a, b *big.Rat) (*big.Rat, *big.Float) {
	p, q := b.Num(), b.Denom()
	num, den := new(big.Int).Abs(a.Num()), new(big.Int).Set(a.Denom())
	rational := true
	if !b.IsInt() {
		for _, part := range []*big.Int{num, den} {
			if part.BitLen() <= 1 {
				continue
			}
			if q.BitLen() > 31 || q.Int64() >= int64(part.BitLen()) {
				rational = false
				break
			}
			root, exact := floorRoot(part, int(q.Int64()))
			if !exact {
				rational = false
				break
			}
			part.Set(root)
		}
	}
	negative := a.Sign() < 0 && p.Bit(0) == 1
	k := new(big.Int).Abs(p)
	small := func(x *big.Int) bool {
		return x.BitLen() <= 1 || k.BitLen() <= 32 && k.Int64()*int64(x.BitLen()-1) < 4*MaxBits
	}
	if rational && small(num) && small(den) {
		if num.BitLen() <= 1 && den.BitLen() <= 1 && k.BitLen() > 1 {
			k.SetInt64(2 - int64(k.Bit(0))) // 0 or 1, whose powers repeat
		}
		r := new(big.Rat).SetFrac(new(big.Int).Exp(num, k, nil), new(big.Int).Exp(den, k, nil))
		if p.Sign() < 0 {
			r.Inv(r)
		}
		if negative {
			r.Neg(r)
		}
		return r, nil
	}
	v := highPower(new(big.Rat).Abs(a), b)
	if negative {
		v.Neg(v)
	}
	return nil, v
}

// highPower returns x^y for x > 0 in big.Float, to about 300 bits, or
// ±Inf-like extremes (2^±2000000) when |y·ln x| is past a million, which
// float64 rounds to +Inf or 0 alike. It computes e^(y·ln x) unlike Eval:
// ln by Newton's method on exp, and exp by halving the argument, a Taylor
// series and squaring, in big.Float at a precision that grows with how
// close x is to 1 and how large y is.
func highPower(x, y *big.Rat) *big.Float {
	prec := uint(320)
	for {
		v := highPowerAt(x, y, prec)
		if prec >= 8*320 || !nearMidpoint(v, prec) {
			return v
		}
		prec *= 2 // as Ziv's rounding test: nearer a tie than the error, compute again, closer
	}
}

// nearMidpoint reports whether v, computed to about prec-20 bits, is too
// near the midpoint between two float64s to say which is nearest: at 320
// bits, sqrt((1 + 2^-53)^2 + 10^-112) looked like a tie, and rounded to
// even, the wrong way.
func nearMidpoint(v *big.Float, prec uint) bool {
	f, _ := v.Float64()
	if f == 0 || math.IsInf(f, 0) {
		return false
	}
	next := math.Nextafter(f, math.Inf(v.Cmp(big.NewFloat(f))))
	mid := new(big.Float).SetPrec(prec).Add(big.NewFloat(f), big.NewFloat(next))
	mid.Quo(mid, big.NewFloat(2))
	d := new(big.Float).SetPrec(prec).Sub(v, mid)
	return d.Sign() == 0 || d.MantExp(nil)-v.MantExp(nil) < -int(prec)+20
}

// highPowerAt is highPower at a precision of prec bits, grown as it says.
func highPowerAt(x, y *big.Rat, prec uint) *big.Float {
	if d := new(big.Rat).Sub(x, big.NewRat(1, 1)); d.Sign() != 0 {
		prec += uint(max(0, d.Denom().BitLen()-d.Num().BitLen()))
	}
	prec += uint(max(0, y.Num().BitLen()-y.Denom().BitLen()))
	xf := new(big.Float).SetPrec(prec).SetRat(x)
	t := highLog(xf, prec)
	t.Mul(t, new(big.Float).SetPrec(prec).SetRat(y))
	if t.MantExp(nil) > 20 { // |t| ≥ 2^20
		return new(big.Float).SetMantExp(big.NewFloat(1), 2_000_000*t.Sign())
	}
	return highExp(t, prec)
}

// highLog returns ln x for x > 0: x = m·2^e with m in [½, 1), and
// ln x = e·ln 2 + ln m, each by Newton's method on exp from float64's
// logarithm, y ← y + 2(m - e^y)/(m + e^y), which triples the bits that
// are right at each step.
func highLog(x *big.Float, prec uint) *big.Float {
	m := new(big.Float).SetPrec(prec)
	e := x.MantExp(m)
	l := newtonLog(m, prec)
	if e != 0 {
		ln2 := newtonLog(new(big.Float).SetPrec(prec).SetInt64(2), prec)
		l.Add(l, ln2.Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(int64(e))))
	}
	return l
}

// newtonLog returns ln m, for m in [½, 2].
func newtonLog(m *big.Float, prec uint) *big.Float {
	f, _ := m.Float64()
	y := new(big.Float).SetPrec(prec).SetFloat64(math.Log(f))
	num, den := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
	for bits := 50; bits < int(prec)*3; bits *= 3 {
		ey := highExp(y, prec)
		num.Sub(m, ey)
		den.Add(m, ey)
		num.Quo(num, den)
		y.Add(y, num.Add(num, num))
	}
	return y
}

// highExp returns e^t: e^(t/2^s) by its Taylor series, for |t/2^s| below
// 2^-20, squared s times, at 64 more bits than prec for the squarings.
func highExp(t *big.Float, prec uint) *big.Float {
	work := prec + 64
	s := max(t.MantExp(nil)+20, 0)
	r := new(big.Float).SetPrec(work).SetMantExp(t, -s)
	sum := new(big.Float).SetPrec(work).SetInt64(1)
	term := new(big.Float).SetPrec(work).SetInt64(1)
	for i := int64(1); ; i++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetInt64(i))
		if term.Sign() == 0 || term.MantExp(nil) < -int(work) {
			break
		}
		sum.Add(sum, term)
	}
	for range s {
		sum.Mul(sum, sum)
	}
	return sum.SetPrec(prec)
}

// checkTruth checks Eval's result for input, v or err, against its truth:
// the same sentinel error (no check if Eval spent maxWork, which the truth
// has no bound on), or the same exact value, or the same float64, which
// must be the nearest to the exact result of its operation: within half an
// ulp of it.
func checkTruth(t testing.TB, input string, tree Node, v *Value, err error) {
	t.Helper()
	if errors.Is(err, ErrTooCostly) || tree == nil {
		return
	}
	tr := truthOf(tree)
	if tr.err == nil && tr.exact && tr.rat.Sign() != 0 {
		if _, _, _, ends := expansion(tr.rat); !ends { // written as its nearest float64: refused if 0 or ±Inf
			switch f, _ := tr.rat.Float64(); {
			case f == 0:
				tr.err = ErrUnderflow
			case math.IsInf(f, 0):
				tr.err = ErrNotFinite
			}
		}
	}
	if tr.err != nil || err != nil {
		require.Equal(t, tr.err, sentinel(err), "Evaluate(%.60q) fails with %v, but its truth is %v", input, err, tr.err)
		return
	}
	if tr.exact {
		require.True(t, v.exact, "Evaluate(%.60q) = %v approximately, but its value %v is exact", input, v.float, tr.rat)
		require.Zero(t, tr.rat.Cmp(v.rat), "Evaluate(%.60q) = %v, but its value is %v", input, v.rat, tr.rat)
		return
	}
	require.False(t, v.exact, "Evaluate(%.60q) = %v exactly, but its value is approximate, %v", input, v.rat, tr.float)
	if tr.near != nil {
		if u := ulpsFrom(v.float, tr.near); math.Abs(u) > 0.5 { // Text is slow for exponents of millions: only on failure
			require.Fail(t, "not the nearest float64", "Evaluate(%.60q) = %v, %.3g of a gap from %s",
				input, v.float, u, tr.near.Text('g', 30))
		}
	}
	require.Equal(t, math.Float64bits(tr.float), math.Float64bits(v.float),
		"Evaluate(%.60q) = %v, but the float64 nearest to its value is %v", input, v.float, tr.float)
}

// ulpsFrom returns how far near is from f, in units of the gap between f
// and its neighbour on near's side: at most ½ when f is the float64
// nearest to near.
func ulpsFrom(f float64, near *big.Float) float64 {
	ff := new(big.Float).SetPrec(2100).SetFloat64(f)
	if near.Cmp(ff) == 0 {
		return 0
	}
	toward := math.Inf(near.Cmp(ff))
	gap := new(big.Float).SetPrec(2100)
	if g := math.Nextafter(f, toward); !math.IsInf(g, 0) {
		gap.Sub(new(big.Float).SetFloat64(g), ff)
	} else { // past MaxFloat64 the gap is the last one's
		gap.Sub(ff, new(big.Float).SetFloat64(math.Nextafter(f, -toward)))
	}
	d := new(big.Float).SetPrec(2100).Sub(near, ff)
	ratio, _ := d.Quo(d, gap).Float64()
	return ratio
}

// TestTruthCorpus checks every corpus case against its truth.
func TestTruthCorpus(t *testing.T) {
	for _, c := range readCorpus(t) {
		t.Run(c.name, func(t *testing.T) {
			v, tree, err := Evaluate(c.input)
			checkTruth(t, c.input, tree, v, err)
		})
	}
}

// TestTruthPowers checks random powers against their truth: bases and
// exponents small and large, near 1 and far from it, exact and
// approximate, with fractional exponents that are and are not roots, and
// the random expressions of TestOracleRandom.
func TestTruthPowers(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	n := 3000
	if testing.Short() {
		n = 500
	}
	for i := range n {
		input := randomPower(r)
		if i%3 == 0 {
			input = randomExpression(r, 4)
		}
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			v, tree, err := Evaluate(input)
			checkTruth(t, input, tree, v, err)
		})
	}
}

// randomPower returns a random power, of a base and an exponent from
// randomPowerOperand, sometimes approximate (2^0.5 - 1 + x), sometimes
// negative.
func randomPower(r *rand.Rand) string {
	base, exponent := randomPowerOperand(r, true), randomPowerOperand(r, false)
	if r.IntN(5) == 0 {
		base = "(2^0.5 - 1.4142135623730951 + " + base + ")"
	}
	if r.IntN(6) == 0 {
		base = "(-" + base + ")"
	}
	if r.IntN(5) == 0 {
		exponent = "(3^0.5 - 1.7320508075688772 + " + exponent + ")"
	}
	if r.IntN(4) == 0 {
		exponent = "(-" + exponent + ")"
	}
	return base + " ^ " + exponent
}

// randomPowerOperand returns a random operand for randomPower: a small
// integer or decimal, a fraction, a power of a fraction (a perfect power,
// sometimes), 1 plus or minus a small value, or a large value.
func randomPowerOperand(r *rand.Rand, base bool) string {
	digits := func(n int) string { return strconv.Itoa(1 + r.IntN(n)) }
	switch r.IntN(8) {
	case 0:
		return digits(20)
	case 1:
		return "0." + digits(999)
	case 2:
		return "(" + digits(50) + "/" + digits(50) + ")"
	case 3:
		return fmt.Sprintf("(%s/%s)^%d", digits(9), digits(9), 1+r.IntN(12))
	case 4:
		if base {
			return fmt.Sprintf("(1 %s 1/%s^%d)", []string{"+", "-"}[r.IntN(2)], digits(10), r.IntN(120))
		}
		return fmt.Sprintf("(%s/%s)", digits(10), digits(12)) // fractions with small denominators: roots
	case 5:
		return fmt.Sprintf("%s.%se%d", digits(9), digits(999), r.IntN(40)-20)
	case 6:
		if base {
			return digits(1_000_000)
		}
		return fmt.Sprintf("%d", r.IntN(200_000)-100_000)
	}
	return fmt.Sprintf("%s^(1/%d)", digits(30), 2+r.IntN(5))
}

// TestTruthHalfUlp checks ulpsFrom, on which checkTruth's bound rests.
func TestTruthHalfUlp(t *testing.T) {
	one := big.NewFloat(1).SetPrec(2100)
	half := new(big.Float).SetPrec(2100).SetMantExp(one, -53)
	for _, tt := range []struct {
		f    float64
		near *big.Float
		want float64
	}{
		{1, one, 0},
		{1, new(big.Float).SetPrec(2100).Add(one, half), 0.5},                                                                // halfway up: the gap above 1 is 2^-52
		{1, new(big.Float).SetPrec(2100).Sub(one, new(big.Float).SetMantExp(one, -54)), 0.5},                                 // halfway down: the gap below is 2^-53
		{math.MaxFloat64, new(big.Float).SetPrec(2100).SetMantExp(new(big.Float).SetPrec(2100).SetInt64(1<<54-1), 970), 0.5}, // halfway to 2^1024, a gap past MaxFloat64
		{0x1p-1074, new(big.Float).SetPrec(2100).SetMantExp(big.NewFloat(3).SetPrec(2100), -1076), 0.25},
	} {
		require.InDelta(t, tt.want, math.Abs(ulpsFrom(tt.f, tt.near)), 1e-12, "ulpsFrom(%v, %v)", tt.f, tt.near)
	}
	require.True(t, strings.HasPrefix(highPower(big.NewRat(2, 1), big.NewRat(1, 2)).Text('g', 20), "1.414213562373095048"))
}
