package calc

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRoot checks root, the integer k-th root, against bisection
// (floorRoot): perfect powers and their neighbours, small and of MaxBits,
// roots of many bits and of few, and random integers.
func TestRoot(t *testing.T) {
	pow := func(c int64, k int) *big.Int { return new(big.Int).Exp(big.NewInt(c), big.NewInt(int64(k)), nil) }
	add := func(x *big.Int, d int64) *big.Int { return new(big.Int).Add(x, big.NewInt(d)) }
	tests := []struct {
		name string
		x    *big.Int
		k    int
	}{
		{"0", big.NewInt(0), 2},
		{"1", big.NewInt(1), 7},
		{"2", big.NewInt(2), 2},
		{"4", big.NewInt(4), 2},
		{"8, cube", big.NewInt(8), 3},
		{"9, no cube", big.NewInt(9), 3},
		{"2^62, k 62", pow(2, 62), 62},
		{"2^62, k 63", pow(2, 62), 63},
		{"3^40", pow(3, 40), 40},
		{"3^40 - 1", add(pow(3, 40), -1), 40},
		{"(2^53+1)^2", new(big.Int).Mul(add(pow(2, 53), 1), add(pow(2, 53), 1)), 2},
		{"(2^53+1)^2 - 1", add(new(big.Int).Mul(add(pow(2, 53), 1), add(pow(2, 53), 1)), -1), 2},
		{"(10^400+7)^3", new(big.Int).Exp(add(pow(10, 400), 7), big.NewInt(3), nil), 3},
		{"(10^400+7)^3 + 1", add(new(big.Int).Exp(add(pow(10, 400), 7), big.NewInt(3), nil), 1), 3},
		{"3^2584, a square", pow(3, 2584), 2},
		{"3^2584, an 8th power", pow(3, 2584), 8},
		{"3^2584, no 3rd power", pow(3, 2584), 3},
		{"3^2583, no square", pow(3, 2583), 2},
		{"7^1000, k 1000", pow(7, 1000), 1000},
		{"7^1000 + 1, k 1000", add(pow(7, 1000), 1), 1000},
		{"2^4095, k 4095", pow(2, 4095), 4095},
		{"2^4095 - 1, k 4095", add(pow(2, 4095), -1), 4095},
	}
	random := rand.New(rand.NewPCG(7, 8))
	for i := range 300 {
		x := randomInt(random, 1+random.IntN(MaxBits))
		k := 2 + random.IntN(12)
		if i%2 == 0 { // a power, and then perhaps a neighbour
			x.Exp(x.Rsh(x, uint(x.BitLen()-x.BitLen()/k)), big.NewInt(int64(k)), nil)
			x.Add(x, big.NewInt(int64(random.IntN(3)-1)))
		}
		tests = append(tests, struct {
			name string
			x    *big.Int
			k    int
		}{fmt.Sprintf("random %d", i), x, k})
	}
	var m arith
	for _, tt := range tests {
		want, exact := floorRoot(tt.x, tt.k)
		var z big.Int
		got := m.root(&z, tt.x, big.NewInt(int64(tt.k)))
		assert.Equal(t, exact, got, "root(%s, %d)", tt.name, tt.k)
		if got {
			assert.Zero(t, want.Cmp(&z), "root(%s, %d) = %v, want %v", tt.name, tt.k, &z, want)
		}
	}
}

// floorRoot returns ⌊x^(1/k)⌋, by bisection, and whether it is exact.
func floorRoot(x *big.Int, k int) (*big.Int, bool) {
	q := big.NewInt(int64(k))
	lo, hi := big.NewInt(0), new(big.Int).Lsh(big.NewInt(1), uint(x.BitLen()/k+1))
	for new(big.Int).Sub(hi, lo).Cmp(big.NewInt(1)) > 0 {
		mid := new(big.Int).Rsh(new(big.Int).Add(lo, hi), 1)
		if new(big.Int).Exp(mid, q, nil).Cmp(x) <= 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, new(big.Int).Exp(lo, q, nil).Cmp(x) == 0
}

// randomInt returns a random integer of at most bits bits.
func randomInt(random *rand.Rand, bits int) *big.Int {
	words := make([]big.Word, (bits+63)/64)
	for i := range words {
		words[i] = big.Word(random.Uint64())
	}
	x := new(big.Int).SetBits(words)
	return x.Rsh(x, uint(len(words)*64-bits))
}
