package calc

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// FuzzEval checks, for any input, that Evaluate does not panic and returns
// either a finite value (see checkValue) or an *Error whose position lies
// in the input; that a tree prints as text that parses back to the same
// tree; and that expr agrees (see compareWithExpr). The seeds are the
// corpus; inputs the fuzzer found worth keeping are in
// testdata/fuzz/FuzzEval.
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
			checkValue(t, input, v, tree)
			printed := tree.String()
			again, err := Parse(printed)
			if err != nil { // the parentheses String adds may pass a limit
				require.True(t, errors.Is(err, ErrTooDeep) || errors.Is(err, ErrTooLong),
					"Parse(%q), the tree of %q printed: %v", printed, input, err)
			} else {
				require.Equal(t, printed, again.String(), "Parse(%q).String(), the tree of %q printed", printed, input)
			}
		}
		compareWithExpr(t, input)
	})
}

// checkValue checks a value Evaluate returned for input: it is finite in
// float64; if it is exact, it is what big.Rat's own arithmetic makes of the
// tree, with the float64 big.Rat finds nearest to it, and if String says it
// exactly too, its digits are that value's; and otherwise String writes the
// float64 nearest to it, in its shortest form.
func checkValue(t *testing.T, input string, v *Value, tree Node) {
	f := v.float64()
	require.False(t, math.IsInf(f, 0) || math.IsNaN(f), "Evaluate(%q) = %v", input, f)
	s := v.String()
	if v.exact {
		num, den := v.rat.Num(), v.rat.Denom()
		require.True(t, den.Sign() > 0 && new(big.Int).GCD(nil, nil, num, den).Cmp(big.NewInt(1)) == 0,
			"Evaluate(%q) = %v/%v, not in lowest terms with a positive denominator, as big.Rat keeps values", input, num, den)
		want := textbook(tree)
		require.Zero(t, want.Cmp(v.rat), "Evaluate(%q) = %v exactly, but big.Rat makes it %v", input, v.rat, want)
		nearest, _ := want.Float64()
		require.Equal(t, nearest, f, "Evaluate(%q) = %v, whose nearest float64 big.Rat makes %v", input, f, nearest)
		if v.Exact() {
			got, ok := new(big.Rat).SetString(s)
			require.True(t, ok, "Evaluate(%q).String() = %q, not a number", input, s)
			require.Zero(t, want.Cmp(got), "Evaluate(%q).String() = %q, exact, but the value is %v", input, s, want)
			digits := strings.TrimLeft(strings.ReplaceAll(strings.TrimLeft(mantissa(s), "-"), ".", ""), "0")
			require.LessOrEqual(t, len(digits), MaxDigits, "Evaluate(%q).String() = %q", input, s)
			return
		}
	}
	require.False(t, v.Exact(), "Evaluate(%q) is approximate, but Exact reports true", input)
	g, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err, "Evaluate(%q).String() = %q", input, s)
	require.Equal(t, math.Abs(f), math.Abs(g), "Evaluate(%q).String() = %q, but the value is %v", input, s, f)
	require.Equal(t, len(mantissa(strconv.FormatFloat(math.Abs(f), 'e', -1, 64))), len(mantissa(strings.TrimLeft(strconv.FormatFloat(g, 'e', -1, 64), "-"))),
		"Evaluate(%q).String() = %q, not the shortest form of %v", input, s, f)
}

// mantissa returns s up to its exponent, if it has one.
func mantissa(s string) string {
	m, _, _ := strings.Cut(s, "e")
	return m
}

// textbook evaluates a tree with big.Rat's own methods, for a tree Eval
// computed exactly: its values are small enough then.
func textbook(n Node) *big.Rat {
	switch n := n.(type) {
	case *numberNode:
		r, ok := new(big.Rat).SetString(n.Text)
		if !ok { // an exponent past int64, which SetString refuses: Eval reads only 0e… exactly
			mantissa, _, _ := strings.Cut(strings.ToLower(n.Text), "e")
			r, _ = new(big.Rat).SetString(mantissa)
			if r.Sign() != 0 {
				panic(fmt.Sprintf("textbook: Eval read %s exactly", n.Text))
			}
		}
		return r
	case *unaryNode:
		x := textbook(n.X)
		if n.Op == '-' {
			x.Neg(x)
		}
		return x
	case *binaryNode:
		x, y := textbook(n.Left), textbook(n.Right)
		switch n.Op {
		case '+':
			return x.Add(x, y)
		case '-':
			return x.Sub(x, y)
		case '*':
			return x.Mul(x, y)
		case '/':
			return x.Quo(x, y)
		case '^': // x^(p/q) = (x^(1/q))^p, the root being a fraction, since Eval computed it exactly
			if !y.IsInt() {
				x.SetFrac(exactRoot(x.Num(), y.Denom()), exactRoot(x.Denom(), y.Denom()))
			}
			k := y.Num()
			if k.Sign() < 0 {
				x.Inv(x)
			}
			k.Abs(k)
			return x.SetFrac(new(big.Int).Exp(x.Num(), k, nil), new(big.Int).Exp(x.Denom(), k, nil))
		}
		panic(fmt.Sprintf("textbook, in fuzz_test.go, has no case for '%c'", n.Op))
	}
	panic("textbook: not a tree from Parse")
}

// exactRoot returns the q-th root of x, an integer that has one (negative
// for a negative x and an odd q), by bisection: a method unlike Eval's.
func exactRoot(x, q *big.Int) *big.Int {
	root, exact := floorRoot(new(big.Int).Abs(x), int(q.Int64()))
	if !exact {
		panic(fmt.Sprintf("exactRoot: %v has no %v-th root, but Eval computed its power exactly", x, q))
	}
	if x.Sign() < 0 {
		root.Neg(root)
	}
	return root
}
