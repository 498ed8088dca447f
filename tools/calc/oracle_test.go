package calc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The differential tests check this package against github.com/expr-lang/expr,
// an independent expression language whose arithmetic subset is ours. Two
// facts make it a fair oracle:
//
//   - level and associativity agree: expr's unary minus (precedence 90)
//     binds looser than its '**' (100, right-associative), so -2**2 is -4,
//     2**3**2 is 512, and 2**-1 parses, as with our '^'.
//   - Arithmetic agrees: with float operands expr computes +, -, *, / in
//     float64 and '**' as math.Pow, and parses float literals with
//     strconv.ParseFloat.
//
// translate bridges the two remaining gaps in the text.

// translate rewrites an expression of ours as one of expr's:
//   - an integer literal gets ".0" (12 becomes 12.0), because expr computes
//     integer literals in int, where 2/3 and 1e19-sized values differ;
//   - '^' becomes '**', expr's documented power operator (it also accepts
//     '^', with the same precedence).
//
// Everything else, errors included, is passed through unchanged.
func translate(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '^' {
			b.WriteString("**")
			i++
			continue
		}
		if !isWordByte(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i // end of the word: letters, digits, '_', '.', and an exponent's sign
		for j < len(s) && isWordByte(s[j]) ||
			j < len(s) && (s[j] == '+' || s[j] == '-') && (s[j-1] == 'e' || s[j-1] == 'E') && (isDigit(s[i]) || s[i] == '.') {
			j++
		}
		word := s[i:j]
		b.WriteString(word)
		if strings.Trim(word, "0123456789") == "" {
			b.WriteString(".0")
		}
		i = j
	}
	return b.String()
}

// exprEval evaluates expression with expr, as a one-shot program: compile,
// then run. The result is whatever expr returns; for our grammar that is a
// float64.
func exprEval(expression string) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("expr panicked: %v", r)
		}
	}()
	program, err := expr.Compile(translate(expression))
	if err != nil {
		return nil, err
	}
	return expr.Run(program, nil)
}

// A difference is a documented reason why expr accepts an expression that
// Evaluate rejects. Every such expression must be explained by one of
// differences, or the test fails.
type difference struct {
	reason  string
	example string                             // an expression it explains, checked by TestDifferences
	applies func(input string, err error) bool // err is Evaluate's error
}

var differences = []difference{
	{"expr divides in IEEE arithmetic, giving ±Inf or NaN, and its rounding may leave a divisor that is exactly 0 nonzero (1/(0.1+0.2-0.3)); we report a division by zero",
		"1/(0.1+0.2-0.3)", func(_ string, err error) bool { return errors.Is(err, ErrDivisionByZero) }},
	{"expr lets ±Inf and NaN flow through (1e308*10, 0^-1, (-8)^0.5), and its rounding may leave a base that is exactly 0 nonzero ((0.1+0.2-0.3)^-1); we report the first value that is not finite",
		"(0.1+0.2-0.3)^-1", func(_ string, err error) bool { return errors.Is(err, ErrNotFinite) }},
	{"expr rounds a value that is not 0 to 0 when it is below float64's least, and goes on; we refuse it, lest a division by it be by zero",
		"1e-2000 / 1e-2000", func(_ string, err error) bool { return errors.Is(err, ErrUnderflow) }},
	{"expr computes in float64, whose work is small; we refuse an expression whose exact arithmetic is past maxWork",
		"(2/3)^2584{99*+(2/3)^2584}", func(_ string, err error) bool { return errors.Is(err, ErrTooCostly) }},
	{"expr has no limit on nesting; we stop past MaxDepth levels",
		"{201*-}1", func(_ string, err error) bool { return errors.Is(err, ErrTooDeep) }},
	{"expr has no limit on length (only 10,000 nodes); we stop past MaxLength characters",
		"100{4999*+1}", func(_ string, err error) bool { return errors.Is(err, ErrTooLong) }},
	{"expr has ** as its power operator; ours is ^ alone",
		"2**3", func(input string, _ error) bool { return strings.Contains(input, "**") }},
	{"expr has '_' digit separators and hexadecimal, octal and binary integers; ours are decimal",
		"0x10 + 1_000", func(input string, _ error) bool { return otherNumbers.MatchString(input) }},
	{"expr has comments, // to the end of the line and /* … */, which our ^ may open: /^/0 is /**/0 to expr",
		"1 // one", func(input string, _ error) bool {
			return strings.Contains(input, "//") || strings.Contains(translate(input), "/*")
		}},
	{"expr has the range operator ..",
		"1..2", func(input string, _ error) bool { return strings.Contains(input, "..") }},
	{"expr is a whole language (names, strings, comparisons, Unicode white space, …); we accept only the characters of arithmetic",
		"1 <= 2", func(input string, _ error) bool { return strings.Trim(input, arithmetic) != "" }},
}

