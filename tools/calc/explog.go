// Irrational powers, correctly rounded: x^y = e^(y·ln x), computed on
// integers scaled by 2^P, with a bound on the error, P being raised until
// every value within the bound has the same nearest float64 (Ziv's
// strategy). An integer power too large for MaxBits, (1+1e-9)^1e9, is
// computed so too.

package calc

import (
	"math"
	"math/big"
	"sync"
)

// The working precisions of nearestPower, in bits: the first settles all
// but about one power in a million; each failure doubles it.
const (
	firstPrecision = 96
	lastPrecision  = 1536
	guardBits      = 22 // the error bound, 2^(guardBits-P) of the value: see tryPower
)

// The work counted for a power beyond its integers' words, which on
// integers of a few words are a small part of math/big's time: for each
// term of the series of log and exp, four operations, about 80 ns, and for
// each precision tried, its divisions, roundings and the rest, about a
// microsecond, as BenchmarkWorst's powers measure.
const (
	termWork = 80
	tryWork  = 1000
)

// fixed holds the integers nearestPower works in, kept from one power to
// the next, as arith keeps its own.
type fixed struct {
	num, den, z, w, f, term, l, ln2, t, r, e, lo, hi big.Int
}

// nearestPower returns the float64 nearest to (a/b)^(c/d), for a, b, d > 0,
// whose value is irrational or too large for MaxBits: +Inf past float64's
// range, 0 below half its least value, 2^-1075. It reports false if the
// work of exact arithmetic (maxWork) is spent, or lastPrecision reached,
// before the rounding is settled, which for an irrational power would take
// one lying within about 2^-1500 of halfway between two float64s.
func (e *evaluator) nearestPower(a, b, c, d *big.Int) (float64, bool) {
	for p := uint(firstPrecision); p <= lastPrecision && !e.spent(); p *= 2 {
		if f, ok := e.tryPower(a, b, c, d, p); ok {
			return f, true
		}
	}
	return 0, false
}

// tryPower computes (a/b)^(c/d) as nearestPower describes, at precision p,
// and reports whether that settles its nearest float64.
//
// With u = 2^-p, log gives ln(a/b) within a relative (1.1n+16)·u, n being
// its series' terms, at most p/4.9+1, and t = (c/d)·ln(a/b) is computed
// within 1 more unit: beyond ±1024, e^t is past float64's range, or below
// 2^-1075; within it, t's error is below 2^11·(n+15)·u. exp adds at most
// 1,479 units for k·ln 2, and (2J+5)·u for its J terms, at most p/9.5+2.
// So e^t's relative error is below 2^11·(n+16)·u + (2J+5)·u: below 2^20·u
// for every p up to lastPrecision, 2^(guardBits-2)·u, with room to spare
// for errors of errors. So the value lies within a relative
// 2^(guardBits-p) of m·2^-q, m being the integer exp returns, and within
// Δ = m·2^(guardBits-p) + 2 units: when m-Δ and m+Δ round to the same
// float64, so does it.
func (e *evaluator) tryPower(a, b, c, d *big.Int, p uint) (float64, bool) {
	x := &e.fix
	e.work += tryWork
	l, s := e.log(a, b, p) // ln(a/b) = l·2^-s
	t := e.times(&x.t, c, l)
	den := x.den.Set(d)
	if s <= p {
		t.Lsh(t, p-s)
	} else {
		den.Lsh(den, s-p)
	}
	t = e.quoRem(&x.r, t, den) // t·2^-p = (c/d)·ln(a/b)
	if x.e.SetInt64(1024).Lsh(&x.e, p); t.CmpAbs(&x.e) >= 0 {
		if t.Sign() > 0 {
			return math.Inf(1), true
		}
		return 0, true
	}
	m, q := e.exp(t, p) // e^t = m·2^-q
	delta := x.e.Rsh(m, p-guardBits)
	delta.Add(delta, x.lo.SetInt64(2))
	x.lo.Sub(m, delta)
	x.hi.Add(m, delta)
	lo, hi := e.scaled(&x.lo, q), e.scaled(&x.hi, q)
	return lo, lo == hi
}

// scaled returns the float64 nearest to n·2^-q, for n > 0.
func (e *evaluator) scaled(n *big.Int, q int) float64 {
	den := e.fix.den.SetInt64(1)
	if q >= 0 {
		den.Lsh(den, uint(q))
	} else {
		n.Lsh(n, uint(-q))
	}
	return e.nearest(n, den)
}

