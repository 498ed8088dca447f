package calc

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNearest checks the float64 nearest to an exact value, as
// arith.float64 and nearest find it, against big.Rat.Float64: halfway cases, the edges of float64's range and
// of its subnormals, and random fractions of up to MaxBits bits a part,
// whose values fall anywhere from 2^-4096 to 2^4096.
func TestNearest(t *testing.T) {
	pow2 := func(k int) *big.Int { return new(big.Int).Lsh(big.NewInt(1), uint(k)) }
	sum := func(xs ...*big.Int) *big.Int {
		z := new(big.Int)
		for _, x := range xs {
			z.Add(z, x)
		}
		return z
	}
	one, three := big.NewInt(1), big.NewInt(3)
	neg := func(x *big.Int) *big.Int { return new(big.Int).Neg(x) }
	mul := func(x, y *big.Int) *big.Int { return new(big.Int).Mul(x, y) }
	tests := []struct {
		name     string
		num, den *big.Int
	}{
		{"2^53+1, halfway, to the even below", sum(pow2(53), one), one},
		{"2^53+3, halfway, to the even above", sum(pow2(53), big.NewInt(3)), one},
		{"(2^54+1)/3", sum(pow2(54), one), three},
		{"1/3^100", one, new(big.Int).Exp(three, big.NewInt(100), nil)},
		{"2^-1074, the least subnormal", one, pow2(1074)},
		{"2^-1075, halfway to 0, to 0", one, pow2(1075)},
		{"2^-1075 and a little, to 2^-1074", sum(pow2(3000), one), pow2(4075)},
		{"3·2^-1076, to 2^-1074", three, pow2(1076)},
		{"2^-1076, to 0", one, pow2(1076)},
		{"5·2^-1076: 1.25 units, to 1", big.NewInt(5), pow2(1076)},
		{"2^-1022 - 2^-1075, halfway, to the even 2^-1022", sum(pow2(53), neg(one)), pow2(1075)},
		{"2^-1022/3", one, mul(three, pow2(1022))},
		{"2^-1021/3", one, mul(three, pow2(1021))},
		{"2^1024 - 2^970, halfway to +Inf, to +Inf", sum(pow2(1024), neg(pow2(970))), one},
		{"just below: MaxFloat64", sum(mul(three, sum(pow2(1024), neg(pow2(970)))), neg(one)), three},
		{"2^1024/3", pow2(1024), three},
		{"-(2^1024 - 2^970)", neg(sum(pow2(1024), neg(pow2(970)))), one},
		{"-2^-1075·(1+2^-4000)", neg(sum(pow2(4000), one)), pow2(4096 + 979)},
		{"2^4095/3", pow2(4095), three},
		{"3/2^4095", three, pow2(4095)},
	}
	var m arith
	check := func(name string, num, den *big.Int) {
		r := new(big.Rat).SetFrac(num, den)
		want, _ := r.Float64()
		got := m.float64(&Value{exact: true, rat: r})
		assert.Equal(t, math.Float64bits(want), math.Float64bits(got), "float64(%s) = %v, want %v", name, got, want)
	}
	for _, tt := range tests {
		check(tt.name, tt.num, tt.den)
	}
	random := rand.New(rand.NewPCG(1, 2))
	integer := func() *big.Int { // of 1 to MaxBits bits
		words := make([]big.Word, MaxBits/64)
		for i := range words {
			words[i] = big.Word(random.Uint64())
		}
		x := new(big.Int).SetBits(words)
		return x.Rsh(x, uint(random.IntN(MaxBits)))
	}
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	for range n {
		num, den := integer(), integer()
		if random.IntN(2) == 0 {
			num.Neg(num)
		}
		if den.Sign() != 0 {
			check(num.String()+"/"+den.String(), num, den)
		}
	}
}

// TestFraction checks fraction, which writes an approximate value as the
// fraction it is, against big.Rat.SetFloat64: signs, the subnormals, the
// edges of float64's range, and random bit patterns.
func TestFraction(t *testing.T) {
	values := []float64{0, 1, -1, 0.1, -2.5, 3, 1 << 53, 1<<53 + 2, 0x1p-1074, -0x1p-1074, 0x1.8p-1070,
		0x1p-1022, math.MaxFloat64, -math.MaxFloat64, 0x1p1023, 1e-300, 12345.678e200}
	random := rand.New(rand.NewPCG(5, 6))
	for range 10_000 {
		if f := math.Float64frombits(random.Uint64()); !math.IsInf(f, 0) && !math.IsNaN(f) {
			values = append(values, f)
		}
	}
	var r big.Rat
	for _, f := range values {
		want := new(big.Rat).SetFloat64(f)
		got := fraction(&Value{float: f}, &r)
		assert.Zero(t, want.Cmp(got), "fraction(%v) = %v, want %v", f, got, want)
		assert.Equal(t, want.Denom().String(), got.Denom().String(), "fraction(%v): not in lowest terms", f)
	}
}