// otherNumbers matches the numbers expr has and we do not.
var otherNumbers = regexp.MustCompile(`[0-9]_|0[xXoObB]`)

// arithmetic holds every character an expression of ours may contain.
const arithmetic = "0123456789.eE+-*/^() \t\n\r"

// explain returns the difference that explains why expr accepts input and
// Evaluate rejects it with err, or nil if none does.
func explain(input string, err error) *difference {
	for i, d := range differences {
		if d.applies(input, err) {
			return &differences[i]
		}
	}
	return nil
}

// compareWithExpr checks Evaluate against expr on one input. If Evaluate
// accepts it, expr must too, and return what a float64 evaluation of our
// tree (rounding) returns, bit for bit, which shows that the two read it
// alike; then our value must be expr's where expr's arithmetic is exact, as
// it is when every value on the way is an integer below 2^53, and agree
// with it within a relative 1e-12 or, where expr's rounding has lost more
// than that (its 1e16 + 1 - 1e16 is 0, ours 1), within twice the bound on
// its error. If Evaluate rejects it and expr does not, a documented
// difference must explain why. It returns what happened, for the tally.
func compareWithExpr(t testing.TB, input string) string {
	ours, tree, err := Evaluate(input)
	theirs, theirErr := exprEval(input)
	switch {
	case err == nil && theirErr != nil && pastFloat64(tree):
		return "expr refuses a number past float64's range (1e400); we read it exactly, as exact values are bounded by MaxBits"
	case err == nil:
		require.NoError(t, theirErr, "Evaluate(%.60q) = %v, but expr rejects it", input, ours)
		v, ok := theirs.(float64)
		require.True(t, ok, "Evaluate(%.60q) = %v, but expr returns %T %v", input, ours, theirs, theirs)
		if math.IsNaN(v) && strings.Contains(input, "^") {
			return "expr's math.Pow has no power of a negative base with a fractional exponent (NaN); " +
				"with an odd denominator we take the real root: (-8)^(1/3) is -2"
		}
		r := rounding(tree)
		require.Equal(t, math.Float64bits(r.value), math.Float64bits(v),
			"expr on %.60q = %v, but our tree %.60s in float64 = %v: expr reads it otherwise", input, v, tree, r.value)
		got := ours.float64()
		switch {
		case r.exact:
			require.Equal(t, v, got, "Evaluate(%.60q) = %v, but expr = %v, computed exactly", input, ours, v)
			return "both accept, the same float64: every value an integer below 2^53"
		case math.Abs(got-v) <= 1e-12*math.Abs(v):
			return "both accept, within a relative 1e-12"
		case !math.IsInf(r.bound, 1):
			require.LessOrEqual(t, math.Abs(got-v), 2*r.bound,
				"Evaluate(%.60q) = %v, but expr = %v, whose error is at most %v", input, ours, v, r.bound)
			return "both accept, within expr's rounding error, which is more than 1e-12 of the value (cancellation)"
		}
		return "both accept; expr's float64 lost every digit (it rounded a divisor or base to 0, or past ±1.8e308)"
	case theirErr != nil:
		return "both reject"
	}
	d := explain(input, err)
	require.NotNil(t, d, "Evaluate(%.60q) fails (%v), but expr accepts it (= %v) and no difference explains that",
		input, err, theirs)
	return d.reason
}

// pastFloat64 reports whether a tree holds a number past float64's range,
// which strconv.ParseFloat, and so expr, reads as ±Inf.
func pastFloat64(n Node) bool {
	switch n := n.(type) {
	case *numberNode:
		f, _ := strconv.ParseFloat(n.Text(), 64)
		return math.IsInf(f, 0)
	case *unaryNode:
		return pastFloat64(n.X)
	case *binaryNode:
		return pastFloat64(n.Left) || pastFloat64(n.Right)
	}
	return false
}

// TestDifferences checks each documented difference on its example: expr
// accepts it, Evaluate rejects it, and the difference is what explains it.
func TestDifferences(t *testing.T) {
	for _, d := range differences {
		t.Run(d.example, func(t *testing.T) {
			input := expand(d.example)
			_, _, err := Evaluate(input)
			require.Error(t, err, "Evaluate(%.40q)", input)
			_, theirErr := exprEval(input)
			require.NoError(t, theirErr, "expr on %.40q", input)
			assert.Equal(t, d.reason, explain(input, err).reason, "explain(%.40q)", input)
		})
	}
}