// log returns l and s with ln(a/b) = l·2^-s, for a, b > 0, within a
// relative (1.1n+16)·2^-p, n being the terms of its series. l is one of
// e.fix's integers.
//
// With a/b = m·2^k, m within [0.707, 1.415] (or a little past, as leading
// bits in float64 tell), ln(a/b) = k·ln 2 + ln m, and
//
//	ln m = 2·atanh(z) = 2z·(1 + z²/3 + z⁴/5 + …),  z = (m-1)/(m+1)
//
// in which |z| ≤ 0.172, so that each term is 5 bits below the one before.
// z = N/D, with N and D exact integers, and is written with p bits however
// small it is, so that ln m is to a relative 2^-p even for m within 2^-4000
// of 1. The series, in [1, 1.011], is computed in fixed point, each term
// within about a unit of 2^-p. When k ≠ 0, |ln(a/b)| is at least 0.346, and
// at least a third of |k·ln 2|, which bounds the relative error of the sum.
func (e *evaluator) log(a, b *big.Int, p uint) (*big.Int, uint) {
	x := &e.fix
	k := a.BitLen() - b.BitLen() // a/b = m·2^k with m in (1/2, 2)
	switch m := lead(a, &x.num) / lead(b, &x.num); {
	case m < math.Sqrt2/2:
		k--
	case m > math.Sqrt2:
		k++
	}
	num, den := x.num.Set(a), x.den.Set(b)
	if k >= 0 {
		den.Lsh(den, uint(k))
	} else {
		num.Lsh(num, uint(-k))
	}
	num.Sub(num, den) // m-1 = N/den and m+1 = D/den
	den.Add(den, den)
	den.Add(den, num)
	l := x.l.SetInt64(int64(k))
	e.times(&x.t, l, ln2(&x.ln2, p)) // k·ln 2, in units of 2^-p
	l.Set(&x.t)
	if num.Sign() == 0 {
		return l, p
	}

	// z = zm·2^-zs, with |zm| of p+1 bits, and w = z² in units of 2^-p.
	zs := p + uint(den.BitLen()-num.BitLen()) + 1
	zm := e.quoRem(&x.z, num.Lsh(num, zs), den)
	w := e.times(&x.w, zm, zm)
	w.Rsh(w, 2*zs-p)

	// f = 1 + w/3 + w²/5 + …, in units of 2^-p.
	f := x.f.Lsh(x.f.SetInt64(1), p)
	term := x.term.Set(f)
	for i := int64(1); ; i++ {
		e.times(&x.t, term, w)
		term.Rsh(&x.t, p)
		if term.Sign() == 0 {
			break
		}
		f.Add(f, e.quoRem(&x.t, term, x.r.SetInt64(2*i+1)))
		e.work += termWork
	}

	// ln m = 2·z·f = zm·f·2^-(zs+p-1), and then k·ln 2 + ln m.
	lnm := e.times(&x.t, zm, f)
	if k == 0 {
		return l.Set(lnm), zs + p - 1
	}
	return l.Add(l, lnm.Rsh(lnm, zs-1)), p
}

// exp returns m and q with e^(t·2^-p) = m·2^-q, for |t·2^-p| < 1024,
// within a relative (2J+5)·2^-p + 1,479·2^-p, J being the terms of its
// series. m is one of e.fix's integers.
//
// With k the integer nearest to t·2^-p/ln 2 and r = t·2^-p - k·ln 2, so
// |r| ≤ 0.347, e^(t·2^-p) = 2^k · (e^(r/256))^256: the series for
// e^(r/256) gains ten bits a term, and is computed in fixed point to
// 2^-(p+8), so that its eight squarings, which double its relative error
// each, leave it to about 2^-p.
func (e *evaluator) exp(t *big.Int, p uint) (*big.Int, int) {
	x := &e.fix
	lead := x.lo.Rsh(t, p-40).Int64() // t in units of 2^-40: below 2^50
	k := int64(math.Round(float64(lead) / (1 << 40) / math.Ln2))
	r := e.times(&x.l, x.e.SetInt64(k), ln2(&x.ln2, p))
	r.Sub(t, r) // r = t - k·ln 2, in units of 2^-p, which are r/256's of 2^-(p+8)

	q := p + 8
	sum := x.f.Lsh(x.f.SetInt64(1), q)
	term := x.term.Set(sum)
	for i := int64(1); ; i++ {
		e.times(&x.t, term, r)
		term.Rsh(&x.t, q)
		e.quoRem(&x.t, term, x.e.SetInt64(i))
		if x.t.Sign() == 0 {
			break
		}
		term.Set(&x.t)
		sum.Add(sum, term)
		e.work += termWork
	}
	for range 8 {
		e.times(&x.t, sum, sum)
		sum.Rsh(&x.t, q)
	}
	return sum, int(q) - int(k)
}

// lead returns x/2^(bits(x)-1), in [1, 2), from its leading 64 bits, for
// x > 0, using tmp.
func lead(x, tmp *big.Int) float64 {
	shift := max(x.BitLen()-64, 0)
	return math.Ldexp(float64(tmp.Rsh(x, uint(shift)).Uint64()), shift-x.BitLen()+1)
}

// ln2 sets z to ⌊ln 2·2^p⌋, within a unit, and returns z, for p up to
// lastPrecision.
func ln2(z *big.Int, p uint) *big.Int { return z.Rsh(ln2Bits(), ln2Precision-p) }

// ln2Precision is the precision, in bits, of ln2Bits.
const ln2Precision = lastPrecision + 64

// ln2Bits returns ln 2·2^ln2Precision, within a few thousand units, which
// ln2's shift by at least 64 bits takes below one: computed once, from
//
//	ln 2 = 2·atanh(1/3) = 2·(1/3 + 1/(3·3³) + 1/(5·3⁵) + …)
//
// It is shared, and never written once computed.
var ln2Bits = sync.OnceValue(func() *big.Int {
	var sum, power, term big.Int
	power.Lsh(big.NewInt(2), ln2Precision)
	power.Quo(&power, big.NewInt(3)) // 2/3^(2i+1)
	sum.Set(&power)
	for i := int64(1); power.Sign() != 0; i++ {
		power.Quo(&power, big.NewInt(9))
		sum.Add(&sum, term.Quo(&power, big.NewInt(2*i+1)))
	}
	return &sum
})
