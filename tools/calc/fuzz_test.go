package calc

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// FuzzEval checks, for any input, that Evaluate does not panic and returns
// either a finite value (see checkValue) or an *Error whose position lies
// in the input; that a tree prints as text that parses back to the same
// tree; that the value or error is its truth, an approximate value within
// half an ulp of the exact result it rounds (see checkTruth); and that
// expr agrees (see compareWithExpr). The seeds are the corpus; inputs the
// fuzzer found worth keeping are in testdata/fuzz/FuzzEval.
//
//	go test -fuzz=FuzzEval ./tools/calc
func FuzzEval(f *testing.F) {
	for _, c := range readCorpus(f) {
		f.Add(c.input)
	}
	f.Fuzz(func(t *testing.T, input string) {
		v, tree, err := Evaluate(input)
		if err != nil {
			var e *Error
			require.ErrorAs(t, err, &e, "Evaluate(%q)", input)
			require.True(t, 0 <= e.Offset && e.Offset <= len(input),
				"Evaluate(%q): Offset %d outside the input", input, e.Offset)
			require.Equal(t, utf8.RuneCountInString(input[:e.Offset])+1, e.Column,
				"Evaluate(%q): Column, for Offset %d", input, e.Offset)
			caret := e.Caret(input)
			require.Equal(t, 1, strings.Count(caret, "\n"), "Caret for %q: %q", input, caret)
			require.True(t, strings.HasSuffix(caret, "^"), "Caret for %q: %q", input, caret)
		} else {
			checkValue(t, input, v)
			printed := tree.String()
			again, err := Parse(printed)
			if err != nil { // the parentheses String adds may pass a limit
				require.True(t, errors.Is(err, ErrTooDeep) || errors.Is(err, ErrTooLong),
					"Parse(%q), the tree of %q printed: %v", printed, input, err)
			} else {
				require.Equal(t, printed, again.String(), "Parse(%q).String(), the tree of %q printed", printed, input)
			}
		}
		checkTruth(t, input, tree, v, err)
		compareWithExpr(t, input)
	})
}

// checkValue checks a value Evaluate returned for input: String writes it
// in the form String describes (see checkForm); if it is exact, it is
// in lowest terms, with the float64 big.Rat finds nearest to it, and if
// String says it exactly, its digits are that value's, and otherwise that
// float64 is finite and not 0; an approximate value is finite, and String
// writes the float64 nearest to it, in its shortest digits. (checkTruth
// checks the value itself.)
func checkValue(t *testing.T, input string, v *Value) {
	f := v.float64()
	s := v.String()
	checkForm(t, input, s)
	if v.exact {
		num, den := v.rat.Num(), v.rat.Denom()
		require.True(t, den.Sign() > 0 && new(big.Int).GCD(nil, nil, num, den).Cmp(big.NewInt(1)) == 0,
			"Evaluate(%q) = %v/%v, not in lowest terms with a positive denominator, as big.Rat keeps values", input, num, den)
		want := v.rat
		nearest, _ := want.Float64()
		require.Equal(t, nearest, f, "Evaluate(%q) = %v, whose nearest float64 big.Rat makes %v", input, f, nearest)
		if v.Exact() {
			got, ok := new(big.Rat).SetString(s)
			require.True(t, ok, "Evaluate(%q).String() = %q, not a number", input, s)
			require.Zero(t, want.Cmp(got), "Evaluate(%q).String() = %q, exact, but the value is %v", input, s, want)
			// Significant digits: an integer's trailing zeros place the
			// point, as leading zeros do (10^100 + 110 has 100).
			digits := strings.Trim(strings.ReplaceAll(strings.TrimLeft(mantissa(s), "-"), ".", ""), "0")
			require.LessOrEqual(t, len(digits), MaxDigits, "Evaluate(%q).String() = %q", input, s)
			return
		}
		require.False(t, want.Sign() != 0 && f == 0, "Evaluate(%q) = %v, written as its nearest float64, 0", input, want)
	}
	require.False(t, math.IsInf(f, 0) || math.IsNaN(f), "Evaluate(%q) = %v", input, f)
	require.False(t, v.Exact(), "Evaluate(%q) is approximate, but Exact reports true", input)
	g, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err, "Evaluate(%q).String() = %q", input, s)
	require.Equal(t, math.Abs(f), math.Abs(g), "Evaluate(%q).String() = %q, but the value is %v", input, s, f)
	require.Equal(t, len(mantissa(strconv.FormatFloat(math.Abs(f), 'e', -1, 64))), len(mantissa(strings.TrimLeft(strconv.FormatFloat(g, 'e', -1, 64), "-"))),
		"Evaluate(%q).String() = %q, not the shortest form of %v", input, s, f)
}

// Value.String's two forms: plain digits with a point, and a significand
// and a power of ten, each without a zero it can do without.
var (
	plainForm      = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$`)
	scientificForm = regexp.MustCompile(`^-?([1-9])(?:\.([0-9]*[1-9]))?e([+-][1-9][0-9]*)$`)
)

// checkForm checks that s, Value.String's text for input, is in the form
// String describes: plain, unless plain needs more than MaxZeros zeros to
// place the point and the other form is shorter. It writes s in the other
// form, from s alone, and compares the lengths, the zeros and the values.
func checkForm(t *testing.T, input, s string) {
	var other string
	unsigned, neg := strings.CutPrefix(s, "-")
	if m := scientificForm.FindStringSubmatch(s); m != nil {
		exp, err := strconv.Atoi(m[3])
		require.NoError(t, err, "Evaluate(%q).String() = %q", input, s)
		r, ok := new(big.Rat).SetString(s)
		require.True(t, ok, "Evaluate(%q).String() = %q, not a number", input, s)
		other = r.FloatString(max(len(m[2])-exp, 0))
		require.Less(t, len(s), len(other), "Evaluate(%q).String() = %q, not shorter than the plain %s", input, s, other)
		digits := m[1] + m[2]
		zeros := max(-exp, exp+1-len(digits), 0)
		require.Greater(t, zeros, MaxZeros, "Evaluate(%q).String() = %q, but plain, %s, needs only %d zeros", input, s, other, zeros)
	} else {
		require.Regexp(t, plainForm, s, "Evaluate(%q).String(): neither form", input)
		whole, frac, _ := strings.Cut(unsigned, ".")
		digits := strings.TrimLeft(whole+frac, "0")
		exp := len(whole) - 1 - (len(whole+frac) - len(digits)) // the power of ten of the first significant digit
		if whole == "0" {
			exp = -(len(frac) - len(digits)) - 1
		}
		digits = strings.TrimRight(digits, "0")
		if digits == "" {
			return // 0
		}
		other = digits[:1]
		if len(digits) > 1 {
			other += "." + digits[1:]
		}
		other += fmt.Sprintf("e%+d", exp)
		if neg {
			other = "-" + other
		}
		if zeros := max(-exp, exp+1-len(digits), 0); zeros > MaxZeros {
			require.LessOrEqual(t, len(s), len(other), "Evaluate(%q).String() = %q, with %d zeros, longer than %s", input, s, zeros, other)
		}
	}
	x, _ := new(big.Rat).SetString(s)
	y, ok := new(big.Rat).SetString(other)
	require.True(t, ok && x.Cmp(y) == 0, "Evaluate(%q).String() = %q: %s, in the other form, is not its value", input, s, other)
}

// mantissa returns s up to its exponent, if it has one.
func mantissa(s string) string {
	m, _, _ := strings.Cut(s, "e")
	return m
}