// TestOracleCorpus compares Evaluate with expr on every corpus case.
func TestOracleCorpus(t *testing.T) {
	tally := map[string]int{}
	for _, c := range readCorpus(t) {
		t.Run(c.name, func(t *testing.T) { tally[compareWithExpr(t, c.input)]++ })
	}
	logTally(t, tally)
}

// TestOracleRandom compares Evaluate with expr on random expressions: some
// built from the grammar, which must all parse, and some strung together
// from tokens and stray characters, which mostly must not.
func TestOracleRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tally := map[string]int{}
	for i := range 2000 {
		input := randomExpression(r, 6)
		_, err := Parse(input)
		require.NoError(t, err, "Parse(%q), a random expression of the grammar", input)
		t.Run(fmt.Sprintf("grammar/%d", i), func(t *testing.T) { tally[compareWithExpr(t, input)]++ })
	}
	accepted := 0
	for outcome, n := range tally {
		if strings.HasPrefix(outcome, "both accept") {
			accepted += n
		}
	}
	require.Greater(t, accepted, 1000, "too few random expressions evaluate: %v", tally)
	for i := range 2000 {
		input := randomSoup(r)
		t.Run(fmt.Sprintf("soup/%d", i), func(t *testing.T) { tally[compareWithExpr(t, input)]++ })
	}
	logTally(t, tally)
}

func logTally(t *testing.T, tally map[string]int) {
	for outcome, n := range tally {
		t.Logf("%5d %s", n, outcome)
	}
}

// randomExpression returns a random expression of the grammar, nesting at
// most depth levels. Joining two expressions with a binary operator, or
// putting a sign before one, always gives another, so the text needs no
// tree behind it.
func randomExpression(r *rand.Rand, depth int) string {
	if depth == 0 || r.IntN(4) == 0 {
		return randomNumber(r)
	}
	switch r.IntN(6) {
	case 0:
		return "(" + space(r) + randomExpression(r, depth-1) + space(r) + ")"
	case 1:
		return string("+-"[r.IntN(2)]) + space(r) + randomExpression(r, depth-1)
	case 2: // a power, with a modest exponent so that most results stay finite
		return randomOperand(r, depth-1) + space(r) + "^" + space(r) + randomOperand(r, 1)
	}
	return randomExpression(r, depth-1) + space(r) + string("+-*/"[r.IntN(4)]) + space(r) + randomExpression(r, depth-1)
}

// randomOperand returns a random number or parenthesized expression.
func randomOperand(r *rand.Rand, depth int) string {
	if r.IntN(2) == 0 {
		return randomNumber(r)
	}
	return "(" + randomExpression(r, depth) + ")"
}

// randomNumber returns a random number in one of the accepted forms.
func randomNumber(r *rand.Rand) string {
	d := func() string { return strconv.Itoa(r.IntN(1000)) }
	switch r.IntN(8) {
	case 0:
		return d() + "." + d()
	case 1:
		return "." + d()
	case 2:
		return d() + "."
	case 3:
		return d() + string("eE"[r.IntN(2)]) + []string{"", "+", "-"}[r.IntN(3)] + strconv.Itoa(r.IntN(330))
	case 4:
		return strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(40)-20)), 'g', -1, 64)
	}
	return strconv.Itoa(r.IntN(20))
}

// space returns nothing or some white space.
func space(r *rand.Rand) string {
	return []string{"", "", "", " ", "  ", "\t", "\n", "\r\n"}[r.IntN(8)]
}

// soupTokens are the pieces randomSoup strings together: our tokens, parts
// of them, and characters that are in expr's language but not ours.
var soupTokens = []string{
	"1", "2", "0", "12", "3.5", ".5", "5.", "1e3", "2e-3", "e", "E", ".",
	"+", "-", "*", "/", "^", "(", ")", " ", "**", "_", "x", "%", "0x1", "<", "\v",
}

// randomSoup returns one to ten soupTokens joined together.
func randomSoup(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(10) {
		b.WriteString(soupTokens[r.IntN(len(soupTokens))])
	}
	return b.String()
}

func TestTranslate(t *testing.T) {
	for in, want := range map[string]string{
		"12":          "12.0",
		"1 + 2*3":     "1.0 + 2.0*3.0",
		"2^-1":        "2.0**-1.0",
		"3.5 + .5":    "3.5 + .5",
		"5.":          "5.",
		"1e3 + 1e+3":  "1e3 + 1e+3",
		"2.5E-3-1":    "2.5E-3-1.0",
		"1_000 + 0x1": "1_000 + 0x1",
		"x1 + 1":      "x1 + 1.0",
	} {
		assert.Equal(t, want, translate(in), "translate(%q)", in)
	}
}
