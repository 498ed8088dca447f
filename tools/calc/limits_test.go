package calc

import (
	"fmt"
	"math"
	"math/big"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLimits checks each limit at its value and one past it.
func TestLimits(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }
	tests := []struct {
		name, input string
		want        error // nil: the expression must evaluate
		msg         string
	}{
		{"length at limit", strings.Repeat("1+", MaxLength/2-1) + "1 ", nil, ""},
		{"length past limit", strings.Repeat("1+", MaxLength/2-1) + "1  ", ErrTooLong,
			"column 10001: expression is 10001 characters long; the limit is 10000"},
		{"length counts characters", strings.Repeat("é", MaxLength+1), ErrTooLong,
			"column 10001: expression is 10001 characters long; the limit is 10000"},
		{"multi-byte characters at limit are not too long", strings.Repeat("é", MaxLength), nil, "unexpected"},
		{"parentheses at depth limit", nest(MaxDepth), nil, ""},
		{"parentheses past depth limit", nest(MaxDepth + 1), ErrTooDeep,
			"column 201: the expression nests more than 200 levels deep"},
		{"signs at depth limit", strings.Repeat("-", MaxDepth) + "1", nil, ""},
		{"signs past depth limit", strings.Repeat("-", MaxDepth+1) + "1", ErrTooDeep, "column 201: "},
		{"powers at depth limit", strings.Repeat("1^", MaxDepth) + "1", nil, ""},
		{"powers past depth limit", strings.Repeat("1^", MaxDepth+1) + "1", ErrTooDeep, "column 402: "},
		{"mixed nesting past depth limit", strings.Repeat("-(", MaxDepth/2) + "-1" + strings.Repeat(")", MaxDepth/2), ErrTooDeep, "column 201: "},
		{"chains do not nest", "1" + strings.Repeat("-1", 4000), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Evaluate(tt.input)
			switch {
			case tt.want != nil:
				require.ErrorIs(t, err, tt.want, "Evaluate(%.20q…)", tt.input)
				assert.Contains(t, err.Error(), tt.msg, "Evaluate(%.20q…)", tt.input)
			case tt.msg != "":
				require.Error(t, err, "Evaluate(%.20q…)", tt.input)
				assert.Contains(t, err.Error(), tt.msg, "Evaluate(%.20q…)", tt.input)
				assert.NotErrorIs(t, err, ErrTooLong, "Evaluate(%.20q…)", tt.input)
			default:
				assert.NoError(t, err, "Evaluate(%.20q…)", tt.input)
			}
		})
	}
}

// TestLowerDepth lowers the depth limit, as text/template/parse's tests
// lower maxStackDepth, to check the count exactly.
func TestLowerDepth(t *testing.T) {
	defer func(d int) { maxDepth = d }(maxDepth)
	maxDepth = 3
	for input, ok := range map[string]bool{
		"((1))+((1))": true, "(((1)))": true, "((((1))))": false,
		"---1": true, "----1": false, "-(-1)^-2": true, "-(-1)^-(2)": false,
		"2^2^2^2": true, "2^2^2^2^2": false, "1+1+1+1+1+1+1+1": true,
	} {
		_, err := Parse(input)
		if ok {
			assert.NoError(t, err, "Parse(%q) with maxDepth 3", input)
		} else {
			assert.ErrorIs(t, err, ErrTooDeep, "Parse(%q) with maxDepth 3", input)
		}
	}
}

// TestExactLimits checks MaxBits and MaxDigits at their values and one
// past them. 1/2^k has a denominator of k+1 bits, and 2^j + 1/2^k a
// numerator of j+k+1: multiplied back by powers of two small enough to
// be finite, such a value is 1 when it was exact. When it was not, it went
// on in float64: 2^-4096 would be 0 there, which is refused, and 2^1000 +
// 2^-3096 is 2^1000, from which the rest is 0.
func TestExactLimits(t *testing.T) {
	back := func(k int) string { // "* 2^1000 * … * 2^r", 2^k in all
		return strings.Repeat(" * 2^1000", k/1000) + fmt.Sprintf(" * 2^%d", k%1000)
	}
	denominator := func(k int) string { return fmt.Sprintf("(1/2)^%d", k) + back(k) }
	numerator := func(j, k int) string { return fmt.Sprintf("(2^%d + (1/2)^%d - 2^%d)", j, k, j) + back(k) }
	nines := func(n int) string { return fmt.Sprintf("10^%d - 1", n) }
	tests := []struct {
		name, input, want string
		exact             bool
		err               error
	}{
		{"denominator of MaxBits bits", denominator(MaxBits - 1), "1", true, nil},
		{"denominator past MaxBits bits", denominator(MaxBits), "", false, ErrUnderflow},
		{"numerator of MaxBits bits", numerator(1000, MaxBits-1001), "1", true, nil},
		{"numerator past MaxBits bits", numerator(1000, MaxBits-1000), "0", false, nil},
		{"MaxDigits digits", nines(MaxDigits), strings.Repeat("9", MaxDigits), true, nil},
		{"past MaxDigits digits", nines(MaxDigits + 1), "1e+101", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _, err := Evaluate(tt.input)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err, "Evaluate(%q) = %v", tt.input, v)
				return
			}
			require.NoError(t, err, "Evaluate(%q)", tt.input)
			require.Equal(t, tt.exact, v.Exact(), "Evaluate(%q).Exact(), with String %s", tt.input, v)
			if !tt.exact {
				assert.Equal(t, tt.want, v.String(), "Evaluate(%q)", tt.input)
				return
			}
			got, _ := new(big.Rat).SetString(v.String())
			want, _ := new(big.Rat).SetString(tt.want)
			assert.Zero(t, want.Cmp(got), "Evaluate(%q) = %s, want %s", tt.input, v, tt.want)
		})
	}
}

