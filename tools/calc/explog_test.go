package calc

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTryPowerBound checks tryPower's error bound, on which correct
// rounding rests: at precisions from just enough for float64's 53 bits
// (guardBits + 53 and a few more) it may decline, but when it settles on
// a float64 that must be the nearest, as highPower computes it apart. A
// bound too small would settle some near-halfway values wrongly; one far
// too large would never settle here.
func TestTryPowerBound(t *testing.T) {
	random := rand.New(rand.NewPCG(11, 12))
	n := 400
	if testing.Short() {
		n = 100
	}
	settled, tried := 0, 0
	for range n {
		a, b := big.NewInt(1+random.Int64N(1e9)), big.NewInt(1+random.Int64N(1e9))
		c, d := big.NewInt(random.Int64N(2e6)-1e6), big.NewInt(1+random.Int64N(1e6))
		if random.IntN(3) == 0 { // near 1, to a large power
			b.SetInt64(1e15)
			a.Add(b, big.NewInt(random.Int64N(2000)-1000))
			c.Mul(c, big.NewInt(1e9))
		}
		want, _ := highPower(new(big.Rat).SetFrac(a, b), new(big.Rat).SetFrac(c, d)).Float64()
		if want == 0 || math.IsInf(want, 0) {
			continue
		}
		for p := uint(guardBits + 53); p <= guardBits+70; p += 3 {
			var e evaluator
			got, ok := e.tryPower(a, b, c, d, p)
			tried++
			if ok {
				settled++
				require.Equal(t, want, got, "tryPower((%v/%v)^(%v/%v), %d bits)", a, b, c, d, p)
			}
		}
	}
	assert.Greater(t, settled, tried/2, "tryPower settles too seldom near guardBits+53 bits: its bound is loose")
	t.Logf("settled %d of %d tries", settled, tried)
}

// TestNearestPowerEdges checks nearestPower at the edges of float64's
// range, where it returns +Inf and 0, which Eval refuses; and on a value
// exactly halfway between two float64s, which no precision settles: Eval
// computes such a power, a fraction, exactly instead.
func TestNearestPowerEdges(t *testing.T) {
	for _, tt := range []struct {
		a, b, c, d int64
		want       float64
		ok         bool
	}{
		{2, 1, 1024, 1, math.Inf(1), true},
		{2, 1, 10239, 10, 0x1.ddb680117ab12p+1023, true}, // 2^1023.9
		{1, 2, 10745, 10, 0x1p-1074, true},               // 2^-1074.5, nearer 2^-1074 than 0
		{1, 2, 1076, 1, 0, true},                         // a quarter of 2^-1074
		{3, 1, -700, 1, 0, true},
		{3, 1, 700, 1, math.Inf(1), true},
		{1, 2, 1075, 1, 0, false}, // halfway between 0 and 2^-1074
	} {
		t.Run(fmt.Sprintf("(%d/%d)^(%d/%d)", tt.a, tt.b, tt.c, tt.d), func(t *testing.T) {
			var e evaluator
			got, ok := e.nearestPower(big.NewInt(tt.a), big.NewInt(tt.b), big.NewInt(tt.c), big.NewInt(tt.d))
			require.Equal(t, tt.ok, ok, "nearestPower settled: %v", got)
			if ok {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}