// TestLowerWork lowers maxWork, the bound on the work of exact arithmetic,
// to 0: after the first step that counts, the gcd that 2/3 takes, the next
// number, the exponent 200, is refused, never read or computed
// approximately instead.
func TestLowerWork(t *testing.T) {
	const input = "(2/3)^200 * (3/2)^200"
	v, _, err := Evaluate(input)
	require.NoError(t, err)
	assert.True(t, v.Exact(), "Evaluate(%q) = %v, want exact", input, v)

	defer func(w int) { maxWork = w }(maxWork)
	maxWork = 0
	v, _, err = Evaluate(input)
	require.ErrorIs(t, err, ErrTooCostly, "Evaluate(%q) with maxWork 0 = %v", input, v)
	assert.ErrorContains(t, err, "column 7: the expression is too costly to compute exactly", "Evaluate(%q) with maxWork 0", input)
}

// TestWorstExpressions checks that each of worstExpressions allocates
// under 1 MiB, the least of five evaluations, and is answered or refused
// as the table says. Their time is measured by BenchmarkWorst, against
// expr in the same run, not asserted here. Not under the race detector,
// which drops what a sync.Pool holds (math/big keeps its temporaries in
// one).
func TestWorstExpressions(t *testing.T) {
	if raceEnabled {
		t.Skip("measures memory: not under the race detector")
	}
	const maxMemory = 1 << 20
	for _, w := range worstExpressions {
		t.Run(w.name, func(t *testing.T) {
			assert.Less(t, allocated(t, w), uint64(maxMemory), "Evaluate(%.20q…): bytes allocated", w.expression)
		})
	}
}

// allocated returns the least memory of five evaluations of w.
func allocated(t *testing.T, w worstExpression) uint64 {
	least := uint64(math.MaxUint64)
	var m runtime.MemStats
	for range 5 {
		runtime.ReadMemStats(&m)
		before := m.TotalAlloc
		_, _, err := Evaluate(w.expression)
		runtime.ReadMemStats(&m)
		checkWorst(t, w, err)
		least = min(least, m.TotalAlloc-before)
	}
	return least
}

// checkWorst checks that w was answered, or refused as too costly, as its
// row says.
func checkWorst(t testing.TB, w worstExpression, err error) {
	t.Helper()
	if w.tooCostly {
		require.ErrorIs(t, err, ErrTooCostly, "Evaluate(%.20q…)", w.expression)
	} else {
		require.NoError(t, err, "Evaluate(%.20q…)", w.expression)
	}
}

// hugeInputs are far past the limits: a million characters each.
var hugeInputs = map[string]string{
	"open parentheses": strings.Repeat("(", 1_000_000),
	"signs":            strings.Repeat("-", 1_000_000) + "1",
	"chain":            strings.Repeat("1+", 500_000),
	"valid chain":      strings.Repeat("1+", 500_000) + "1",
}

// TestHugeInputs checks that inputs far past the limits are refused, and
// that with the length limit lifted the parser is still safe: depth stops
// deep nesting at once, and a long chain is a loop in the parser. Eval and
// String then recurse as deep as the chain is long, 500,000 levels, which
// Go's growable stack holds; MaxLength keeps real inputs to 5,000. How fast
// huge inputs are refused is BenchmarkHugeInputs's to show.
func TestHugeInputs(t *testing.T) {
	for _, lifted := range []bool{false, true} {
		if lifted {
			defer func(l int) { maxLength = l }(maxLength)
			maxLength = 10_000_000
		}
		for name, input := range hugeInputs {
			v, tree, err := Evaluate(input)
			if lifted && name == "valid chain" {
				require.NoError(t, err, "Evaluate(%s) with the length limit lifted", name)
				assert.Equal(t, "500001", v.String(), "Evaluate(%s)", name)
				assert.Equal(t, len(input)+4*500_000, len(tree.String()), "len(Evaluate(%s).String())", name)
				continue
			}
			assert.Error(t, err, "Evaluate(%s), length limit lifted: %v", name, lifted)
			if !lifted {
				assert.ErrorIs(t, err, ErrTooLong, "Evaluate(%s)", name)
			} else if name != "chain" {
				assert.ErrorIs(t, err, ErrTooDeep, "Evaluate(%s) with the length limit lifted", name)
			}
		}
	}
}
